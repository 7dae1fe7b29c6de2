import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RowEstimate } from '../../src/contacts/progress.js';
import { openCsv, openJson, type RowSource } from '../../src/contacts/source.js';

// The import's progress estimates the rows of the file from what has been parsed of it
// (src/contacts/progress.ts, RowEstimate): refined at every read. The importer counts them once
// the file is read to its end.

const dir = mkdtempSync(join(tmpdir(), 'vap-estimate-'));
const ROWS = 20_000;
const row = (i: number) => `Lead ${i + 1},(415) ${String(200 + Math.floor(i / 10_000)).padStart(3, '0')}-${String(i % 10_000).padStart(4, '0')}`;

/** The estimates made after each chunk of 1,000 rows taken, until the file ends. */
async function estimates(src: RowSource, path: string): Promise<number[]> {
  const estimate = new RowEstimate(statSync(path).size);
  const out: number[] = [];
  for (;;) {
    const rows = await src.next(1000);
    if (!rows.length) break;
    out.push(estimate.now(src.parsed()));
  }
  src.close();
  return out;
}

/** Percentage points by which rows done out of the estimate could exceed them out of the true count, with every row taken done. */
const ahead = (seen: number[]) => seen.map((e, i) => (100 * (i + 1) * 1000) / e - (100 * (i + 1) * 1000) / ROWS);

describe('the estimate of the rows in the file', () => {
  it('CSV: refined at every read, never fewer rows than there are when rows grow longer (the demo file), and exact at the end', async () => {
    const path = join(dir, 'leads.csv');
    writeFileSync(path, `name,phone\n${Array.from({ length: ROWS }, (_, i) => row(i)).join('\n')}\n`);
    const seen = await estimates(await openCsv(path), path);
    expect(seen.length).toBe(ROWS / 1000);
    // Rows "Lead 1" to "Lead 20000": the rows read first are shorter than the average, so the
    // estimate starts above the count (by 3.5%) and comes down to it as the file is read.
    for (const e of seen) expect(e).toBeGreaterThanOrEqual(ROWS);
    expect(seen[0]! / ROWS).toBeLessThan(1.05);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    expect(seen.at(-1)).toBe(ROWS);
  });

  it('CSV: within 1% from the first read on when rows are alike in length', async () => {
    const path = join(dir, 'alike.csv');
    writeFileSync(
      path,
      `name,phone\n${Array.from({ length: ROWS }, (_, i) => `Lead ${String(i).padStart(5, '0')},+1415555${String(i % 10_000).padStart(4, '0')}`).join('\n')}\n`,
    );
    const seen = await estimates(await openCsv(path), path);
    for (const e of seen) expect(Math.abs(e - ROWS) / ROWS).toBeLessThanOrEqual(0.01);
  });

  it('CSV in another encoding: the bytes are the file’s, not the decoded ones', async () => {
    const path = join(dir, 'latin1.csv');
    writeFileSync(
      path,
      Buffer.from(
        `name,phone\n${Array.from({ length: ROWS }, (_, i) => `Jos\xe9 Garc\xeda ${i},+1415555${String(i % 10_000).padStart(4, '0')}`).join('\n')}\n`,
        'latin1',
      ),
    );
    const seen = await estimates(await openCsv(path, ',', 'latin1'), path);
    // Each row holds two characters of two UTF-8 bytes and one latin1 byte each: counted in
    // decoded bytes, the estimate would be 7% short. The rows grow longer, so it starts above.
    for (const e of seen) expect(e).toBeGreaterThanOrEqual(ROWS);
    expect(seen[0]! / ROWS).toBeLessThan(1.05);
    expect(seen.at(-1)).toBe(ROWS);
  });

  it('JSON: the bytes handed to the parser run up to two reads (2 × 64 KiB) ahead of its items; the percentage runs ahead by no more than that share of the file', async () => {
    const path = join(dir, 'leads.json');
    writeFileSync(
      path,
      JSON.stringify(Array.from({ length: ROWS }, (_, i) => ({ name: `Lead ${i + 1}`, phone: `+1415555${String(i % 10_000).padStart(4, '0')}` }))),
    );
    const seen = await estimates(await openJson(path), path);
    const slack = (100 * 2 * 65_536) / statSync(path).size;
    for (const points of ahead(seen)) expect(points).toBeLessThanOrEqual(slack);
  });
});
