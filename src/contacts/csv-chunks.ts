import { open, type FileHandle } from 'node:fs/promises';
import { parse as parseSync } from 'csv-parse/sync';
import { csvParseOptions, InputError, isCsvParseError } from './source.js';

/**
 * The CSV reader for large files: the file is read in slices of 128 KiB, each cut
 * after its last complete record, and every slice is parsed by csv-parse on its own,
 * on the validation worker or on the main thread, whichever is free. Parsing, the
 * single most expensive step, so runs on both cores instead of one. (Small slices
 * keep what is alive at once small: at 1 MiB peak RSS was 240 MB, at 128 KiB 160 MB.)
 *
 * Where a record ends is found by a quote-aware scan: a newline ends a record unless
 * it is inside quotes, and every `"` opens or closes quotes (an escaped `""` does both).
 * A stray quote that would fool the scan is invalid CSV that csv-parse refuses anyway.
 * The results are those of streaming csv-parse over the whole file (a unit test checks
 * this on random files with quotes, newlines, CRLF and a BOM).
 */

export interface CsvChunk {
  /** Whole records (the last one ends with a newline, or at the end of the file). */
  bytes: Uint8Array;
  /** Line of the file where the chunk begins (1-based), for error messages. */
  startLine: number;
}

const SLICE = 128 * 1024;
/** A record longer than this is a broken quote, not data (csv-parse's max_record_size). */
const MAX_RECORD = 4 * 1024 * 1024;
const QUOTE = 0x22;
const NL = 0x0a;

/** The end (exclusive) of the last complete record in `buf` (which starts a record), or -1. */
export function lastRecordEnd(buf: Uint8Array, length = buf.length): number {
  let inQuotes = false;
  let pos = 0;
  let last = -1;
  for (;;) {
    const q = buf.indexOf(QUOTE, pos);
    const end = q === -1 || q >= length ? length : q;
    if (!inQuotes && end > pos) {
      const nl = buf.lastIndexOf(NL, end - 1);
      if (nl >= pos) last = nl + 1;
    }
    if (q === -1 || q >= length) return last;
    inQuotes = !inQuotes;
    pos = q + 1;
  }
}

function countLines(buf: Uint8Array): number {
  let n = 0;
  for (let i = buf.indexOf(NL); i !== -1; i = buf.indexOf(NL, i + 1)) n++;
  return n;
}

/** Parses the records of a chunk (the header excluded), with the importer's options. */
export function parseCsvChunk(bytes: Uint8Array, delimiter: string, startLine: number): string[][] {
  try {
    return parseSync(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { ...csvParseOptions(delimiter), bom: false }) as string[][];
  } catch (err) {
    if (isCsvParseError(err)) {
      const e = err as Error & { lines?: number };
      const line = e.lines !== undefined ? startLine + e.lines - 1 : undefined;
      throw new InputError(`not valid CSV: ${e.message.replace(/ at line \d+/, line ? ` at line ${line}` : '')}`, line);
    }
    throw err;
  }
}

export interface CsvChunkSource {
  readonly columns: string[];
  bytesRead(): number;
  /** The next chunk, or undefined at the end of the file. */
  next(): Promise<CsvChunk | undefined>;
  close(): void;
}

export async function openCsvChunks(path: string, delimiter = ',', opts: { sliceBytes?: number } = {}): Promise<CsvChunkSource> {
  const slice = opts.sliceBytes ?? SLICE;
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message);
  }
  let position = 0;
  let eof = false;
  let tail: Uint8Array = new Uint8Array(0);
  let line = 1;

  /** Reads a slice after the tail; returns the bytes held (tail + slice) in a fresh buffer. */
  const fill = async (): Promise<{ buf: Uint8Array; length: number }> => {
    const buf = new Uint8Array(new ArrayBuffer(tail.length + slice));
    buf.set(tail, 0);
    let length = tail.length;
    while (length < buf.length && !eof) {
      const { bytesRead } = await fh.read(buf, length, buf.length - length, position);
      if (bytesRead === 0) eof = true;
      position += bytesRead;
      length += bytesRead;
    }
    return { buf, length };
  };

  /** The next run of whole records, however many slices it takes. */
  const nextBytes = async (): Promise<Uint8Array | undefined> => {
    for (;;) {
      const { buf, length } = await fill();
      if (length === 0) return undefined;
      const end = eof ? length : lastRecordEnd(buf, length);
      if (end > 0) {
        tail = buf.slice(end, length);
        return buf.subarray(0, end);
      }
      if (length > MAX_RECORD) throw new InputError(`not valid CSV: a record of more than ${MAX_RECORD / 1048576} MB starts at line ${line} (an unclosed quote?)`, line);
      tail = buf.subarray(0, length);
    }
  };

  // The header: the first record (blank lines before it skipped, BOM stripped), however many slices it takes.
  let first = await nextBytes();
  let headerEnd = first ? firstRecordEnd(first) : -1;
  while (first && headerEnd < 0) {
    const more = await nextBytes();
    if (!more) {
      headerEnd = first.length;
      break;
    }
    const joined = new Uint8Array(first.length + more.length);
    joined.set(first, 0);
    joined.set(more, first.length);
    first = joined;
    headerEnd = firstRecordEnd(first);
  }
  if (!first) {
    await fh.close();
    throw new InputError('the file is empty: a CSV file needs a header row of column names');
  }
  const headerBytes = first.subarray(0, headerEnd);
  let header: string[] | undefined;
  try {
    header = (parseSync(Buffer.from(headerBytes.buffer, headerBytes.byteOffset, headerBytes.byteLength), csvParseOptions(delimiter)) as string[][])[0];
  } catch (err) {
    await fh.close();
    if (isCsvParseError(err)) throw new InputError(`not valid CSV: ${(err as Error).message}`, 1);
    throw err;
  }
  if (!header) {
    await fh.close();
    throw new InputError('the file is empty: a CSV file needs a header row of column names');
  }
  line += countLines(headerBytes);
  first = first.subarray(headerEnd);
  let closed = false;

  return {
    columns: header.map(String),
    bytesRead: () => position - tail.length,
    async next() {
      if (closed) return undefined;
      let bytes: Uint8Array | undefined;
      if (first) {
        bytes = first.length ? first : await nextBytes();
        first = undefined;
      } else bytes = await nextBytes();
      if (!bytes) return undefined;
      const chunk = { bytes, startLine: line };
      line += countLines(bytes);
      return chunk;
    },
    close() {
      if (closed) return;
      closed = true;
      void fh.close().catch(() => undefined);
    },
  };
}

/**
 * Where the first record ends (blank lines before it are skipped, as csv-parse does
 * with skip_empty_lines; the header may itself span lines inside quotes), or -1 when
 * `buf` holds no whole record with data yet.
 */
function firstRecordEnd(buf: Uint8Array): number {
  let inQuotes = false;
  let sawData = false;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    if (b === QUOTE) {
      inQuotes = !inQuotes;
      sawData = true;
    } else if (b === NL && !inQuotes) {
      if (sawData) return i + 1;
    } else if (b !== 0x0d && !(i < 3 && (b === 0xef || b === 0xbb || b === 0xbf))) sawData = true;
  }
  return -1;
}
