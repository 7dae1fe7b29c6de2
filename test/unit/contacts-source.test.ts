import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeFormula } from '../../src/contacts/csv-write.js';
import { csvLine } from '../../src/contacts/errors-file.js';
import { csvParseOptions, formatFromPath, InputError, openCsv, openJson, type RowSource } from '../../src/contacts/source.js';
// @ts-expect-error: a plain ES module without types
import { FLOOR_OPTIONS } from '../bench/csv-floor.mjs';

const dir = mkdtempSync(join(tmpdir(), 'vap-source-'));
let n = 0;
function file(content: string | Buffer, ext = 'csv'): string {
  const p = join(dir, `f${n++}.${ext}`);
  writeFileSync(p, content);
  return p;
}

async function all(src: RowSource, chunk = 3): Promise<unknown[]> {
  const out: unknown[] = [];
  for (;;) {
    const rows = await src.next(chunk);
    if (rows.length === 0) break;
    expect(rows.length).toBeLessThanOrEqual(chunk);
    out.push(...rows);
  }
  src.close();
  return out;
}

describe('CSV reader', () => {
  it('reads the header, then rows in chunks', async () => {
    const src = await openCsv(file('a,b\n1,2\n3,4\n5,6\n7,8\n'));
    expect(src.columns).toEqual(['a', 'b']);
    expect(await all(src)).toEqual([
      ['1', '2'],
      ['3', '4'],
      ['5', '6'],
      ['7', '8'],
    ]);
  });

  it('handles a BOM, CRLF line ends, quoted commas, quotes and newlines', async () => {
    const text = '\uFEFFname,note\r\n"Lovelace, Ada","line one\r\nline two"\r\n"say ""hi""",x\r\n';
    const src = await openCsv(file(text));
    expect(src.columns).toEqual(['name', 'note']);
    expect(await all(src)).toEqual([
      ['Lovelace, Ada', 'line one\r\nline two'],
      ['say "hi"', 'x'],
    ]);
  });

  it('takes another delimiter, skips blank lines and keeps ragged rows for the checker', async () => {
    const src = await openCsv(file('a;b\n1;2\n\n3\n4;5;6\n'), ';');
    expect(await all(src)).toEqual([['1', '2'], ['3'], ['4', '5', '6']]);
  });

  it('counts the rows parsed and the bytes that held them, the header apart', async () => {
    const content = `a,b\n${'1,2\n'.repeat(1000)}`;
    const src = await openCsv(file(content));
    await all(src, 500);
    expect(src.parsed()).toEqual({ rows: 1000, bytes: Buffer.byteLength(content), headerBytes: 4 });
  });

  it('an empty file has no header', async () => {
    await expect(openCsv(file(''))).rejects.toThrow(InputError);
  });

  it('a broken quote is an InputError with the line', async () => {
    const src = await openCsv(file('a,b\n1,2\n"unclosed,3\n4,5\n'));
    const err = await all(src).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/not valid CSV/);
  });

  it('a missing file is an InputError', async () => {
    await expect(openCsv(join(dir, 'nope.csv'))).rejects.toThrow(/no such file/);
  });

  it('round-trips any table written with the errors-file writer (property)', async () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\n', '\r\n', ' ', 'é', '😀', ';'), maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }).chain((w) => fc.array(fc.array(cell, { minLength: w, maxLength: w }), { minLength: 1, maxLength: 6 })),
        async (rows) => {
          const header = rows[0]!.map((_, i) => `c${i}`);
          const p = file([header, ...rows].map((r) => csvLine(r)).join(''));
          const src = await openCsv(p);
          const got = (await all(src)) as string[][];
          // Rows whose every cell is empty are blank lines only when there is one column.
          const want = rows.filter((r) => !(r.length === 1 && r[0] === ''));
          expect(got).toEqual(want.map((r) => r.map(escapeFormula)));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("restores the cells of vap's own errors file, escaped against formulas, when it is read again (property)", async () => {
    const cell = fc.string({ unit: fc.constantFrom('a', '=', '+', '-', '@', '\t', '\r', "'", ',', '"', '\n', ' '), maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(cell, cell), { minLength: 1, maxLength: 6 }), fc.tuple(cell, cell), async (rows, names) => {
        const header = [names[0] || 'a', `${names[1]}x`, 'row', 'field', 'error'];
        const body = rows.map(([a, b], i) => [a, b, String(i + 1), 'phone', '-bad @value']);
        const p = file([header, ...body].map((r) => csvLine(r)).join(''));
        const src = await openCsv(p);
        expect(src.columns).toEqual(header);
        const got = (await all(src)) as string[][];
        expect(got).toEqual(body.filter((r) => !(r.length === 1 && r[0] === '')));
      }),
      { numRuns: 150 },
    );
  });
});

describe('JSON reader', () => {
  it('streams the elements of an array; the columns are the first object keys', async () => {
    const src = await openJson(file(JSON.stringify([{ name: 'Ada', phone: '+1' }, { name: 'Bob', age: 3 }, 7]), 'json'));
    expect(src.columns).toEqual(['name', 'phone']);
    expect(await all(src, 2)).toEqual([{ name: 'Ada', phone: '+1' }, { name: 'Bob', age: 3 }, 7]);
  });

  it('an empty array has no rows', async () => {
    const src = await openJson(file('[]', 'json'));
    expect(src.columns).toEqual([]);
    expect(await all(src)).toEqual([]);
  });

  it('a top-level object is refused', async () => {
    const p = file('{"a":1}', 'json');
    const err = await openJson(p)
      .then(all)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/not a JSON array/);
  });

  it('invalid JSON is an InputError', async () => {
    const err = await openJson(file('[{"a":1},{"a":', 'json'))
      .then(all)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
  });
});

describe('benchmark floor', () => {
  it('parses with the options the importer uses', () => {
    expect(FLOOR_OPTIONS).toEqual(csvParseOptions(',', 'one')); // the generated file has LF line endings only
  });
});

describe('formatFromPath', () => {
  it.each([
    ['leads.csv', { format: 'csv' }],
    ['LEADS.CSV', { format: 'csv' }],
    ['x.tsv', { format: 'csv', delimiter: '\t' }],
    ['x.json', { format: 'json' }],
    ['x.xlsx', undefined],
  ])('%s', (p, want) => {
    expect(formatFromPath(p)).toEqual(want);
  });
});

describe('the worker bin/vap.js starts at launch', () => {
  it('is started with the options the pool would use', async () => {
    const { WORKER_KIND, WORKER_LIMITS } = await import('../../src/contacts/validate-worker.js');
    const bin = readFileSync(new URL('../../bin/vap.js', import.meta.url), 'utf8');
    expect(bin).toContain(`workerData: { kind: '${WORKER_KIND}' }`);
    expect(bin).toContain(`resourceLimits: { maxYoungGenerationSizeMb: ${WORKER_LIMITS.maxYoungGenerationSizeMb} }`);
    expect(Object.keys(WORKER_LIMITS)).toEqual(['maxYoungGenerationSizeMb']);
    expect(bin).toContain("'../dist/contacts-worker.js'");
  });
});
