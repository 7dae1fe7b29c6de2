import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inferSchema, inferType, readCsvSample } from '../../src/contacts/schema-infer.js';
import { UsageError } from '../../src/errors.js';

describe('inferType', () => {
  it.each([
    [['+14155550100', '+442071838750'], 'phone'],
    [['ada@example.com', 'bob@example.org'], 'email'],
    [['2024-01-05', '1999-12-31'], 'date'],
    [['2024-01-05T10:00:00Z'], 'date'],
    [['42', '3.5', '-1', '1e3'], 'number'],
    [['true', 'False', 'yes', 'NO'], 'boolean'],
    [['Ada', 'Bob'], 'string'],
    [['02134', '10001'], 'string'], // leading zeros: a code, not a number
    [['0', '1', '0'], 'number'], // 0/1 alone are not taken for booleans
    [['42', 'n/a'], 'string'], // every value must fit
    [['ada@example.com', 'not an email'], 'string'],
    [['+14155550100', '12'], 'string'],
    [[], 'string'],
    [['', '  '], 'string'],
  ])('%j is %s', (values, type) => {
    expect(inferType(values)).toBe(type);
  });

  it('ignores blanks', () => {
    expect(inferType(['', '17', ' ', '18'])).toBe('number');
  });

  it('takes national numbers for phones only when the header says phone', () => {
    expect(inferType(['(415) 555-0100', '415-555-0199'], 'Mobile Phone')).toBe('phone');
    expect(inferType(['(415) 555-0100', '415-555-0199'], 'reference')).toBe('string');
    expect(inferType(['4155550100', '4155550199'], 'amount')).toBe('number');
  });
});

describe('inferSchema', () => {
  it('infers each column, never required, with fill counts', () => {
    const s = inferSchema(
      ['name', 'phone', 'age'],
      [
        ['Ada', '+14155550100', '36'],
        ['Bob', '+14155550101', ''],
      ],
    );
    expect(s.fields).toEqual([
      { name: 'name', type: 'string' },
      { name: 'phone', type: 'phone' },
      { name: 'age', type: 'number' },
    ]);
    expect(s.columns.find((c) => c.name === 'age')).toMatchObject({ filled: 1, sampled: 2, example: '36' });
  });

  it('refuses blank and repeated header names', () => {
    expect(() => inferSchema(['a', ''], [])).toThrow(UsageError);
    expect(() => inferSchema(['a', 'b', 'a'], [])).toThrow(/names "a" twice/);
  });
});

describe('readCsvSample', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vap-csv-'));

  it('reads the header and only the sampled rows', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => `n${i},+1415555${String(1000 + i).slice(-4)}`);
    const file = join(dir, 'big.csv');
    writeFileSync(file, `\uFEFFname,phone\n${rows.join('\n')}\n`);
    const s = await readCsvSample(file, 10);
    expect(s.header).toEqual(['name', 'phone']);
    expect(s.rows).toHaveLength(10);
    expect(s.truncated).toBe(true);
  });

  it('reports a short file as complete', async () => {
    const file = join(dir, 'small.csv');
    writeFileSync(file, 'a,b\n1,2\n\n3,4\n');
    const s = await readCsvSample(file, 10);
    expect(s).toEqual({
      header: ['a', 'b'],
      rows: [
        ['1', '2'],
        ['3', '4'],
      ],
      truncated: false,
    });
  });

  it('refuses a file that is not UTF-8 (naming the byte), reads it with an encoding, and restores an errors file', async () => {
    const latin = join(dir, 'latin.csv');
    writeFileSync(latin, Buffer.from('name,ville\nJosé,Montréal\n', 'latin1'));
    await expect(readCsvSample(latin, 10)).rejects.toThrow(/not valid UTF-8: byte 0xE9 at line 2, column 4 \(data row 1\)/);
    expect(await readCsvSample(latin, 10, '--from-csv', 'windows-1252')).toEqual({ header: ['name', 'ville'], rows: [['José', 'Montréal']], truncated: false });
    const errors = join(dir, 'leads.errors.csv');
    writeFileSync(errors, "'=name,phone,row,field,error\n'-x,'+14155550100,1,phone,bad\n");
    expect((await readCsvSample(errors, 10)).rows).toEqual([['-x', '+14155550100', '1', 'phone', 'bad']]);
  });

  it('names a missing or empty file', async () => {
    await expect(readCsvSample(join(dir, 'nope.csv'), 10)).rejects.toThrow(/cannot read --from-csv .*no such file/);
    writeFileSync(join(dir, 'empty.csv'), '');
    await expect(readCsvSample(join(dir, 'empty.csv'), 10)).rejects.toThrow(/is empty/);
  });
});
