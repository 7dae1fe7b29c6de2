import { safeTsv, Trusted } from './safe-text.js';
import { Shown } from './values.js';

export type Format = 'table' | 'json' | 'ndjson' | 'tsv';
export const FORMATS: readonly Format[] = ['table', 'json', 'ndjson', 'tsv'];

/** A column of a listing or a field of a detail view. */
export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /** Free text, which gives way first when a table is too wide; by default, a column of data strings that is not an id (src/ui/table.ts). */
  flex?: boolean;
  /** For free text: the fewest columns it is cut to before the other columns give way (src/ui/columns.ts). */
  min?: number;
  /** Optional on a narrow terminal: left out when the table cannot fit otherwise, the lowest rank first. */
  drop?: number;
}

/**
 * A cell as text, not yet made safe (the table, TSV and id writers do that): empty for nothing,
 * JSON for objects; a `Trusted` value its text, a `Shown` value (src/ui/values.ts) its form for
 * programs, since a table asks for the other itself.
 */
export function cellText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (v instanceof Trusted) return v.text;
  if (v instanceof Shown) return v.plain();
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object' || x === null)) return v.join(',');
  return JSON.stringify(v);
}

/**
 * A list of values in a cell or field: comma-separated for programs (TSV, the one separator
 * of lists in pipes, as an array's cell is) and `, ` between them for a person, so that a
 * detail view wraps between items.
 */
class ListValue extends Shown {
  constructor(private readonly items: readonly unknown[]) {
    super();
  }
  plain(): string {
    return this.items.map(cellText).join(',');
  }
  human(): string {
    return this.items.map(cellText).join(', ');
  }
}

/** A list for a column or detail field (see ListValue). */
export function listOf(items: readonly unknown[] | null | undefined): Shown {
  return new ListValue(items ?? []);
}

/**
 * A TSV field: one line of visible characters (see safeTsv): backslash, tab, newline and
 * carriage return escaped as before, and every other control character, DEL, C1 control
 * and bidirectional override shown as a visible escape, as on a terminal.
 */
export function tsvField(v: unknown): string {
  return safeTsv(cellText(v));
}

/** Shortens a string for a table cell. */
export function truncate(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
