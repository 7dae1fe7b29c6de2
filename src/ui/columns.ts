/**
 * How the columns of a table share a terminal's width: one policy for every listing (the
 * tables of src/ui/table.ts and the streamed table of `calls list`).
 *
 * 1. A table that fits is drawn as it is (each column as wide as its widest cell or header).
 * 2. Otherwise the free-text columns (names, descriptions, summaries) give way first: the
 *    widest of them are cut to one common width, the largest with which the table fits,
 *    never below their minimum (FLEX_MIN columns, or their natural width when narrower).
 * 3. Still too wide: columns are left out, one at a time, each time trying 1 and 2 again:
 *    first those a listing marks as optional (`drop`, lowest rank first), then the right-most
 *    ones, never the first (what the row is). A column left out is in `get`, --json and TSV;
 *    a person scanning a table on a narrow terminal is better served by fewer columns than
 *    by every column cut to a few letters.
 * 4. Still too wide (the first column alone is too wide): every column gives way, the widest
 *    first, in the same way.
 * With --wide a table is not fitted at all (src/ui/table.ts): whole ids, every column.
 * A cut cell ends in `…` (src/ui/width.ts). Columns are two spaces apart.
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
  const marked = cols
    .map((c, i) => ({ rank: c.drop, i }))
    .filter((d): d is { rank: number; i: number } => d.rank !== undefined)
    .sort((a, b) => a.rank - b.rank || b.i - a.i)
    .map((d) => d.i);
  const rest = cols.map((_, i) => i).filter((i) => i > 0 && cols[i]!.drop === undefined).reverse();
  const dropOrder = [...marked, ...rest];
  for (;;) {
    const idx = cols.map((_, i) => i).filter((i) => kept[i]);
    const room = width - gap * Math.max(0, idx.length - 1);
    const w = idx.map((i) => natural[i]!);
    const floors = idx.map((i, k) => (cols[i]!.flex ? Math.min(w[k]!, cols[i]!.min ?? FLEX_MIN) : w[k]!));
    let widths: number[] | undefined;
    if (sum(w) <= room) widths = w;
    else if (sum(floors) <= room) widths = level(w, room, floors);
    else if (dropOrder.length === 0) widths = level(w, room, w.map((x) => Math.min(x, 1)));
    if (widths) {
      const out = cols.map(() => 0);
      idx.forEach((i, k) => (out[i] = widths![k]!));
      return out;
    }
    kept[dropOrder.shift()!] = false;
  }
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
