import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkChecker } from '../../src/contacts/check-chunk.js';
import isEmailModule from 'validator/lib/isEmail.js';
import { checkValue, FIELD_TYPES, isBlank, isPlainEmail, validateRecord, valueChecker, type FieldType, type Schema } from '../../src/spec/contact-validate.js';

const ok = (type: FieldType, raw: unknown, opts = {}) => checkValue(type, raw, opts);
// validator's per-function modules are CommonJS with a default export.
const isEmail = ((isEmailModule as unknown as { default?: unknown }).default ?? isEmailModule) as unknown as (s: string) => boolean;

describe('checkValue: each type', () => {
  it('string keeps the value as given', () => {
    expect(ok('string', '  Ada ')).toEqual({ ok: true, value: '  Ada ' });
    expect(ok('string', 42)).toEqual({ ok: true, value: '42' });
  });

  it.each([
    ['42', 42],
    ['-3.5', -3.5],
    ['+7', 7],
    ['.5', 0.5],
    ['1e3', 1000],
    [' 12 ', 12],
  ])('number %j → %j', (raw, value) => {
    expect(ok('number', raw)).toEqual({ ok: true, value });
  });

  it.each(['n/a', '1,000', '0x10', 'Infinity', 'NaN', '1e', '--1', '1.2.3'])('number rejects %j', (raw) => {
    const c = ok('number', raw);
    expect(c.ok).toBe(false);
  });

  it('number: out of range and JSON numbers', () => {
    expect(ok('number', '1e999')).toEqual({ ok: false, reason: '"1e999" is out of range' });
    expect(ok('number', 12.5)).toEqual({ ok: true, value: 12.5 });
    expect(ok('number', Number.NaN).ok).toBe(false);
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['yes', true],
    ['Yes', true],
    ['1', true],
    ['false', false],
    ['no', false],
    ['0', false],
    [' No ', false],
  ])('boolean %j → %j', (raw, value) => {
    expect(ok('boolean', raw)).toEqual({ ok: true, value });
  });

  it.each(['maybe', 'y', 'n', '2', 'on', 'off', 'truee'])('boolean rejects %j', (raw) => {
    expect(ok('boolean', raw)).toMatchObject({ ok: false, reason: expect.stringContaining('is not a boolean') });
  });

  it.each(['2024-02-29', '1999-12-31', '2024-01-05T10:00:00Z', '2024-01-05T10:00:00.123+02:00'])('date accepts %j', (raw) => {
    expect(ok('date', raw)).toEqual({ ok: true, value: raw });
  });

  it.each(['2023-02-29', '12/13/2020', '2024-13-01', '2024-1-5', 'yesterday', '2024-01-05 10:00'])('date rejects %j', (raw) => {
    expect(ok('date', raw)).toMatchObject({ ok: false, reason: expect.stringContaining('ISO 8601') });
  });

  it.each(['ada@example.com', 'first.last+tag@sub.example.co.uk', ' ada@example.com '])('email accepts %j', (raw) => {
    expect(ok('email', raw)).toEqual({ ok: true, value: raw.trim() });
  });

  it.each(['ada.at.example.com', 'ada@', '@example.com', 'ada@example', 'a b@example.com', 'ada@@example.com'])('email rejects %j', (raw) => {
    expect(ok('email', raw)).toMatchObject({ ok: false, reason: expect.stringContaining('not a valid e-mail') });
  });

  it('phone: E.164 accepted and normalised', () => {
    expect(ok('phone', '+14155550100')).toEqual({ ok: true, value: '+14155550100' });
    expect(ok('phone', '+1 (415) 555-0100')).toEqual({ ok: true, value: '+14155550100' });
    expect(ok('phone', '+44 20 7946 0958')).toEqual({ ok: true, value: '+442079460958' });
  });

  it('phone: national numbers need --default-country, then become E.164', () => {
    expect(ok('phone', '(415) 555-0100')).toMatchObject({ ok: false, reason: expect.stringContaining('--default-country') });
    expect(ok('phone', '(415) 555-0100', { defaultCountry: 'US' })).toEqual({ ok: true, value: '+14155550100' });
    expect(ok('phone', '020 7946 0958', { defaultCountry: 'GB' })).toEqual({ ok: true, value: '+442079460958' });
  });

  it.each(['+1415', '+999123', '555-0100x', '+1 415 555 01000'])('phone rejects %j', (raw) => {
    expect(ok('phone', raw, { defaultCountry: 'US' }).ok).toBe(false);
  });

  it('non-scalar values are refused with their kind', () => {
    expect(ok('string', null)).toEqual({ ok: false, reason: 'expected a string, got null' });
    expect(ok('number', [1])).toEqual({ ok: false, reason: 'expected a number, got an array' });
    expect(ok('email', { a: 1 })).toEqual({ ok: false, reason: 'expected a email, got object' });
  });

  it('long values are clipped in reasons', () => {
    const c = ok('number', 'x'.repeat(100));
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.reason.length).toBeLessThan(70);
  });
});

describe('isBlank and validateRecord', () => {
  it('blank is empty, spaces, null or absent', () => {
    for (const v of ['', '  ', '\t', null, undefined]) expect(isBlank(v)).toBe(true);
    for (const v of ['0', 0, false, 'a']) expect(isBlank(v)).toBe(false);
  });

  const schema: Schema = {
    fields: [
      { name: 'name', type: 'string', required: true },
      { name: 'phone', type: 'phone', required: true },
      { name: 'age', type: 'number' },
    ],
  };

  it('reports every field error, and drops keys outside the schema', () => {
    expect(validateRecord(schema, { name: '', phone: 'x', age: 'old' })).toEqual({
      ok: false,
      errors: [
        { field: 'name', message: 'is required' },
        { field: 'phone', message: expect.stringContaining('E.164') },
        { field: 'age', message: '"old" is not a number' },
      ],
    });
    expect(validateRecord(schema, { name: 'Ada', phone: '+14155550100', extra: 1 })).toEqual({ ok: true, value: { name: 'Ada', phone: '+14155550100' } });
  });
});

// Property-based: arbitrary input never throws, answers are well formed, and
// valid values round-trip (checking the normalised value again gives itself).
describe('validators: properties', () => {
  const anyValue = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(fc.integer()),
    fc.object(),
  );

  it('never throw, always answer ok+value or a non-empty reason', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIELD_TYPES), anyValue, fc.constantFrom(undefined, 'US', 'GB'), (type, raw, country) => {
        const c = checkValue(type, raw, { defaultCountry: country as 'US' | undefined });
        if (c.ok) expect(['string', 'number', 'boolean']).toContain(typeof c.value);
        else expect(c.reason.length).toBeGreaterThan(0);
      }),
      { numRuns: 3000 },
    );
  });

  it('strings that look like phone numbers never crash the phone parser', () => {
    const phoneish = fc.string({ unit: fc.constantFrom(...'+0123456789 ()-.x#*'.split('')), maxLength: 25 });
    fc.assert(
      fc.property(phoneish, fc.constantFrom(undefined, 'US', 'FR', 'DE'), (raw, country) => {
        const c = checkValue('phone', raw, { defaultCountry: country as 'US' | undefined });
        if (c.ok) expect(c.value).toMatch(/^\+[1-9]\d{1,14}$/);
      }),
      { numRuns: 3000 },
    );
  });

  it('valid values round-trip: the normalised value checks to itself', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIELD_TYPES), fc.oneof(fc.string(), fc.double({ noNaN: true }), fc.boolean()), (type, raw) => {
        const c = checkValue(type, raw, { defaultCountry: 'US' });
        if (!c.ok) return;
        const again = checkValue(type, c.value);
        expect(again).toEqual({ ok: true, value: c.value });
      }),
      { numRuns: 3000 },
    );
  });

  it('generated valid values are accepted: numbers, booleans, dates, e-mails, E.164 phones', () => {
    // String(-0) is "0": compare with the number the text stands for.
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(checkValue('number', String(n))).toEqual({ ok: true, value: Number(String(n)) });
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), (n) => {
        expect(checkValue('number', ` ${n} `)).toEqual({ ok: true, value: n });
      }),
    );
    fc.assert(
      fc.property(fc.boolean(), (b) => {
        expect(checkValue('boolean', String(b))).toEqual({ ok: true, value: b });
      }),
    );
    fc.assert(
      fc.property(fc.date({ min: new Date('1900-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }), (d) => {
        const iso = d.toISOString();
        expect(checkValue('date', iso.slice(0, 10))).toEqual({ ok: true, value: iso.slice(0, 10) });
        expect(checkValue('date', iso)).toEqual({ ok: true, value: iso });
      }),
    );
    fc.assert(
      fc.property(fc.emailAddress(), (e) => {
        expect(checkValue('email', e)).toEqual({ ok: true, value: e });
      }),
      { numRuns: 500 },
    );
    // US numbers: NPA and NXX start with 2-9; 555-01xx is a fictional but valid range.
    const usLine = fc.tuple(fc.constantFrom('212', '415', '617', '702', '917'), fc.integer({ min: 200, max: 999 }), fc.integer({ min: 0, max: 9999 }));
    fc.assert(
      fc.property(usLine, ([npa, nxx, line]) => {
        const e164 = `+1${npa}${nxx}${String(line).padStart(4, '0')}`;
        expect(checkValue('phone', e164)).toEqual({ ok: true, value: e164 });
        const national = `(${npa}) ${nxx}-${String(line).padStart(4, '0')}`;
        expect(checkValue('phone', national, { defaultCountry: 'US' })).toEqual({ ok: true, value: e164 });
      }),
    );
  });

  it('the plain e-mail fast path accepts only what isEmail accepts', () => {
    // Addresses near the edges: every character class, dots, hyphens, long labels, long local parts.
    const char = fc.constantFrom('a', 'Z', '0', '.', '-', '_', '+', '@', '"', ' ', 'é', '\uff01', '!', '~', '`', '|', '1');
    const label = fc.string({ unit: fc.constantFrom('a', 'b', '0', '-'), minLength: 0, maxLength: 70 });
    const near = fc
      .tuple(
        fc.string({ unit: char, maxLength: 70 }),
        fc.array(label, { minLength: 1, maxLength: 4 }),
        fc.string({ unit: fc.constantFrom('c', 'o', 'm', '1', '-', 'x', 'n'), maxLength: 66 }),
      )
      .map(([local, labels, tld]) => `${local}@${[...labels, tld].join('.')}`);
    const text = fc.oneof(fc.emailAddress(), near, fc.string({ unit: char, maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 80 }));
    let plain = 0;
    fc.assert(
      fc.property(text, (s) => {
        if (isPlainEmail(s)) {
          plain++;
          expect(isEmail(s)).toBe(true);
        }
      }),
      { numRuns: 5000 },
    );
    expect(plain).toBeGreaterThan(500);
    // Edges named: 64-character local part, 63-character label, 254 in all.
    const l63 = 'a'.repeat(63);
    for (const s of [
      `${'a'.repeat(64)}@example.com`,
      `${'a'.repeat(65)}@example.com`,
      `x@${l63}.com`,
      `x@${l63}a.com`,
      `a@b.${'c'.repeat(63)}`,
      `a@b.${'c'.repeat(64)}`,
      `${'a'.repeat(64)}@${[l63, l63, 'a'.repeat(56)].join('.')}.io`,
    ]) {
      expect({ s, plain: isPlainEmail(s) && isEmail(s) }).toEqual({ s, plain: isPlainEmail(s) });
      expect(checkValue('email', s).ok).toBe(isEmail(s));
    }
  });

  it('valueChecker (cached) answers exactly as checkValue', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FIELD_TYPES),
        fc.array(fc.oneof(fc.string(), fc.constantFrom('2024-01-01', 'yes', '+14155550100', '(415) 555-0100')), { maxLength: 30 }),
        (type, values) => {
          const check = valueChecker(type, { defaultCountry: 'US' });
          for (const v of [...values, ...values]) expect(check(v)).toEqual(checkValue(type, v, { defaultCountry: 'US' }));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('chunkChecker agrees with validateRecord', () => {
  const schema: Schema = {
    fields: [
      { name: 'name', type: 'string', required: true },
      { name: 'n', type: 'number' },
      { name: 'b', type: 'boolean' },
      { name: 'p', type: 'phone', required: true },
      { name: 'e', type: 'email' },
      { name: 'd', type: 'date' },
    ],
  };
  const pools: Record<string, string[]> = {
    name: ['Ada', '', ' ', 'Grace Hopper'],
    n: ['1', '2.5', 'x', '', '1e999'],
    b: ['yes', 'no', 'maybe', ''],
    p: ['+14155550100', '(415) 555-0100', '555', '', '+1 415 555 0101'],
    e: ['a@example.com', 'bad', ''],
    d: ['2024-02-29', '2023-02-29', ''],
  };
  const row = fc.tuple(...schema.fields.map((f) => fc.oneof(fc.constantFrom(...pools[f.name]!), fc.string({ maxLength: 8 }))));

  it('same verdicts, errors and normalised values, row by row', () => {
    const check = chunkChecker({ fields: schema.fields, defaultCountry: 'US', wantValues: true });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 40 }), (rows) => {
        const res = check({ n: rows.length, values: rows.flat() });
        let v = 0;
        const invalid = new Set(res.invalid);
        const errorsByRow = new Map<number, Array<{ field: string; message: string }>>();
        for (let e = 0; e < res.errors.length; e += 3) {
          const r = res.errors[e] as number;
          if (!errorsByRow.has(r)) errorsByRow.set(r, []);
          errorsByRow.get(r)!.push({ field: res.errors[e + 1] as string, message: res.errors[e + 2] as string });
        }
        rows.forEach((r, i) => {
          const record = Object.fromEntries(schema.fields.map((f, k) => [f.name, r[k]]));
          const want = validateRecord(schema, record, { defaultCountry: 'US' });
          expect(invalid.has(i)).toBe(!want.ok);
          if (want.ok) {
            const got = Object.fromEntries(schema.fields.flatMap((f, k) => (res.values![v + k] === undefined ? [] : [[f.name, res.values![v + k]]])));
            expect(got).toEqual(want.value);
            v += schema.fields.length;
          } else {
            expect(errorsByRow.get(i)).toEqual(want.errors);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it('row-level errors and phone normalisation examples', () => {
    const check = chunkChecker({ fields: [schema.fields[3]!], defaultCountry: 'US', wantValues: false });
    const res = check({ n: 3, values: ['(415) 555-0100', '+14155550101', 'x'], rowErrors: [[1, 'has 2 values, the header has 3']] });
    expect(res.invalid).toEqual([1, 2]);
    expect(res.errors.slice(0, 3)).toEqual([1, '', 'has 2 values, the header has 3']);
    expect(res.normalised).toBe(1);
    expect(res.examples).toEqual([[0, 'p', '(415) 555-0100', '+14155550100']]);
    expect(res.values).toBeUndefined();
  });
});
