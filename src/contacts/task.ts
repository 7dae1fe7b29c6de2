import { chunkChecker, type CheckSpec, type ChunkResult } from './check-chunk.js';
import { parseCsvChunk } from './csv-chunks.js';
import { encodeRow } from './csv-write.js';
import type { InputFormat } from './source.js';

/**
 * The work on one chunk, the same on the worker thread and on the main thread:
 * parse (a CSV slice), pick each row's values for the mapped fields, validate.
 */

/** How a raw row's values are found (serialisable: the worker gets it once). */
export interface ExtractSpec {
  format: InputFormat;
  /** For each checked field, the index of its column. */
  columnIndex: number[];
  /** Column names (the keys of a JSON object). */
  columns: string[];
  /** CSV: the header's column count; a row with another count is rejected. */
  headerLength: number;
  /** The columns copied to the errors file. */
  keptColumns: number[];
}

export interface TaskSpec {
  check: CheckSpec;
  extract: ExtractSpec;
  delimiter: string;
  /** Which raw rows a CSV task hands back: all of them (to send them), or the rejected ones (a dry run). */
  keepRows: 'all' | 'invalid';
}

/**
 * A validated CSV slice. `rows` holds every raw row, or (keepRows 'invalid') the
 * rejected ones in the order of `result.invalid`, each encoded as a CSV line of its
 * kept columns (one string per row is cheaper to pass back and to keep).
 */
export interface TaskOutput {
  n: number;
  result: ChunkResult;
  rows: string[];
  rowsAre: 'all' | 'invalid';
}

/** Length marking an absent value in a packed chunk. */
export const ABSENT = 0xffffffff;

function lengthError(len: number, headerLength: number): string {
  return `has ${len} ${len === 1 ? 'value' : 'values'}, the header has ${headerLength}`;
}

/** The values of a chunk's rows (row-major, one per checked field) and the row-level errors. */
export function extractValues(spec: ExtractSpec, rows: unknown[]): { values: unknown[]; rowErrors: Array<[number, string]> } {
  const ci = spec.columnIndex;
  const cols = spec.columns;
  const F = ci.length;
  const values = new Array<unknown>(rows.length * F);
  const rowErrors: Array<[number, string]> = [];
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const base = r * F;
    if (spec.format === 'csv') {
      const a = row as string[];
      if (a.length !== spec.headerLength) rowErrors.push([r, lengthError(a.length, spec.headerLength)]);
      for (let f = 0; f < F; f++) values[base + f] = a[ci[f]!];
    } else if (row !== null && typeof row === 'object' && !Array.isArray(row)) {
      const o = row as Record<string, unknown>;
      for (let f = 0; f < F; f++) {
        const key = cols[ci[f]!]!;
        values[base + f] = Object.hasOwn(o, key) ? o[key] : undefined;
      }
    } else {
      rowErrors.push([r, `is ${row === null ? 'null' : Array.isArray(row) ? 'an array' : `a ${typeof row}`}, not an object`]);
    }
  }
  return { values, rowErrors };
}

/** CSV rows packed for the worker: their values as one string plus lengths (cheaper to copy than many small strings). */
export function packValues(spec: ExtractSpec, rows: unknown[]): { text: string; lengths: Uint32Array; rowErrors: Array<[number, string]> } {
  const ci = spec.columnIndex;
  const F = ci.length;
  const lengths = new Uint32Array(rows.length * F);
  let text = '';
  const rowErrors: Array<[number, string]> = [];
  for (let r = 0; r < rows.length; r++) {
    const a = rows[r] as string[];
    if (a.length !== spec.headerLength) rowErrors.push([r, lengthError(a.length, spec.headerLength)]);
    const base = r * F;
    for (let f = 0; f < F; f++) {
      const v = a[ci[f]!];
      if (v === undefined) lengths[base + f] = ABSENT;
      else {
        text += v;
        lengths[base + f] = v.length;
      }
    }
  }
  return { text, lengths, rowErrors };
}

export function unpackValues(text: string, lengths: Uint32Array): Array<string | undefined> {
  const values = new Array<string | undefined>(lengths.length);
  let at = 0;
  for (let k = 0; k < lengths.length; k++) {
    const len = lengths[k]!;
    if (len === ABSENT) values[k] = undefined;
    else {
      values[k] = text.slice(at, at + len);
      at += len;
    }
  }
  return values;
}

export interface TaskRunner {
  /** Validates rows already read. */
  rows(rows: unknown[]): ChunkResult;
  /** Validates values already extracted. */
  values(n: number, values: ArrayLike<unknown>, rowErrors?: Array<[number, string]>): ChunkResult;
  /** Parses a CSV slice, then validates its rows. */
  csv(bytes: Uint8Array, startLine: number): TaskOutput;
}

export function taskRunner(spec: TaskSpec): TaskRunner {
  const check = chunkChecker(spec.check);
  const runner: TaskRunner = {
    rows(rows) {
      const { values, rowErrors } = extractValues(spec.extract, rows);
      return check({ n: rows.length, values, rowErrors });
    },
    values(n, values, rowErrors) {
      return check({ n, values, rowErrors });
    },
    csv(bytes, startLine) {
      const rows = parseCsvChunk(bytes, spec.delimiter, startLine);
      const result = runner.rows(rows);
      const kept = spec.extract.keptColumns;
      const encode = (row: string[]) => encodeRow(row, kept, spec.delimiter);
      if (spec.keepRows === 'all') return { n: rows.length, result, rows: rows.map(encode), rowsAre: 'all' };
      return { n: rows.length, result, rows: result.invalid.map((r) => encode(rows[r]!)), rowsAre: 'invalid' };
    },
  };
  return runner;
}
