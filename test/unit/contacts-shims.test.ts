import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module without types
import { dependencyShims, rewriteCsvParse, rewriteLibphonenumber, rewriteValidator } from '../../src/contacts/esbuild-shims.mjs';

// The shims must not change a single answer: bundle the same entry with and without
// them and compare on many inputs.

const root = fileURLToPath(new URL('../..', import.meta.url));
type PlainCheck = (s: string, c?: string) => { valid: boolean; number: string } | null | undefined;
type Lib = {
  csv(s: string, delimiter: string): unknown;
  phone(s: string, c?: string): string | null;
  email(s: string): boolean;
  byteLength(s: string, max: number): boolean;
  checkPlainNumber?: PlainCheck;
  full(s: string, c?: string): { valid: boolean; number: string } | null;
};
let plain: Lib;
let shimmed: Lib;

const entry = `
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import isEmail from 'validator/lib/isEmail.js';
import isByteLength from 'validator/lib/isByteLength.js';
export function phone(s, c) {
  const p = parsePhoneNumberFromString(s, c);
  return p ? JSON.stringify([p.number, p.isValid(), p.isPossible(), p.country ?? null, p.nationalNumber]) : null;
}
export function full(s, c) {
  const p = parsePhoneNumberFromString(s, c);
  return p ? { valid: p.isValid(), number: p.number } : null;
}
export { checkPlainNumber } from './src/spec/phone-fast.ts';
export function email(s) { return isEmail(s); }
import { parse as parseCsv } from 'csv-parse/sync';
export function csv(s, delimiter) {
  try {
    return parseCsv(Buffer.from(s), { bom: true, delimiter, relax_column_count: true, skip_empty_lines: true });
  } catch (e) {
    return ['error', e.code, e.message];
  }
}
export function byteLength(s, max) { return isByteLength(s, { max }); }
`;

async function bundle(withShims: boolean): Promise<Lib> {
  const out = join(mkdtempSync(join(tmpdir(), 'vap-shims-')), `lib-${withShims ? 'shim' : 'plain'}.mjs`);
  const result = await build({
    stdin: { contents: entry, resolveDir: root, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: out,
    metafile: true,
    logLevel: 'silent',
    plugins: withShims ? [dependencyShims()] : [],
  });
  if (withShims) expect(result.warnings).toEqual([]);
  return (await import(pathToFileURL(out).href)) as Lib;
}

beforeAll(async () => {
  [plain, shimmed] = await Promise.all([bundle(false), bundle(true)]);
}, 60_000);

describe('dependency shims', () => {
  it('apply to the installed versions', () => {
    const lib = (p: string) => join(root, 'node_modules', p);
    const read = (p: string) => readFileSync(lib(p), 'utf8');
    expect(
      rewriteLibphonenumber(lib('libphonenumber-js/es6/helpers/matchesEntirely.js'), read('libphonenumber-js/es6/helpers/matchesEntirely.js')).applied,
    ).toEqual(['matchesEntirely']);
    expect(
      rewriteLibphonenumber(lib('libphonenumber-js/es6/parsePhoneNumberWithError_.js'), read('libphonenumber-js/es6/parsePhoneNumberWithError_.js')).applied,
    ).toEqual(['_objectSpread']);
    expect(rewriteLibphonenumber(lib('libphonenumber-js/es6/metadata.js'), read('libphonenumber-js/es6/metadata.js')).applied).toEqual([
      '_classCallCheck',
      'sharedNumberingPlan',
      'setVersion',
    ]);
    expect(rewriteLibphonenumber(lib('libphonenumber-js/es6/parse.js'), read('libphonenumber-js/es6/parse.js')).applied).toContain(
      'extractFormattedPhoneNumber',
    );
    expect(
      rewriteLibphonenumber(lib('libphonenumber-js/es6/helpers/isViablePhoneNumber.js'), read('libphonenumber-js/es6/helpers/isViablePhoneNumber.js')).applied,
    ).toEqual(['isViablePhoneNumber']);
    const ext = 'libphonenumber-js/es6/helpers/extension/extractExtension.js';
    expect(rewriteLibphonenumber(lib(ext), read(ext)).applied).toEqual(['extractExtension']);
    expect(
      rewriteLibphonenumber(lib('libphonenumber-js/es6/helpers/getNumberType.js'), read('libphonenumber-js/es6/helpers/getNumberType.js')).applied,
    ).toContain('getNumberType');
    const prefix = 'libphonenumber-js/es6/helpers/extractNationalNumberFromPossiblyIncompleteNumber.js';
    expect(rewriteLibphonenumber(lib(prefix), read(prefix)).applied).toEqual(['nationalPrefixPattern']);
    expect(
      rewriteLibphonenumber(lib('libphonenumber-js/es6/parseIncompletePhoneNumber.js'), read('libphonenumber-js/es6/parseIncompletePhoneNumber.js')).applied,
    ).toEqual(['parseIncompletePhoneNumber']);
    expect(rewriteValidator(lib('validator/lib/isByteLength.js'), read('validator/lib/isByteLength.js')).applied).toEqual(['isByteLength']);
    expect(rewriteCsvParse(lib('csv-parse/lib/utils/ResizeableBuffer.js'), read('csv-parse/lib/utils/ResizeableBuffer.js')).applied).toEqual(['fieldToString']);
  });

  it('leave a changed file alone', () => {
    expect(rewriteLibphonenumber('/x/libphonenumber-js/es6/helpers/matchesEntirely.js', 'export default function f() {}').applied).toEqual([]);
    expect(rewriteValidator('/x/validator/lib/isByteLength.js', 'var len = 0;').applied).toEqual([]);
  });

  it('the _objectSpread rewrite copies as Babel does, __proto__ keys and symbols included', () => {
    const path = join(root, 'node_modules/libphonenumber-js/es6/parsePhoneNumberWithError_.js');
    const original = readFileSync(path, 'utf8');
    const rewritten = rewriteLibphonenumber(path, original).text;
    // The helpers of each version, as a function (the file's imports and exports cut off).
    const helpers = (text: string) =>
      text
        .split('\n')
        .filter((l) => /^function /.test(l) && !/^function parsePhoneNumberWithError/.test(l))
        .join('\n');
    const make = (text: string) => new Function(`${helpers(text)}\nreturn _objectSpread;`)() as (...a: unknown[]) => Record<PropertyKey, unknown>;
    const babel = make(original);
    const fast = make(rewritten);
    const sym = Symbol('s');
    const withProto = JSON.parse('{"__proto__": {"x": 1}, "a": 2}') as object;
    const cases: unknown[][] = [
      [{}, { defaultCountry: 'US' }],
      [{}, { a: 1, b: undefined }, {}, { v2: true }],
      [{ defaultCountry: 'GB' }, undefined],
      [{}, null, {}, { v2: true }],
      [{}, { [sym]: 1, a: 2 }],
      [{}, withProto, {}, { v2: true }],
      [{ toString: 1 }, { toString: 2 }],
    ];
    for (const args of cases) {
      // Fresh targets (they are written to); sources are only read.
      const a = babel({ ...(args[0] as object) }, ...args.slice(1));
      const b = fast({ ...(args[0] as object) }, ...args.slice(1));
      const view = (o: Record<PropertyKey, unknown>) => [
        Object.getPrototypeOf(o) === Object.prototype,
        Reflect.ownKeys(o).map(String),
        Reflect.ownKeys(o).map((k) => o[k]),
      ];
      expect(view(b)).toEqual(view(a));
    }
    expect(Object.getOwnPropertyDescriptor(fast({}, withProto), '__proto__')).toEqual({
      value: { x: 1 },
      enumerable: true,
      configurable: true,
      writable: true,
    });
  });

  const phoneChars = fc.string({ unit: fc.constantFrom(...'+0123456789 ()-.'.split(''), '٣', '０', 'x', 'ext. ', ';ext=', '+'), maxLength: 22 });
  const e164 = fc.tuple(fc.integer({ min: 1, max: 999 }), fc.integer({ min: 0, max: 99_999_999_999 })).map(([cc, n]) => `+${cc}${n}`);

  it('parse phone numbers exactly as the library does (repeated patterns hit the cache)', () => {
    fc.assert(
      fc.property(fc.oneof(phoneChars, e164), fc.constantFrom(undefined, 'US', 'GB', 'FR', 'DE', 'IN', 'BR', 'XX'), (s, c) => {
        expect(shimmed.phone(s, c)).toEqual(plain.phone(s, c));
        expect(shimmed.phone(s, c)).toEqual(plain.phone(s, c));
      }),
      { numRuns: 5000 },
    );
  });

  it('the short phone check (plain +digits, or national with separators) answers as the whole library does', () => {
    expect(plain.checkPlainNumber).toBeUndefined();
    const check = shimmed.checkPlainNumber!;
    expect(check).toBeTypeOf('function');
    // Every calling code of 1 to 3 digits, any national digits; real-looking ones too.
    const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: min, maxLength: max });
    const plus = fc.oneof(
      fc.tuple(fc.integer({ min: 1, max: 999 }), digits(0, 16)).map(([cc, n]) => `+${cc}${n}`),
      fc
        .tuple(fc.constantFrom('1', '44', '33', '49', '91', '55', '7', '61', '81', '86', '39', '34', '1268', '1684'), digits(4, 12))
        .map(([cc, n]) => `+${cc}${n}`),
      fc
        .tuple(fc.constantFrom('212', '415', '617', '702', '917', '604', '416', '787', '876'), fc.integer({ min: 2000000, max: 9999999 }))
        .map(([a, n]) => `+1${a}${n}`),
      digits(0, 20).map((d) => `+${d}`),
      fc.string({ unit: fc.constantFrom('+', '0', '1', '5', ' ', 'x'), maxLength: 14 }),
      // National numbers, written with separators.
      fc.tuple(digits(3, 3), digits(3, 3), digits(4, 4)).map(([a, b, c]) => `(${a}) ${b}-${c}`),
      fc
        .tuple(digits(1, 6), fc.array(fc.tuple(fc.constantFrom(' ', '-', '.', '(', ')', ' (', ') ', '--'), digits(1, 5)), { maxLength: 4 }))
        .map(([h, t]) => h + t.map(([sep, d]) => sep + d).join('')),
      fc.string({ unit: fc.constantFrom('0', '1', '2', '4', '7', '9', ' ', '(', ')', '-', '.'), minLength: 1, maxLength: 24 }),
    );
    let used = 0;
    fc.assert(
      fc.property(plus, fc.constantFrom(undefined, 'US', 'GB', 'FR', 'DE', 'IN', 'BR', 'CA', 'AU', 'JP', 'RU', 'XX'), (s, c) => {
        const short = check(s, c);
        if (short === undefined) return;
        used++;
        expect({ s, c, answer: short }).toEqual({ s, c, answer: plain.full(s, c) });
      }),
      { numRuns: 30000 },
    );
    expect(used).toBeGreaterThan(8000);
  });

  it('csv-parse gives the same records and errors', () => {
    const cell = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'é', '😀', '\u0000', '\ufeff'), maxLength: 6 }),
      fc.string({ unit: fc.constantFrom('a', ',', ';', '"', '\n', '\r\n', ' ', 'ü'), maxLength: 6 }).map((x) => `"${x.replace(/"/g, '""')}"`),
      fc.string({ unit: fc.constantFrom('a', '"', ',', '\n', '\r'), maxLength: 5 }),
    );
    const table = fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { minLength: 0, maxLength: 10 });
    fc.assert(
      fc.property(table, fc.boolean(), fc.constantFrom(',', ';'), fc.constantFrom('\n', '\r\n'), (rows, bom, delimiter, eol) => {
        const text = (bom ? '\ufeff' : '') + rows.map((r) => r.join(delimiter)).join(eol);
        expect(shimmed.csv(text, delimiter)).toEqual(plain.csv(text, delimiter));
      }),
      { numRuns: 3000 },
    );
  });

  it('check e-mails and byte lengths exactly as the library does', () => {
    const text = fc.oneof(
      fc.emailAddress(),
      fc.string({ unit: 'binary', maxLength: 70 }),
      fc.string({ unit: fc.constantFrom('a', '.', '@', '%', '\n', 'é', '😀', '-', ' '), maxLength: 70 }),
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 80 }), (s, max) => {
        expect(shimmed.email(s)).toBe(plain.email(s));
        let a: unknown;
        let b: unknown;
        try {
          a = plain.byteLength(s, max);
        } catch (e) {
          a = (e as Error).name;
        }
        try {
          b = shimmed.byteLength(s, max);
        } catch (e) {
          b = (e as Error).name;
        }
        expect(b).toEqual(a);
      }),
      { numRuns: 5000 },
    );
  });
});
