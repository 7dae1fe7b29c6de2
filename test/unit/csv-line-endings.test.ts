import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { checkUtf8, lineAndColumn, LineEndingScan } from '../../src/contacts/encoding.js';
import { readCsvSample } from '../../src/contacts/schema-infer.js';
import { csvParseOptions, openCsv, type RowSource } from '../../src/contacts/source.js';

// CRLF, LF and CR each end a CSV record, wherever they are in the file (csv-parse alone takes
// the first line's ending and no other, which merged rows); in a quoted field they are data.

const dir = mkdtempSync(join(tmpdir(), 'vap-line-endings-'));
let n = 0;
function file(content: string | Buffer): string {
  const p = join(dir, `f${n++}.csv`);
  writeFileSync(p, content);
  return p;
}

async function all(src: RowSource): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let rows = await src.next(1000); rows.length; rows = await src.next(1000)) out.push(...rows);
  src.close();
  return out;
}

const ENDINGS = ['\r\n', '\n', '\r'] as const;

describe('mixed line endings', () => {
  it('every row is read by the importer and by --from-csv, whichever ending comes first', async () => {
    for (const first of ENDINGS) {
      const rows = [
        ['Ada', '1'],
        ['Grace', '2'],
        ['Alan', '3'],
        ['Edsger', '4'],
        ['Barbara', '5'],
      ];
      const text = `name,n${first}${rows.map((r, i) => r.join(',') + ENDINGS[i % 3]).join('')}`;
      const p = file(text);
      const src = await openCsv(p);
      expect(src.columns).toEqual(['name', 'n']);
      expect(await all(src)).toEqual(rows);
      expect(await readCsvSample(p, 100)).toEqual({ header: ['name', 'n'], rows, truncated: false });
    }
  });

  it('line breaks inside quotes stay data: a CRLF file with LF in its cells (as Excel writes them)', async () => {
    const src = await openCsv(file('name,note\r\nAda,"line one\nline two"\r\nGrace,"a\rb\r\nc"\r\n'));
    expect(await all(src)).toEqual([
      ['Ada', 'line one\nline two'],
      ['Grace', 'a\rb\r\nc'],
    ]);
  });

  it('any mix, with CRLF split across the 64 KiB reads, reads every row (property)', async () => {
    const cell = fc.stringMatching(/^[a-z0-9 ]{0,40}$/);
    const row = fc.tuple(cell, cell, cell);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(row, fc.constantFrom(...ENDINGS)), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 58_000, max: 65_600 }),
        async (rows, pad) => {
          // A padding row moves the later line endings across the read boundary.
          const all3 = [['pad', 'x'.repeat(pad), ''] as [string, string, string], ...rows.map(([r]) => r)];
          const endings = ['\n', ...rows.map(([, e]) => e)];
          const text = `a,b,c\r\n${all3.map((r, i) => `${r.join(',')}${endings[i]}`).join('')}`;
          const got = await all(await openCsv(file(text)));
          expect(got).toEqual(all3);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a bad byte is placed on the line csv-parse counts: CRLF, LF and CR each end one', async () => {
    const head = 'h\r\na\nb\rc\r\nd,';
    const p = file(Buffer.concat([Buffer.from(head), Buffer.from([0xff])]));
    expect(await lineAndColumn(p, Buffer.byteLength(head))).toEqual({ line: 5, column: 3 });
    // A CRLF split across reads is one line break.
    const big = `${'x'.repeat(1024 * 1024 - 1)}\r\ny`;
    const q = file(Buffer.concat([Buffer.from(big), Buffer.from([0xff])]));
    expect(await lineAndColumn(q, Buffer.byteLength(big))).toEqual({ line: 2, column: 2 });
  });

  it('the UTF-8 check tells one kind of line ending from a mix', async () => {
    expect(await checkUtf8(file('a,b\n1,2\n'))).toBe('one');
    expect(await checkUtf8(file('a,b\r\n1,2\r\n'))).toBe('one');
    expect(await checkUtf8(file('a,b\r1,2\r'))).toBe('one');
    expect(await checkUtf8(file('a,b'))).toBe('one');
    expect(await checkUtf8(file('a,b\r\n1,2\n'))).toBe('mixed');
    expect(await checkUtf8(file('a,b\n1,2\r'))).toBe('mixed');
    expect(await checkUtf8(file('a,b\r\n1,"x\ny"\r\n'))).toBe('mixed');
    // A CRLF split across the check's 1 MiB reads is one CRLF.
    expect(await checkUtf8(file(`${'x'.repeat(1024 * 1024 - 1)}\r\ny\r\n`))).toBe('one');
    expect(await checkUtf8(file(`${'x'.repeat(1024 * 1024 - 1)}\r\ny\n`))).toBe('mixed');
  });

  it("when the scan says one kind, csv-parse's own discovery reads exactly what all three endings read (property)", () => {
    const piece = fc.oneof(fc.constantFrom('\r\n', '\n', '\r', ',', '"', '""', ' '), fc.stringMatching(/^[a-z]{1,5}$/));
    fc.assert(
      fc.property(
        fc.constantFrom(...ENDINGS),
        fc.array(piece, { maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 1, maxLength: 8 }),
        (first, pieces, cuts) => {
          const bytes = Buffer.from(`h1,h2${first}${pieces.join('')}`);
          const scan = new LineEndingScan();
          // Fed in chunks of random sizes, as the file is read.
          for (let at = 0, k = 0; at < bytes.length; k++) {
            const len = cuts[k % cuts.length]!;
            scan.add(bytes.subarray(at, at + len));
            at += len;
          }
          const kinds = new Set(bytes.toString('latin1').match(/\r\n|\n|\r/g) ?? []);
          expect(scan.result).toBe(kinds.size > 1 ? 'mixed' : 'one');
          if (scan.result !== 'one') return;
          const read = (o: object) => {
            try {
              return parse(bytes, o);
            } catch (err) {
              return (err as { code?: string }).code;
            }
          };
          expect(read(csvParseOptions(',', 'one'))).toEqual(read(csvParseOptions(',', 'mixed')));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
