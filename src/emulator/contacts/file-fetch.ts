import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse as csvParse } from 'csv-parse';
import StreamArray from 'stream-json/streamers/StreamArray.js';
import { Agent, request } from 'undici';
import { checkUrl, guardedLookup, UrlRefused } from './url-guard.js';

/** A critical error of a file import: the job fails with this message. */
export class FileImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileImportError';
  }
}

export interface FetchLimits {
  maxBytes: number;
  maxRows: number;
  timeoutMs: number;
  maxRedirects: number;
}

/**
 * Fetches contact files for import jobs: every hop and connection checked by the URL guard (so
 * redirects are followed by hand), a size cap and a timeout, and parsing as the bytes arrive, so
 * a large file neither sits whole in memory nor blocks the event loop.
 */
export class FileFetcher {
  private readonly agent: Agent;

  constructor(
    private readonly allowLoopback: boolean,
    private readonly limits: FetchLimits,
  ) {
    this.agent = new Agent({
      connect: { lookup: guardedLookup(allowLoopback), timeout: Math.min(10_000, limits.timeoutMs) },
      headersTimeout: limits.timeoutMs,
      bodyTimeout: limits.timeoutMs,
    });
  }

  /** The rows of the file: CSV records keyed by header names, or the elements of a JSON array. */
  async fetchRows(fileUrl: string, format: 'csv' | 'json', signal: AbortSignal): Promise<unknown[]> {
    const timeout = AbortSignal.timeout(this.limits.timeoutMs);
    const both = AbortSignal.any([signal, timeout]);
    try {
      return await this.fetchAndParse(fileUrl, format, both);
    } catch (err) {
      if (signal.aborted) throw err;
      if (timeout.aborted) throw new FileImportError(`the file was not received within ${this.limits.timeoutMs / 1000} s`);
      if (err instanceof FileImportError) throw err;
      if (err instanceof UrlRefused) throw new FileImportError(`the file URL is not allowed: ${err.message}`);
      throw new FileImportError(`could not fetch the file: ${describe(err)}`);
    }
  }

  private async fetchAndParse(fileUrl: string, format: 'csv' | 'json', signal: AbortSignal): Promise<unknown[]> {
    let url = fileUrl;
    for (let hop = 0; ; hop++) {
      await checkUrl(url, { allowLoopback: this.allowLoopback });
      const res = await request(url, {
        method: 'GET',
        dispatcher: this.agent,
        signal,
        headers: { accept: format === 'csv' ? 'text/csv, text/plain;q=0.9, */*;q=0.5' : 'application/json, */*;q=0.5', 'user-agent': 'vap-emulator' },
      });
      if (res.statusCode >= 300 && res.statusCode < 400 && res.statusCode !== 304) {
        await res.body.dump();
        const location = res.headers.location;
        if (typeof location !== 'string' || !location) throw new FileImportError(`HTTP ${res.statusCode} without a Location header`);
        if (hop >= this.limits.maxRedirects) throw new FileImportError(`more than ${this.limits.maxRedirects} redirects`);
        url = new URL(location, url).toString();
        continue;
      }
      if (res.statusCode < 200 || res.statusCode >= 300) {
        await res.body.dump();
        throw new FileImportError(`the file server answered HTTP ${res.statusCode}`);
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > this.limits.maxBytes) {
        await res.body.dump().catch(() => undefined);
        throw new FileImportError(`the file is ${declared} bytes; at most ${this.limits.maxBytes} are accepted`);
      }
      return await this.parse(res.body, format);
    }
  }

  private async parse(body: NodeJS.ReadableStream, format: 'csv' | 'json'): Promise<unknown[]> {
    const { maxBytes, maxRows } = this.limits;
    let bytes = 0;
    const limiter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        bytes += chunk.length;
        if (bytes > maxBytes) cb(new FileImportError(`the file is larger than ${maxBytes} bytes`));
        else cb(null, chunk);
      },
    });
    const rows: unknown[] = [];
    const collect = (pick: (item: unknown) => unknown) =>
      new Writable({
        objectMode: true,
        write(item: unknown, _enc, cb) {
          if (rows.length >= maxRows) return cb(new FileImportError(`the file holds more than ${maxRows} rows`));
          rows.push(pick(item));
          cb();
        },
      });
    try {
      if (format === 'csv') {
        const parser = csvParse({
          columns: (header: string[]) => header.map((h) => String(h).trim()),
          bom: true,
          skip_empty_lines: true,
          relax_column_count: true,
          max_record_size: 1024 * 1024,
        });
        await pipeline(
          body,
          limiter,
          parser,
          collect((r) => r),
        );
      } else {
        await pipeline(
          body,
          limiter,
          StreamArray.withParser(),
          collect((item) => (item as { value: unknown }).value),
        );
      }
    } catch (err) {
      if (err instanceof FileImportError) throw err;
      const e = err as Error & { code?: string };
      if (e.name === 'AbortError' || e.code === 'UND_ERR_ABORTED') throw err;
      if (format === 'json') {
        throw new FileImportError(
          /Top-level object should be an array/.test(e.message)
            ? 'the JSON file is not an array of contact objects'
            : `the file is not valid JSON: ${e.message}`,
        );
      }
      if (typeof e.code === 'string' && e.code.startsWith('CSV_')) throw new FileImportError(`the file is not valid CSV: ${e.message}`);
      throw err;
    }
    if (bytes === 0) throw new FileImportError('the file is empty');
    return rows;
  }

  async close(): Promise<void> {
    await this.agent.destroy().catch(() => undefined);
  }
}

function describe(err: unknown): string {
  const e = err as Error & { code?: string; cause?: Error & { code?: string } };
  const inner = e.cause ?? e;
  const msg = inner.message || String(inner);
  return inner.code && !msg.includes(inner.code) ? `${msg} (${inner.code})` : msg;
}
