/**
 * Records in a fixed order with, per facet a listing filters on, the sorted positions of each
 * value: a page and its totals come from positions, without reading the records that do not
 * match (how each query is served: src/emulator/README.md).
 */

export type FacetFn<T> = (item: T) => string;

interface Facet {
  /** The value of each position. */
  keys: string[];
  /** Per value, its positions ascending. */
  lists: Map<string, number[]>;
}

interface Memo {
  version: number;
  positions: number[];
  extra: unknown;
}

export interface Selection {
  /** The facet to select on (all positions when absent) ... */
  facet?: string;
  /** ... and its values (one or more). */
  values?: readonly string[];
  /** Position range [lo, hi) (the whole index when absent). */
  lo?: number;
  hi?: number;
}

const MEMO_SIZE = 8;
const EMPTY: number[] = [];

export class OrderedIndex<T> {
  private items: T[] = [];
  /** The items must be read again from the source (after a removal). */
  private itemsStale = true;
  /** Facets and positions must be rebuilt from the items (after an insertion before the end). */
  private facetsStale = false;
  private pos: Map<T, number> | undefined;
  private readonly built = new Map<string, Facet>();
  private readonly memo = new Map<string, Memo>();
  /** Bumped by every change (memoized scans are only reused at the same version). */
  version = 0;

  constructor(
    private readonly source: () => Iterable<T>,
    private readonly facets: Readonly<Record<string, FacetFn<T>>> = {},
  ) {}

  /** Every item, in order (the index's own array: never change it). */
  all(): readonly T[] {
    if (this.itemsStale) {
      this.items = [...this.source()];
      this.itemsStale = false;
      this.facetsStale = true;
    }
    return this.items;
  }

  get size(): number {
    return this.all().length;
  }

  /** A new item at the end. */
  append(item: T): void {
    this.version++;
    if (this.itemsStale) return;
    const p = this.items.length;
    this.items.push(item);
    if (this.facetsStale || this.built.size === 0) return;
    this.pos?.set(item, p);
    for (const [name, f] of this.built) {
      const k = this.facets[name]!(item);
      f.keys.push(k);
      listFor(f, k).push(p);
    }
  }

  /** A new item in sorted position (`cmp` the order): appended when it sorts last, else spliced in. */
  insert(item: T, cmp: (a: T, b: T) => number): void {
    const items = this.all() as T[];
    let lo = 0;
    let hi = items.length;
    if (hi > 0 && cmp(items[hi - 1]!, item) <= 0) return this.append(item);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmp(items[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    items.splice(lo, 0, item);
    this.facetsStale = true;
    this.version++;
  }

  /** Replaces every item (a bulk merge): positions are rebuilt on the next query. */
  reset(items: T[]): void {
    this.items = items;
    this.itemsStale = false;
    this.facetsStale = true;
    this.version++;
  }

  /** An item went (or several): the items are read again from the source on the next query. */
  removed(): void {
    this.itemsStale = true;
    this.pos = undefined;
    this.built.clear();
    this.version++;
  }

  /** An item changed in place: its facet values move, and memoized scans are dropped. */
  update(item: T): void {
    this.version++;
    if (this.itemsStale || this.facetsStale || this.built.size === 0) return;
    const p = this.pos?.get(item);
    if (p === undefined) return;
    for (const [name, f] of this.built) {
      const k = this.facets[name]!(item);
      const old = f.keys[p]!;
      if (k === old) continue;
      f.keys[p] = k;
      const from = f.lists.get(old)!;
      from.splice(lowerBound(from, p), 1);
      const to = listFor(f, k);
      to.splice(lowerBound(to, p), 0, p);
    }
  }

  /** An item at `p` was replaced by another object (a record set again under its id). */
  replace(p: number, item: T): void {
    const items = this.all() as T[];
    const old = items[p];
    items[p] = item;
    if (this.pos && old !== undefined) {
      this.pos.delete(old);
      this.pos.set(item, p);
    }
    this.update(item);
  }

  /** The first position whose item is not before `pred` says (items sorted: pred false, then true). */
  boundary(pred: (item: T) => boolean): number {
    const items = this.all();
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pred(items[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** How many items the selection holds. */
  count(sel: Selection = {}): number {
    const { lists, ranges } = this.select(sel);
    if (!lists) return ranges[0]![1] - ranges[0]![0];
    let n = 0;
    for (const [a, b] of ranges) n += b - a;
    return n;
  }

  /** `limit` items of the selection after skipping `offset`, newest first (from the end) or oldest first. */
  page(sel: Selection, offset: number, limit: number, newestFirst: boolean): T[] {
    const total = this.count(sel);
    if (offset >= total || limit <= 0) return [];
    const take = Math.min(limit, total - offset);
    // Oldest first is the newest-first page that ends where this one starts.
    const fromEnd = newestFirst ? offset : total - offset - take;
    const positions = this.fromEnd(sel, fromEnd, take);
    if (!newestFirst) positions.reverse();
    const items = this.all();
    return positions.map((p) => items[p]!);
  }

  /**
   * The positions of the selection's items that `match`, ascending: read once per
   * query and index version (`key` names the query), then reused for its other pages.
   * `extra` is computed over the same matches and kept with them (a listing's summary).
   */
  scan<E>(key: string, sel: Selection, match: (item: T) => boolean, extra?: (matches: readonly T[]) => E): { positions: readonly number[]; extra: E } {
    this.all();
    const hit = this.memo.get(key);
    if (hit && hit.version === this.version) {
      // Most recently used last.
      this.memo.delete(key);
      this.memo.set(key, hit);
      return { positions: hit.positions, extra: hit.extra as E };
    }
    const { lists, ranges } = this.select(sel);
    const items = this.items;
    const positions: number[] = [];
    if (!lists) {
      for (let p = ranges[0]![0]; p < ranges[0]![1]; p++) if (match(items[p]!)) positions.push(p);
    } else {
      for (let i = 0; i < lists.length; i++) {
        const l = lists[i]!;
        for (let j = ranges[i]![0]; j < ranges[i]![1]; j++) if (match(items[l[j]!]!)) positions.push(l[j]!);
      }
      if (lists.length > 1) positions.sort((a, b) => a - b);
    }
    const e = extra ? extra(positions.map((p) => items[p]!)) : (undefined as E);
    this.memo.set(key, { version: this.version, positions, extra: e });
    if (this.memo.size > MEMO_SIZE) this.memo.delete(this.memo.keys().next().value!);
    return { positions, extra: e };
  }

  /** A page of scanned positions (see scan). */
  pageOf(positions: readonly number[], offset: number, limit: number, newestFirst: boolean): T[] {
    const items = this.all();
    const out: T[] = [];
    const n = positions.length;
    for (let i = offset; i < n && out.length < limit; i++) out.push(items[positions[newestFirst ? n - 1 - i : i]!]!);
    return out;
  }

  // ---- internals ----

  private facet(name: string): Facet {
    this.all();
    if (this.facetsStale) {
      this.built.clear();
      this.pos = undefined;
      this.facetsStale = false;
    }
    let f = this.built.get(name);
    if (!f) {
      const fn = this.facets[name];
      if (!fn) throw new Error(`no facet ${name}`);
      const keys: string[] = new Array(this.items.length);
      const lists = new Map<string, number[]>();
      for (let p = 0; p < this.items.length; p++) {
        const k = fn(this.items[p]!);
        keys[p] = k;
        listFor({ keys, lists }, k).push(p);
      }
      f = { keys, lists };
      this.built.set(name, f);
      if (!this.pos) {
        this.pos = new Map();
        for (let p = 0; p < this.items.length; p++) this.pos.set(this.items[p]!, p);
      }
    }
    return f;
  }

  /** The lists of the selection (none: every position) and, per list, the index range [a, b) within [lo, hi). */
  private select(sel: Selection): { lists: number[][] | undefined; ranges: Array<[number, number]> } {
    const n = this.all().length;
    const lo = Math.max(0, sel.lo ?? 0);
    const hi = Math.min(n, sel.hi ?? n);
    if (sel.facet === undefined) return { lists: undefined, ranges: [[lo, Math.max(lo, hi)]] };
    const f = this.facet(sel.facet);
    const lists = (sel.values ?? []).map((v) => f.lists.get(v) ?? EMPTY);
    const ranges = lists.map((l): [number, number] => (lo === 0 && hi === n ? [0, l.length] : [lowerBound(l, lo), lowerBound(l, Math.max(lo, hi))]));
    return { lists, ranges };
  }

  /** `take` positions of the selection, skipping `skip` from the end; descending. */
  private fromEnd(sel: Selection, skip: number, take: number): number[] {
    const { lists, ranges } = this.select(sel);
    const out: number[] = [];
    if (!lists) {
      const [, hi] = ranges[0]!;
      for (let p = hi - 1 - skip; out.length < take; p--) out.push(p);
      return out;
    }
    if (lists.length === 1) {
      const l = lists[0]!;
      const [, b] = ranges[0]!;
      for (let j = b - 1 - skip; out.length < take; j--) out.push(l[j]!);
      return out;
    }
    // Several values: the (skip+1)-th largest position of their union, by binary search over
    // positions (countAtLeast falls as P grows), then a merge downwards from it.
    const countAtLeast = (p: number) => {
      let c = 0;
      for (let i = 0; i < lists.length; i++) {
        const [a, b] = ranges[i]!;
        c += b - Math.max(a, lowerBound(lists[i]!, p));
      }
      return c;
    };
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (countAtLeast(mid) >= skip + 1) lo = mid;
      else hi = mid - 1;
    }
    const ptr = lists.map((l, i) => Math.min(ranges[i]![1], lowerBound(l, lo + 1)) - 1);
    while (out.length < take) {
      let best = -1;
      for (let i = 0; i < lists.length; i++) {
        if (ptr[i]! < ranges[i]![0]) continue;
        if (best < 0 || lists[i]![ptr[i]!]! > lists[best]![ptr[best]!]!) best = i;
      }
      if (best < 0) break;
      out.push(lists[best]![ptr[best]!]!);
      ptr[best] = ptr[best]! - 1;
    }
    return out;
  }
}

function listFor(f: Facet, k: string): number[] {
  let l = f.lists.get(k);
  if (!l) {
    l = [];
    f.lists.set(k, l);
  }
  return l;
}

/** The first index of sorted `a` whose value is >= x. */
export function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
