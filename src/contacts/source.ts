import { createReadStream, type ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { unescapeFormula } from './csv-write.js';

/**
 * Streaming readers of the input file. Rows come out in chunks (one promise per
 * chunk, not per row), and the file is read only a bounded distance ahead of the
 * chunks taken, so memory stays flat whatever the file size.
 */

export type InputFormat = 'csv' | 'json';

/** The file cannot be read as the format says (bad quoting, not a JSON array, a limit passed, ...). */
export class InputError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'InputError';
  }
}

export interface ParsedSoFar {
  rows: number;
  bytes: number;
  headerBytes: number;
  /** The bytes may run ahead of the rows (JSON): an estimate from them may count too few rows. */
  ahead?: boolean;
}

export interface RowSource {
  readonly format: InputFormat;
  /** CSV: the header row. JSON: the keys of the first object (or none for an empty array). */
  readonly columns: string[];
  /** How far parsing has got, for the progress's estimate of the file's rows: data rows parsed, the bytes that held them (the header's included). */
  parsed(): ParsedSoFar;
  /** Up to `max` rows; an empty array at the end. CSV rows are string arrays; JSON rows are the array's elements. */
  next(max: number): Promise<unknown[]>;
  close(): void;
}

/**
 * The limits of every CSV file vap reads: a record of at most CSV_MAX_RECORD_BYTES, so a quote
 * never closed is refused instead of read whole into memory, and a header of at most
 * CSV_MAX_COLUMNS (Excel's limit), checked before its names are used.
 */
export const CSV_MAX_RECORD_BYTES = 4 * 1024 * 1024;
export const CSV_MAX_COLUMNS = 16_384;

export type { LineEndings } from './encoding.js';
import type { LineEndings } from './encoding.js';
const RECORD_DELIMITERS: readonly string[] = ['\r\n', '\n', '\r'];

/** The csv-parse options of every CSV file vap reads (the importer, --from-csv, and the benchmark's floor). */
export function csvParseOptions(delimiter: string, lineEndings: LineEndings = 'mixed') {
  return {
    bom: true,
    delimiter,
    ...(lineEndings === 'mixed' ? { record_delimiter: [...RECORD_DELIMITERS] as string[] } : {}),
    // A row with another column count is reported as a bad row instead of ending the import.
    relax_column_count: true,
    skip_empty_lines: true,
    // One field or record larger than this is surely a broken quote, not data.
    max_record_size: CSV_MAX_RECORD_BYTES,
  } as const;
}

const MIB = 1024 * 1024;

/** A record past CSV_MAX_RECORD_BYTES, from csv-parse's CSV_MAX_RECORD_SIZE (records: those complete before it, the header included). */
function recordTooLarge(e: { records?: number; lines?: number }): InputError {
  const record = (e.records ?? 0) + 1;
  const which = record === 1 ? 'the header row' : `data row ${record - 1}`;
  return new InputError(
    `${which} is longer than ${CSV_MAX_RECORD_BYTES / MIB} MiB, the most vap reads as one CSV row`,
    e.lines,
    'a row that long is a quote never closed or a file without line breaks: check the quoting before that line, and that the file is CSV with one row per line',
  );
}

/** Refuses a header of more than CSV_MAX_COLUMNS columns (the same check for every CSV reader). */
export function checkHeaderWidth(header: readonly unknown[]): void {
  if (header.length <= CSV_MAX_COLUMNS) return;
  throw new InputError(
    `the header has ${header.length.toLocaleString('en-US')} columns, more than the ${CSV_MAX_COLUMNS.toLocaleString('en-US')} vap reads`,
    undefined,
    'keep only the columns that hold contact fields; a header that wide is usually a file without line breaks between its rows',
  );
}

/** Bytes read at a time: csv-parse turns each read into records at once, so this also bounds the records parsed ahead. */
const HIGH_WATER_MARK = 64 * 1024;
/** Items parsed ahead of what the importer has taken (one chunk of rows). */
const READ_AHEAD = 1000;

/**
 * A readable in object mode that flows into a buffer of up to `highWater` items and pauses there,
 * so the file is parsed a little ahead of what is taken (also while the schema is fetched) and
 * never further: memory stays flat. Pulling items one by one with `read()` cost more.
 */
class ChunkReader {
  /** Items the stream has handed over so far (taken or buffered). */
  received = 0;
  private buffer: unknown[] = [];
  private ended = false;
  private paused = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly stream: Readable,
    private readonly mapError: (err: Error) => Error,
    private readonly highWater = READ_AHEAD,
  ) {
    const wake = () => {
      const w = this.wake;
      this.wake = undefined;
      w?.();
    };
    stream.on('data', (item: unknown) => {
      this.received++;
      this.buffer.push(item);
      if (this.buffer.length >= this.highWater && !this.paused) {
        this.paused = true;
        stream.pause();
      }
      if (this.wake) wake();
    });
    stream.on('end', () => {
      this.ended = true;
      wake();
    });
    stream.on('error', (err) => {
      this.error = this.mapError(err);
      wake();
    });
  }

  async next(max: number): Promise<unknown[]> {
    for (;;) {
      if (this.error) throw this.error;
      const have = this.buffer.length;
      if (have >= max || this.ended) {
        let out: unknown[];
        if (have <= max) {
          out = this.buffer;
          this.buffer = [];
        } else {
          out = this.buffer.slice(0, max);
          this.buffer = this.buffer.slice(max);
        }
        if (this.paused && this.buffer.length < this.highWater) {
          this.paused = false;
          this.stream.resume();
        }
        return out;
      }
      if (this.paused) {
        this.paused = false;
        this.stream.resume();
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** The first item, or undefined for an empty stream. */
  async first(): Promise<unknown> {
    const [item] = await this.next(1);
    return item;
  }
}

/** csv-parse's errors (CsvError; codes CSV_… and INVALID_OPENING_QUOTE). */
export function isCsvParseError(err: unknown): boolean {
  const e = err as (Error & { code?: unknown }) | null;
  return (
    Boolean(e) &&
    typeof e!.code === 'string' &&
    (e!.constructor?.name === 'CsvError' || (e!.code as string).startsWith('CSV_') || e!.code === 'INVALID_OPENING_QUOTE')
  );
}

/** A CSV reader's error as an InputError (csv-parse's own, a limit, a file error); others as they are. */
export function csvError(err: Error): Error {
  const e = err as Error & { code?: string; lines?: number; records?: number };
  if (e.code === 'CSV_MAX_RECORD_SIZE') return recordTooLarge(e);
  if (isCsvParseError(e)) {
    const msg = e.message.replace(/^Invalid Record Length: /, '');
    return new InputError(`not valid CSV: ${msg}`, e.lines);
  }
  return fileError(err);
}

function fileError(err: Error): Error {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return new InputError('no such file');
  if (e.code === 'EISDIR') return new InputError('it is a directory, not a file');
  if (e.code === 'EACCES' || e.code === 'EPERM') return new InputError('permission denied');
  if (e.code && e.syscall) return new InputError(`${e.message}`);
  return err;
}

/** Whether a CSV header is that of vap's errors file: its last columns are `row`, `field`, `error`. */
export function isErrorsFileHeader(header: readonly string[]): boolean {
  const n = header.length;
  return n >= 3 && header[n - 3] === 'row' && header[n - 2] === 'field' && header[n - 1] === 'error';
}

/**
 * The file's bytes as UTF-8: as they are, or decoded from `encoding` (encoding.ts); and a count
 * of those bytes turned into the file's (decoding changes the length: read over decoded so far).
 */
async function utf8Bytes(file: ReadStream, encoding: string): Promise<{ bytes: Readable; fileBytes: (utf8: number) => number }> {
  if (encoding === 'utf-8') return { bytes: file, fileBytes: (n) => n };
  const { decodingStream } = await import('./encoding.js');
  const decoded = decodingStream(encoding);
  file.on('error', (err) => decoded.destroy(err));
  let out = 0;
  decoded.on('data', (chunk: Buffer) => (out += chunk.length));
  return { bytes: file.pipe(decoded), fileBytes: (n) => (out > 0 ? Math.round((n * file.bytesRead) / out) : n) };
}

export async function openCsv(path: string, delimiter = ',', encoding = 'utf-8', lineEndings: LineEndings = 'mixed'): Promise<RowSource> {
  const { parse } = await import('csv-parse');
  const file: ReadStream = createReadStream(path, { highWaterMark: HIGH_WATER_MARK });
  const parser = parse(csvParseOptions(delimiter, lineEndings));
  const { bytes, fileBytes } = await utf8Bytes(file, encoding);
  bytes.on('error', (err) => parser.destroy(err));
  bytes.pipe(parser);
  const reader = new ChunkReader(parser, csvError);
  const header = (await reader.first()) as string[] | undefined;
  if (!header) {
    file.destroy();
    throw new InputError('the file is empty: a CSV file needs a header row of column names');
  }
  try {
    checkHeaderWidth(header);
  } catch (err) {
    file.destroy();
    parser.destroy();
    throw err;
  }
  // vap's own errors file, imported again after a fix: its cells were escaped against
  // formulas (csv-write.ts); the original values are restored, so the round trip loses nothing.
  const restore = isErrorsFileHeader(header);
  // The header's bytes as written (its quoting aside): what the rows' average leaves out.
  const headerBytes = fileBytes(Buffer.byteLength(header.join(delimiter)) + 1);
  return {
    format: 'csv',
    columns: header.map((h) => (restore ? unescapeFormula(String(h)) : String(h))),
    // csv-parse's count of records (the header's included) and of the bytes up to the end of the last one.
    parsed: () => ({ rows: Math.max(0, parser.info.records - 1), bytes: fileBytes(parser.info.bytes), headerBytes }),
    next: restore ? async (max) => ((await reader.next(max)) as string[][]).map((row) => row.map(unescapeFormula)) : (max) => reader.next(max),
    close: () => {
      file.destroy();
      parser.destroy();
    },
  };
}

export async function openJson(path: string, encoding = 'utf-8'): Promise<RowSource> {
  const [{ default: StreamArray }, { default: Parser }] = await Promise.all([import('stream-json/streamers/StreamArray.js'), import('stream-json/Parser.js')]);
  const file: ReadStream = createReadStream(path, { highWaterMark: HIGH_WATER_MARK });
  const parser = new Parser();
  const array = StreamArray.make();
  const mapError = (err: Error): Error => {
    if (/Top-level object should be an array/.test(err.message)) return new InputError('not a JSON array of contact objects');
    if ((err as NodeJS.ErrnoException).syscall) return fileError(err);
    return new InputError(`not valid JSON: ${err.message}`);
  };
  const { bytes, fileBytes } = await utf8Bytes(file, encoding);
  bytes.on('error', (err) => array.destroy(err));
  let fed = 0;
  bytes.on('data', (chunk: Buffer) => (fed += chunk.length));
  parser.on('error', (err: Error) => array.destroy(err));
  bytes.pipe(parser).pipe(array);
  const items = new ChunkReader(array, mapError);
  // Peek at the first element for the column names; it is handed out again by next().
  let pending: unknown[] = [];
  const first = (await items.first()) as { value: unknown } | undefined;
  if (first) pending = [first];
  const value = first?.value;
  const columns = value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  return {
    format: 'json',
    columns,
    // stream-json keeps no offsets: the bytes handed to the parser, which may run ahead of
    // the items it has made by what it holds (a read or two, 64 KiB each).
    parsed: () => ({ rows: items.received, bytes: fileBytes(fed), headerBytes: 0, ahead: true }),
    async next(max) {
      const got = pending.length ? pending : [];
      pending = [];
      if (got.length < max) got.push(...(await items.next(max - got.length)));
      return got.map((item) => (item as { value: unknown }).value);
    },
    close: () => {
      file.destroy();
      parser.destroy();
      array.destroy();
    },
  };
}

export function openSource(path: string, format: InputFormat, delimiter?: string, encoding = 'utf-8', lineEndings: LineEndings = 'mixed'): Promise<RowSource> {
  return format === 'csv' ? openCsv(path, delimiter, encoding, lineEndings) : openJson(path, encoding);
}

/** The format by extension: .csv, .tsv, .txt are CSV (.tsv with tabs); .json is JSON. */
export function formatFromPath(path: string): { format: InputFormat; delimiter?: string } | undefined {
  const lower = path.toLowerCase();
  if (lower.endsWith('.csv') || lower.endsWith('.txt')) return { format: 'csv' };
  if (lower.endsWith('.tsv')) return { format: 'csv', delimiter: '\t' };
  if (lower.endsWith('.json')) return { format: 'json' };
  return undefined;
}
