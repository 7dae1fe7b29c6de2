import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { readCsvSample } from '../../src/contacts/schema-infer.js';
import { readSchemaFile } from '../../src/contacts/schema-input.js';
import { CSV_MAX_COLUMNS, CSV_MAX_RECORD_BYTES, csvParseOptions, InputError, openCsv } from '../../src/contacts/source.js';

// One set of CSV limits for every reader: the importer's (openCsv) and --from-csv's (readCsvSample).

const dir = mkdtempSync(join(tmpdir(), 'vap-csv-limits-'));
let n = 0;
function file(content: string | Buffer): string {
  const p = join(dir, `f${n++}.csv`);
  writeFileSync(p, content);
  return p;
}

const header = (cols: number) => Array.from({ length: cols }, (_, i) => `c${i}`).join(',');

describe('CSV limits', () => {
  it('are the options of every reader', () => {
    expect(csvParseOptions(',')).toMatchObject({ max_record_size: CSV_MAX_RECORD_BYTES, record_delimiter: ['\r\n', '\n', '\r'] });
    expect(csvParseOptions(',', 'one')).toMatchObject({ max_record_size: CSV_MAX_RECORD_BYTES });
    expect(csvParseOptions(',', 'one')).not.toHaveProperty('record_delimiter');
    expect(CSV_MAX_RECORD_BYTES).toBe(4 * 1024 * 1024);
    expect(CSV_MAX_COLUMNS).toBe(16_384);
  });

  it('a header wider than the limit: the importer and --from-csv refuse it the same way', async () => {
    const p = file(`${header(CSV_MAX_COLUMNS + 1)}\n${header(3)}\n`);
    const err = await openCsv(p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toBe('the header has 16,385 columns, more than the 16,384 vap reads');
    expect((err as InputError).hint).toMatch(/keep only the columns that hold contact fields/);
    const usage = await readCsvSample(p, 10).catch((e: unknown) => e);
    expect(usage).toBeInstanceOf(UsageError);
    expect((usage as UsageError).message).toBe(`--from-csv "${p}": ${(err as Error).message}`);
    expect((usage as UsageError).hint).toBe((err as InputError).hint);
    // At the limit, it is read.
    expect((await readCsvSample(file(`${header(CSV_MAX_COLUMNS)}\n`), 10)).header).toHaveLength(CSV_MAX_COLUMNS);
  });

  it('a record over 4 MiB: the importer and --from-csv name the row, the line and the fix', async () => {
    const big = Buffer.concat([Buffer.from('name,note\nAda,"'), Buffer.alloc(CSV_MAX_RECORD_BYTES + 10, 0x61), Buffer.from('"\n')]);
    const p = file(big);
    const src = await openCsv(p);
    const err = await src.next(1000).catch((e: unknown) => e);
    src.close();
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toBe('data row 1 is longer than 4 MiB, the most vap reads as one CSV row');
    expect((err as InputError).line).toBe(2);
    const usage = await readCsvSample(p, 10).catch((e: unknown) => e);
    expect(usage).toBeInstanceOf(UsageError);
    expect((usage as UsageError).message).toBe(`--from-csv "${p}" (near line 2): data row 1 is longer than 4 MiB, the most vap reads as one CSV row`);
    expect((usage as UsageError).hint).toMatch(/quote never closed/);
  });

  it('a schema file, the other source of a schema, is held to the same width, and refused over 4 MiB before it is read', async () => {
    const fields = (k: number) => JSON.stringify({ fields: Array.from({ length: k }, (_, i) => ({ name: `f${i}`, type: 'string' })) });
    expect(await readSchemaFile(file(fields(CSV_MAX_COLUMNS)))).toHaveLength(CSV_MAX_COLUMNS);
    const wide = file(fields(CSV_MAX_COLUMNS + 1));
    await expect(readSchemaFile(wide)).rejects.toThrow(`--schema-file "${wide}" has 16,385 fields, more than the 16,384 vap reads`);
    const huge = file(Buffer.alloc(CSV_MAX_RECORD_BYTES + 1, 0x20));
    const err = await readSchemaFile(huge).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(`--schema-file "${huge}" is larger than 4 MiB, the most vap reads as a schema file`);
  });
});
