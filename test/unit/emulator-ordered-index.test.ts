import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OrderedIndex } from '../../src/emulator/ordered-index.js';

// The ordered index behind the emulator's listings, against a plain array filtered and
// sliced on every query: pages, totals, ranges and memoized scans agree through any
// sequence of appends, sorted inserts, facet changes and removals.

interface Rec {
  id: number;
  key: number;
  status: string;
  dir: string;
  text: string;
}

const STATUSES = ['a', 'b', 'c', 'd'];
const DIRS = ['in', 'out'];
const facets = { status: (r: Rec) => r.status, dirStatus: (r: Rec) => `${r.dir}|${r.status}` };
const cmp = (x: Rec, y: Rec) => x.key - y.key || x.id - y.id;

type Op =
  | { t: 'append'; status: string; dir: string; text: string }
  | { t: 'insert'; key: number; status: string; dir: string; text: string }
  | { t: 'update'; at: number; status: string }
  | { t: 'remove'; at: number }
  | {
      t: 'query';
      facet: 'status' | 'dirStatus' | undefined;
      values: string[];
      dir: string;
      lo: number;
      hi: number;
      offset: number;
      limit: number;
      newest: boolean;
      scan: string;
    };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant('append' as const), status: fc.constantFrom(...STATUSES), dir: fc.constantFrom(...DIRS), text: fc.constantFrom('x', 'y', 'xy') }),
  fc.record({
    t: fc.constant('insert' as const),
    key: fc.integer({ min: 0, max: 60 }),
    status: fc.constantFrom(...STATUSES),
    dir: fc.constantFrom(...DIRS),
    text: fc.constantFrom('x', 'y', 'xy'),
  }),
  fc.record({ t: fc.constant('update' as const), at: fc.nat(), status: fc.constantFrom(...STATUSES) }),
  fc.record({ t: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({
    t: fc.constant('query' as const),
    facet: fc.constantFrom(undefined, 'status' as const, 'dirStatus' as const),
    values: fc.subarray(STATUSES, { minLength: 1 }),
    dir: fc.constantFrom(...DIRS),
    lo: fc.integer({ min: 0, max: 40 }),
    hi: fc.integer({ min: 0, max: 80 }),
    offset: fc.integer({ min: 0, max: 30 }),
    limit: fc.integer({ min: 1, max: 12 }),
    newest: fc.boolean(),
    scan: fc.constantFrom('', 'x', 'y'),
  }),
);

describe('OrderedIndex', () => {
  it('agrees with filtering and slicing an array, through appends, inserts, changes and removals', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 120 }), fc.boolean(), (ops, sorted) => {
        let next = 0;
        // The source is what the index reads after a removal (a collection's records in order).
        let items: Rec[] = [];
        const idx = new OrderedIndex<Rec>(() => [...items], facets);
        for (const op of ops) {
          if (op.t === 'append' || (op.t === 'insert' && !sorted)) {
            const key = items.length ? items[items.length - 1]!.key + 1 : 0;
            const r = { id: next++, key, status: op.status, dir: op.dir, text: op.text };
            idx.append(r);
            items.push(r);
          } else if (op.t === 'insert') {
            const r = { id: next++, key: op.key, status: op.status, dir: op.dir, text: op.text };
            idx.insert(r, cmp);
            items = [...items, r].sort(cmp);
          } else if (op.t === 'update') {
            if (!items.length) continue;
            const r = items[op.at % items.length]!;
            r.status = op.status;
            idx.update(r);
          } else if (op.t === 'remove') {
            if (!items.length || sorted) continue;
            items = items.filter((_, i) => i !== op.at % items.length);
            idx.removed();
          } else {
            const lo = Math.min(op.lo, items.length);
            const hi = Math.max(lo, Math.min(op.hi, items.length));
            const inFacet = (r: Rec) =>
              op.facet === undefined ? true : op.facet === 'status' ? op.values.includes(r.status) : r.dir === op.dir && op.values.includes(r.status);
            const want = items.slice(lo, hi).filter(inFacet);
            const sel =
              op.facet === undefined
                ? { lo, hi }
                : { facet: op.facet, values: op.facet === 'status' ? op.values : op.values.map((v) => `${op.dir}|${v}`), lo, hi };
            expect(idx.all()).toEqual(items);
            expect(idx.count(sel)).toBe(want.length);
            const ordered = op.newest ? [...want].reverse() : want;
            expect(idx.page(sel, op.offset, op.limit, op.newest).map((r) => r.id)).toEqual(ordered.slice(op.offset, op.offset + op.limit).map((r) => r.id));
            if (op.scan) {
              const match = (r: Rec) => r.text.includes(op.scan);
              const matching = want.filter(match);
              const { positions, extra } = idx.scan(JSON.stringify(op), sel, match, (m) => m.length);
              expect(extra).toBe(matching.length);
              const page = idx.pageOf(positions, op.offset, op.limit, op.newest).map((r) => r.id);
              expect(page).toEqual((op.newest ? [...matching].reverse() : matching).slice(op.offset, op.offset + op.limit).map((r) => r.id));
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('finds a date range by binary search over a sorted index', () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ id: i, key: Math.floor(i / 3), status: 'a', dir: 'in', text: '' }));
    const idx = new OrderedIndex<Rec>(() => items, facets);
    expect(idx.boundary((r) => r.key >= 10)).toBe(30);
    expect(idx.boundary((r) => r.key > 10)).toBe(33);
    expect(idx.boundary((r) => r.key >= 1000)).toBe(100);
    expect(idx.boundary(() => true)).toBe(0);
  });
});
