import type { SchemaField } from '../spec/contact-schema.js';
import type { InputFormat } from './source.js';

/**
 * The values of a chunk's rows: picked out of the raw rows for the mapped fields, and
 * packed to pass to the validation worker. Nothing here validates, so the main thread
 * can load it without the validators (which run on the worker).
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
}

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

/**
 * A chunk of CSV rows packed into one string plus cell and row offsets: it passes to the worker
 * far faster than thousands of small strings, and csv-parse's arrays die young instead of
 * surviving until the chunk is validated (the layout: src/contacts/README.md).
 */
export interface PackedRows {
  n: number;
  text: string;
  cellStart: Uint32Array;
  rowCell: Uint32Array;
}

export function packRows(rows: string[][]): PackedRows {
  const n = rows.length;
  const rowCell = new Uint32Array(n + 1);
  let cells = 0;
  for (let r = 0; r < n; r++) {
    rowCell[r] = cells;
    cells += rows[r]!.length;
  }
  rowCell[n] = cells;
  const cellStart = new Uint32Array(cells + 1);
  // One join, not `text +=` per cell: that builds a tree of thousands of cons strings
  // for the garbage collector to copy, then flattens it anyway when the chunk is posted.
  const all = new Array<string>(cells);
  let at = 0;
  let k = 0;
  for (let r = 0; r < n; r++) {
    const row = rows[r]!;
    for (let c = 0; c < row.length; c++) {
      const cell = row[c]!;
      cellStart[k] = at;
      all[k++] = cell;
      at += cell.length;
    }
  }
  cellStart[cells] = at;
  return { n, text: all.join(''), cellStart, rowCell };
}

/** Row r of a packed chunk, as csv-parse gave it. */
export function unpackRow(p: PackedRows, r: number): string[] {
  const from = p.rowCell[r]!;
  const to = p.rowCell[r + 1]!;
  const row = new Array<string>(to - from);
  for (let k = from; k < to; k++) row[k - from] = p.text.slice(p.cellStart[k]!, p.cellStart[k + 1]!);
  return row;
}

/** extractValues for a packed CSV chunk: the mapped values, sliced straight from the text. */
export function packedValues(spec: ExtractSpec, p: PackedRows): { values: Array<string | undefined>; rowErrors: Array<[number, string]> } {
  const ci = spec.columnIndex;
  const F = ci.length;
  const { n, text, cellStart, rowCell } = p;
  const values = new Array<string | undefined>(n * F);
  const rowErrors: Array<[number, string]> = [];
  for (let r = 0; r < n; r++) {
    const first = rowCell[r]!;
    const len = rowCell[r + 1]! - first;
    if (len !== spec.headerLength) rowErrors.push([r, lengthError(len, spec.headerLength)]);
    const base = r * F;
    for (let f = 0; f < F; f++) {
      const c = ci[f]!;
      values[base + f] = c < len ? text.slice(cellStart[first + c]!, cellStart[first + c + 1]!) : undefined;
    }
  }
  return { values, rowErrors };
}

/**
 * The contact object of a valid row from its normalised values (blank optional
 * values are left out, as the server would).
 */
export function contactOf(fields: SchemaField[], values: unknown[], offset: number): Record<string, unknown> {
  const c: Record<string, unknown> = {};
  for (let f = 0; f < fields.length; f++) {
    const v = values[offset + f];
    if (v !== undefined) c[fields[f]!.name] = v;
  }
  return c;
}
