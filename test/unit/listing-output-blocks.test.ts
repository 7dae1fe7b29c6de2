// Listings are written in blocks: the same bytes as one write per row, in far fewer writes,
// rows still out as soon as the producer waits for more, back-pressure kept (a slow reader
// never makes rows pile up), and a failed write failing the listing.
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BLOCK_SIZE, BlockWriter } from '../../src/ui/block-writer.js';
import { Output } from '../../src/ui/output.js';
import type { Column } from '../../src/ui/format.js';
import { OutputError } from '../../src/errors.js';

interface Row {
  id: string;
  name: string;
  n: number;
}
const columns: Column<Row>[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'name', value: (r) => r.name },
  { header: 'n', value: (r) => r.n },
];
const rows = (count: number): Row[] => Array.from({ length: count }, (_, i) => ({ id: `row_${i}`, name: `Name ${i}\twith a tab`, n: i }));

/** A stream that keeps every chunk written to it, as written. */
function recorder(opts: { highWaterMark?: number; delayMs?: number } = {}) {
  const chunks: string[] = [];
  const stream = new Writable({
    highWaterMark: opts.highWaterMark ?? 16384,
    write(chunk, _enc, cb) {
      chunks.push(chunk.toString());
      if (opts.delayMs) setTimeout(cb, opts.delayMs);
      else cb();
    },
  });
  return { stream, chunks, text: () => chunks.join('') };
}

async function* paged<T>(items: T[], pageSize: number, delayMs = 1): AsyncGenerator<T> {
  for (let i = 0; i < items.length; i += pageSize) {
    await new Promise((r) => setTimeout(r, delayMs));
    yield* items.slice(i, i + pageSize);
  }
}

function output(stdout: Writable, format: 'ndjson' | 'tsv' | 'json', quiet = false) {
  return new Output(stdout, new PassThrough(), { format, quiet, color: false, stdoutIsTTY: false });
}

describe('a listing written in blocks', () => {
  it.each(['ndjson', 'tsv', 'json'] as const)('-o %s: the bytes of one write per row, in blocks of about 64 KB', async (format) => {
    const items = rows(20_000);
    const rec = recorder();
    await output(rec.stream, format).list(items, { columns });
    const expected =
      format === 'ndjson'
        ? items.map((r) => `${JSON.stringify(r)}\n`).join('')
        : format === 'tsv'
          ? items.map((r) => `${r.id}\t${r.name.replace('\t', '\\t')}\t${r.n}\n`).join('')
          : `[\n${items.map((r) => JSON.stringify(r, null, 2).replace(/^/gm, '  ')).join(',\n')}\n]\n`;
    expect(rec.text()).toBe(expected);
    expect(rec.chunks.length).toBeLessThanOrEqual(Math.ceil(expected.length / BLOCK_SIZE) + 1);
    expect(rec.chunks.slice(0, -1).every((c) => c.length >= BLOCK_SIZE)).toBe(true);
  });

  it('-q: the ids, in blocks', async () => {
    const items = rows(5000);
    const rec = recorder();
    await output(rec.stream, 'tsv', true).list(items, { columns });
    expect(rec.text()).toBe(items.map((r) => `${r.id}\n`).join(''));
    expect(rec.chunks.length).toBe(1);
  });

  it('writes what it holds as soon as the producer waits: each page is out before the next is read', async () => {
    const rec = recorder();
    const seenBeforePage: number[] = [];
    async function* pages(): AsyncGenerator<Row> {
      const all = rows(30);
      for (let i = 0; i < all.length; i += 10) {
        await new Promise((r) => setTimeout(r, 5));
        seenBeforePage.push(rec.text().split('\n').length - 1);
        yield* all.slice(i, i + 10);
      }
    }
    await output(rec.stream, 'ndjson').list(pages(), { columns });
    expect(seenBeforePage).toEqual([0, 10, 20]);
    expect(rec.chunks).toHaveLength(3);
  });

  it('waits for a slow reader (back-pressure), loses nothing and keeps the order', async () => {
    const items = rows(40_000);
    const rec = recorder({ highWaterMark: 1024, delayMs: 2 });
    let maxBuffered = 0;
    const watch = setInterval(() => (maxBuffered = Math.max(maxBuffered, rec.stream.writableLength)), 1);
    await output(rec.stream, 'ndjson').list(paged(items, 1000, 0), { columns });
    clearInterval(watch);
    expect(rec.text()).toBe(items.map((r) => `${JSON.stringify(r)}\n`).join(''));
    // At most a block or two held by the stream at any time: the listing waited for it to drain.
    expect(maxBuffered).toBeLessThanOrEqual(3 * BLOCK_SIZE);
  });

  it('rows read before a page fails are written, then the error is the listing’s', async () => {
    const rec = recorder();
    async function* failing(): AsyncGenerator<Row> {
      yield* rows(3);
      await new Promise((r) => setTimeout(r, 1));
      throw new Error('page 2 could not be read');
    }
    await expect(output(rec.stream, 'ndjson').list(failing(), { columns })).rejects.toThrow('page 2 could not be read');
    expect(rec.text().split('\n')).toHaveLength(4);
  });

  it('a failed write fails the listing with one OutputError; a closed pipe keeps its own code', async () => {
    const broken = (code: string) =>
      new Writable({
        write(_c, _e, cb) {
          cb(Object.assign(new Error(code), { code }));
        },
      }).on('error', () => undefined);
    await expect(output(broken('ENOSPC'), 'ndjson').list(paged(rows(10), 5), { columns })).rejects.toBeInstanceOf(OutputError);
    await expect(output(broken('EPIPE'), 'ndjson').list(paged(rows(10), 5), { columns })).rejects.toMatchObject({ code: 'EPIPE' });
  });
});

describe('BlockWriter', () => {
  it('gives the caller nothing to wait for while the stream takes the text', () => {
    const rec = recorder();
    const w = new BlockWriter(rec.stream);
    expect(w.write('a\n')).toBeUndefined();
    expect(rec.chunks).toEqual([]);
  });

  it('an abort while it waits for the stream to drain ends the wait with the signal’s reason', async () => {
    const stuck = new Writable({ highWaterMark: 1, write: () => undefined });
    const controller = new AbortController();
    const w = new BlockWriter(stuck, { signal: controller.signal, blockSize: 4 });
    const wait = w.write('12345');
    expect(wait).toBeInstanceOf(Promise);
    controller.abort(new Error('interrupted'));
    await expect(wait).rejects.toThrow('interrupted');
  });
});
