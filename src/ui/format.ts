export type Format = 'table' | 'json' | 'ndjson' | 'tsv';
export const FORMATS: readonly Format[] = ['table', 'json', 'ndjson', 'tsv'];

/** A column of a listing or a field of a detail view. */
export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

/** A cell as text: empty for nothing, JSON for objects, as-is for the rest. */
export function cellText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object' || x === null)) return v.join(',');
  return JSON.stringify(v);
}

/** A TSV field: tabs and line breaks escaped so that one record stays one line. */
export function tsvField(v: unknown): string {
  return cellText(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

/** Shortens a string for a table cell. */
export function truncate(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
