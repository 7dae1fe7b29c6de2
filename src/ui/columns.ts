import type { Column } from './format.js';

/**
 * How a table's columns share the terminal's width, one policy for every listing (the steps:
 * src/ui/README.md): a person scanning a narrow table is better served by fewer columns than
 * by every column cut to a few letters.
 */

/** What the policy knows of a column. */
export interface ColumnNeed {
  /** The columns its widest cell or its header takes. */
  natural: number;
  /** Free text: shrinks first. */
  flex?: boolean;
  /** For a free-text column: the fewest columns it is cut to before others give way (FLEX_MIN by default). */
  min?: number;
  /** Optional: left out when the table cannot fit otherwise, the lowest rank first. */
  drop?: number;
  /** What the listing is for: never left out. */
  keep?: boolean;
  /** It only repeats another column in this table: the first to go. */
  repeated?: boolean;
  /** A column of ids: cut only when nothing else can give way. */
  id?: boolean;
}

/** The fewest columns a free-text column is cut to before the other columns give way. */
export const FLEX_MIN = 12;
/** The space between two columns. */
export const GAP = 2;

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * Each column's width for a terminal `width` columns wide (undefined: no limit, the natural
 * widths); 0 for a column left out.
 */
export function fitColumns(cols: readonly ColumnNeed[], width: number | undefined, gap = GAP): number[] {
  const natural = cols.map((c) => Math.max(0, c.natural));
  if (width === undefined) return natural;
  const kept = cols.map(() => true);
  const fits = (idx: number[]) => sum(idx.map((i) => natural[i]!)) + gap * Math.max(0, idx.length - 1) <= width;
  if (!fits(cols.map((_, i) => i))) cols.forEach((c, i) => c.repeated && !c.keep && i > 0 && (kept[i] = false));
  const droppable = (i: number) => i > 0 && !cols[i]!.keep && kept[i];
  const marked = cols
    .map((c, i) => ({ rank: c.drop, i }))
    .filter((d): d is { rank: number; i: number } => d.rank !== undefined && droppable(d.i))
    .sort((a, b) => a.rank - b.rank || b.i - a.i)
    .map((d) => d.i);
  const rest = cols
    .map((_, i) => i)
    .filter((i) => droppable(i) && cols[i]!.drop === undefined)
    .reverse();
  const dropOrder = [...marked, ...rest];
  for (;;) {
    const idx = cols.map((_, i) => i).filter((i) => kept[i]);
    const room = width - gap * Math.max(0, idx.length - 1);
    const w = idx.map((i) => natural[i]!);
    const floor = (pick: (c: ColumnNeed, w: number) => number) => idx.map((i, k) => pick(cols[i]!, w[k]!));
    // What each column may be cut to: free text to its minimum while columns can still be left out; then further, as step 5 says.
    const tries = [floor((c, x) => (c.flex ? Math.min(x, c.min ?? FLEX_MIN) : x))];
    if (dropOrder.length === 0) {
      tries.push(
        floor((c, x) => (c.flex ? Math.min(x, 1) : x)),
        floor((c, x) => (c.id ? x : Math.min(x, 1))),
        floor((_, x) => Math.min(x, 1)),
      );
    }
    let widths: number[] | undefined;
    if (sum(w) <= room) widths = w;
    else {
      const floors = tries.find((f) => sum(f) <= room);
      if (floors) widths = level(w, room, floors);
      else if (dropOrder.length === 0) widths = level(w, room, tries[tries.length - 1]!);
    }
    if (widths) {
      const out = cols.map(() => 0);
      idx.forEach((i, k) => (out[i] = widths![k]!));
      return out;
    }
    kept[dropOrder.shift()!] = false;
  }
}

/**
 * What a listing keeps on a narrow terminal and what goes first, by column header: its
 * declaration of what it is for (see the policy above).
 */
export interface ColumnPolicy {
  /** The columns never left out: what the listing is for (the first column is always kept). */
  keep: readonly string[];
  /** The columns left out first, in this order, once the free text has given way. */
  dropFirst?: readonly string[];
  /** A column that may only repeat another (`{ name: 'criterion' }`): when it does in every row, it goes before anything else gives way. */
  repeats?: Readonly<Record<string, string>>;
}

/** A column of a table, with its part in the policy (set by withPolicy). */
export interface TableColumn<T> extends Column<T> {
  keep?: boolean;
  /** The header of the column this one may only repeat. */
  repeats?: string;
}

/**
 * A listing's columns with its policy: which it keeps, which go first. A header the
 * columns do not have is a mistake in the listing, and throws.
 */
export function withPolicy<T>(columns: readonly Column<T>[], policy: ColumnPolicy): TableColumn<T>[] {
  const headers = new Set(columns.map((c) => c.header));
  const named = [...policy.keep, ...(policy.dropFirst ?? []), ...Object.entries(policy.repeats ?? {}).flat()];
  const unknown = named.filter((h) => !headers.has(h));
  if (unknown.length) throw new Error(`column policy names ${unknown.join(', ')}, which the listing has no column for (${[...headers].join(', ')})`);
  const rank = new Map((policy.dropFirst ?? []).map((h, i) => [h, i + 1]));
  return columns.map((c) => ({
    ...c,
    ...(policy.keep.includes(c.header) ? { keep: true } : {}),
    ...(rank.has(c.header) ? { drop: rank.get(c.header)! } : {}),
    ...(policy.repeats?.[c.header] ? { repeats: policy.repeats[c.header] } : {}),
  }));
}

/**
 * The widest columns cut to one common width, the largest with which they fit in `room`,
 * never below each one's floor; a column or two of room left over goes to the cut columns,
 * left to right, so that the table takes the whole room.
 */
function level(widths: number[], room: number, floors: number[]): number[] {
  const at = (cap: number) => widths.map((w, i) => Math.max(floors[i]!, Math.min(w, cap)));
  let lo = 0;
  let hi = Math.max(0, ...widths);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (sum(at(mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  const out = at(lo);
  let spare = room - sum(out);
  for (let i = 0; i < out.length && spare > 0; i++) {
    if (out[i]! < widths[i]!) {
      out[i]!++;
      spare--;
    }
  }
  return out;
}
