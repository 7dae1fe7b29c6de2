import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeFormula, unescapeFormula } from '../../src/contacts/csv-write.js';
import { csvField, csvLine, defaultErrorsPath, ErrorsFile } from '../../src/contacts/errors-file.js';
import { looseName, parseMapFlags, resolveMapping } from '../../src/contacts/mapping.js';
import type { Schema } from '../../src/spec/contact-validate.js';
import { UsageError } from '../../src/errors.js';

const schema: Schema = {
  fields: [
    { name: 'firstName', type: 'string', required: true },
    { name: 'phone', type: 'phone', required: true },
    { name: 'email', type: 'email' },
    { name: 'age', type: 'number' },
  ],
};
const csv = { format: 'csv' as const, file: 'leads.csv', listId: 'cl_1' };

describe('--map flags', () => {
  it('splits at the last =', () => {
    expect(parseMapFlags(['E-mail=email', 'a=b=phone', 'Notes='])).toEqual([
      { column: 'E-mail', field: 'email' },
      { column: 'a=b', field: 'phone' },
      { column: 'Notes', field: '' },
    ]);
  });
  it.each(['email', '=email', ''])('refuses %j', (flag) => {
    expect(() => parseMapFlags([flag])).toThrow(UsageError);
  });
});

describe('resolveMapping', () => {
  it('matches header names exactly, then loosely (case, spaces, _ and -)', () => {
    expect(looseName('First Name')).toBe(looseName('first_name'));
    const m = resolveMapping(['First Name', 'PHONE', 'email', 'notes', 'age '], schema, [], csv);
    expect(m.pairs).toEqual({ firstName: 'First Name', phone: 'PHONE', email: 'email', age: 'age ' });
    expect(m.fields.map((f) => f.name)).toEqual(['firstName', 'phone', 'email', 'age']);
    expect(m.columnIndex).toEqual([0, 1, 2, 4]);
    expect(m.unmapped).toEqual(['notes']);
  });

  it('--map wins over names, and an empty field ignores a column quietly', () => {
    const m = resolveMapping(['name', 'Mobile', 'phone', 'notes'], schema, parseMapFlags(['name=firstName', 'Mobile=phone', 'notes=']), csv);
    expect(m.pairs).toEqual({ firstName: 'name', phone: 'Mobile' });
    expect(m.unmapped).toEqual(['phone']);
  });

  it('refuses an unknown column or field, and a field mapped twice', () => {
    expect(() => resolveMapping(['a', 'phone'], schema, parseMapFlags(['x=firstName']), csv)).toThrow(/has no column "x"/);
    expect(() => resolveMapping(['a', 'phone'], schema, parseMapFlags(['a=nope']), csv)).toThrow(/has no field "nope"/);
    expect(() => resolveMapping(['a', 'b', 'phone'], schema, parseMapFlags(['a=firstName', 'b=firstName']), csv)).toThrow(/two columns/);
  });

  it('no column matching any field is a usage error (exit 2)', () => {
    const err = (() => {
      try {
        resolveMapping(['x', 'y'], schema, [], csv);
      } catch (e) {
        return e;
      }
    })() as UsageError;
    expect(err).toBeInstanceOf(UsageError);
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/no column of leads.csv matches a field of list cl_1/);
  });

  it('a required field without a column is a usage error', () => {
    expect(() => resolveMapping(['firstName', 'email'], schema, [], csv)).toThrow(/required field "phone"/);
  });

  it("a previous errors file's row, field and error columns are not data and not warned about", () => {
    const m = resolveMapping(['firstName', 'phone', 'row', 'field', 'error'], schema, [], csv);
    expect(m.unmapped).toEqual([]);
    expect(m.keptColumns).toEqual([0, 1]);
  });

  it('JSON: every field is read by name from objects that have it', () => {
    const m = resolveMapping(['firstName', 'phone', 'extra'], schema, parseMapFlags(['mail=email']), { ...csv, format: 'json' });
    expect(m.pairs).toEqual({ firstName: 'firstName', phone: 'phone', email: 'mail', age: 'age' });
    expect(m.unmapped).toEqual(['extra']);
  });
});

describe('errors file', () => {
  it('default path is beside the input', () => {
    expect(defaultErrorsPath('/data/leads.csv')).toBe('/data/leads.errors.csv');
    expect(defaultErrorsPath('export.json')).toBe('export.errors.csv');
    expect(defaultErrorsPath('/data/leads.csv', true)).toBe('/data/leads.dry-run.errors.csv');
  });

  it('quotes per RFC 4180', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(' padded')).toBe('" padded"');
    expect(csvField(null)).toBe('');
    expect(csvField({ a: 1 })).toBe('"{""a"":1}"');
    expect(csvField('a;b', ';')).toBe('"a;b"');
    expect(csvLine(['a', 1, true])).toBe('a,1,true\r\n');
  });

  it('any values survive a round trip through csv-parse, the formula escape undone (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.string({ unit: 'binary', maxLength: 8 }), { minLength: 3, maxLength: 3 }), { maxLength: 10 }), (rows) => {
        const text = rows.map((r) => csvLine(r)).join('');
        const read = parse(text, { relax_column_count: true }) as string[][];
        // Opened in a spreadsheet, no cell begins like a formula.
        for (const cell of read.flat()) expect(/^[=+\-@\t\r]/.test(cell)).toBe(false);
        expect(read.map((r) => r.map(unescapeFormula))).toEqual(rows);
      }),
      { numRuns: 300 },
    );
  });

  it('escapes cells that a spreadsheet would run as formulas (OWASP), and only those', () => {
    expect(csvField('=1+2')).toBe("'=1+2");
    expect(csvField('+14155550100')).toBe("'+14155550100");
    expect(csvField('-5')).toBe("'-5");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\tx')).toBe("'\tx");
    expect(csvField('\r=x')).toBe('"\'\r=x"');
    expect(csvField("'quoted")).toBe("''quoted");
    expect(csvField('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(csvField('a=b')).toBe('a=b');
    for (const v of ['=1+2', '+1', '-', '@', '\t', "'", "''=x", 'plain', '']) expect(unescapeFormula(escapeFormula(v))).toBe(v);
  });

  it('writes the original columns plus row, field and error, one line per row, atomically', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-errfile-'));
    const path = join(dir, 'leads.errors.csv');
    const out = new ErrorsFile(path, ['name', 'phone', 'row', 'field', 'error'], [0, 1]);
    await out.write(['Lovelace, Ada', 'x', '9', 'phone', 'old'], 3, ['phone'], ['"x" is not a valid phone number']);
    await out.write(['', 'y'], 7, ['name', 'phone'], ['is required', '"y" is bad']);
    expect(await out.close()).toBe(path);
    const rows = parse(readFileSync(path, 'utf8'));
    expect(rows).toEqual([
      ['name', 'phone', 'row', 'field', 'error'],
      ['Lovelace, Ada', 'x', '3', 'phone', '"x" is not a valid phone number'],
      ['', 'y', '7', 'name; phone', 'name: is required; phone: "y" is bad'],
    ]);
  });

  it('nothing is written when there was no error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-errfile-'));
    const out = new ErrorsFile(join(dir, 'x.errors.csv'), ['a'], [0]);
    expect(await out.close()).toBeUndefined();
  });
});
