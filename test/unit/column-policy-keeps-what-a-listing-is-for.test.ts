import { Chalk } from 'chalk';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { fitColumns, withPolicy } from '../../src/ui/columns.js';
import { renderTable } from '../../src/ui/table.js';

// A listing declares the columns it never leaves out and those that go first
// (src/ui/columns.ts); a column that only repeats the key goes before anything else gives
// way. Checked on the policy's numbers and on tables drawn at 80 and 40 columns.

const plain = new Chalk({ level: 0 });
const widest = (text: string) => Math.max(...text.split('\n').map((l) => stringWidth(l)));
const headers = (table: string) =>
  table
    .split('\n')[0]!
    .trim()
    .split(/\s{2,}/);

describe('the column policy', () => {
  it('never leaves out a column the listing keeps: the right-most that are not kept go instead', () => {
    const cols = [{ natural: 20 }, { natural: 9 }, { natural: 9, keep: true }, { natural: 9 }, { natural: 9 }];
    // 20 + 9 + 9 + 9 + 9 + 8 = 64 > 42: the right-most unkept go first, the kept one stays.
    expect(fitColumns(cols, 42)).toEqual([20, 9, 9, 0, 0]);
    expect(fitColumns(cols, 40)).toEqual([20, 0, 9, 0, 0]);
  });

  it('leaves out the columns declared to go first, in their order, before the right-most', () => {
    const cols = [{ natural: 10 }, { natural: 10, drop: 2 }, { natural: 10, drop: 1 }, { natural: 10 }];
    expect(fitColumns(cols, 34)).toEqual([10, 10, 0, 10]);
    expect(fitColumns(cols, 22)).toEqual([10, 0, 0, 10]);
  });

  it('lets a column that repeats another go before any free text is cut', () => {
    const cols = [{ natural: 21, flex: true }, { natural: 21, flex: true, repeated: true }, { natural: 7 }, { natural: 12, keep: true }];
    // Without it the table fits only by cutting both names; the repeat goes, and the key stays whole.
    expect(fitColumns(cols, 50)).toEqual([21, 0, 7, 12]);
    // A table that fits keeps it.
    expect(fitColumns(cols, 80)).toEqual([21, 21, 7, 12]);
  });

  it('cuts kept free text below its minimum, then other columns, before it cuts an id', () => {
    const cols = [
      { natural: 20, id: true, keep: true },
      { natural: 30, flex: true, keep: true },
      { natural: 9, keep: true },
    ];
    const w = fitColumns(cols, 40);
    expect(w[0]).toBe(20);
    expect(w[2]).toBe(9);
    expect(w[1]).toBe(40 - 20 - 9 - 4);
    // Only when the id alone is too wide is it cut.
    expect(fitColumns([{ natural: 50, id: true, keep: true }], 40)).toEqual([40]);
  });

  it('says which header a declaration names that the listing does not have', () => {
    expect(() => withPolicy([{ header: 'id', value: () => 1 }], { keep: ['id', 'verdict'] })).toThrow(/verdict/);
  });
});

describe('a table with a baseline at 80 and 40 columns', () => {
  // The shape of a run's criteria against a baseline: the name repeats the key.
  const rows = [
    { key: 'instruction_adherence', name: 'instruction_adherence', average: 0.912, max: 1, weight: 1, baseline: 0.95, delta: -0.038, verdict: '▼ regressed' },
    { key: 'goal_completion', name: 'Goal completion', average: 0.8, max: 1, weight: 2, baseline: 0.79, delta: 0.01, verdict: '= no change' },
  ];
  type Row = (typeof rows)[number];
  const columns = withPolicy<Row>(
    [
      { header: 'criterion', value: (r) => r.key },
      { header: 'name', value: (r) => r.name },
      { header: 'average', value: (r) => r.average.toFixed(3) },
      { header: 'max', value: (r) => r.max.toFixed(3) },
      { header: 'weight', value: (r) => r.weight.toFixed(2) },
      { header: 'baseline', value: (r) => r.baseline.toFixed(3) },
      { header: 'delta', value: (r) => r.delta.toFixed(3) },
      { header: 'verdict', value: (r) => r.verdict },
    ],
    { keep: ['criterion', 'delta', 'verdict'], repeats: { name: 'criterion' } },
  );

  it('keeps the verdict and the change, and lets the repeated name go first (at 80 the key stays whole)', () => {
    for (const width of [80, 40]) {
      const table = renderTable(rows, columns, plain, undefined, { width });
      expect(widest(table), table).toBeLessThanOrEqual(width);
      expect(headers(table), table).toEqual(expect.arrayContaining(['CRITERION', 'DELTA', 'VERDICT']));
      expect(headers(table)).not.toContain('NAME');
      expect(table).toContain('▼ regressed');
      expect(table).toContain('-0.038');
      if (width === 80) expect(table).toContain('instruction_adherence ');
    }
    // Wide enough for all, the name stays.
    expect(headers(renderTable(rows, columns, plain, undefined, { width: 120 }))).toContain('NAME');
  });

  it('keeps a name that says more than the key once the repeats are gone, as far as it fits', () => {
    const named = rows.map((r) => ({ ...r, name: `${r.name} (how closely it followed its instructions)` }));
    const table = renderTable(named, columns, plain, undefined, { width: 80 });
    expect(widest(table)).toBeLessThanOrEqual(80);
    expect(headers(table)).toEqual(expect.arrayContaining(['CRITERION', 'NAME', 'DELTA', 'VERDICT']));
  });
});
