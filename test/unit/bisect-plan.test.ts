import { describe, expect, it } from 'vitest';
import { nextIndex, stepShare, worstSteps, type Range } from '../../src/bisect/plan.js';

/** The search plan.ts shapes, every step decided: the first bad index it ends on, and its steps. */
function search(n: number, first: number, skipped: Set<number> = new Set()): { found: number | undefined; steps: number } {
  let r: Range = { lo: -1, hi: n - 1, confirmed: false };
  let steps = 0;
  for (;;) {
    const i = nextIndex(r, skipped) ?? (!r.confirmed && !skipped.has(r.hi) ? r.hi : undefined);
    if (i === undefined) break;
    steps++;
    if (i >= first) r = { lo: r.lo, hi: i, confirmed: true };
    else {
      r = { ...r, lo: i };
      if (i === r.hi) break;
    }
  }
  return { found: r.lo === n - 1 ? undefined : r.hi, steps };
}

describe('nextIndex', () => {
  it('picks the middle candidate between the last good and the first bad', () => {
    expect(nextIndex({ lo: -1, hi: 10, confirmed: false }, new Set())).toBe(4);
    expect(nextIndex({ lo: 4, hi: 10, confirmed: true }, new Set())).toBe(7);
    expect(nextIndex({ lo: 5, hi: 7, confirmed: true }, new Set())).toBe(6);
  });

  it('steps around a skipped candidate to the nearest one, below first', () => {
    expect(nextIndex({ lo: -1, hi: 10, confirmed: false }, new Set([4]))).toBe(3);
    expect(nextIndex({ lo: -1, hi: 10, confirmed: false }, new Set([3, 4]))).toBe(5);
  });

  it('has nothing to test when the range is closed or every candidate in it was skipped', () => {
    expect(nextIndex({ lo: 5, hi: 6, confirmed: true }, new Set())).toBeUndefined();
    expect(nextIndex({ lo: -1, hi: 0, confirmed: false }, new Set())).toBeUndefined();
    expect(nextIndex({ lo: 2, hi: 6, confirmed: true }, new Set([3, 4, 5]))).toBeUndefined();
  });
});

describe('worstSteps', () => {
  it('is a logarithm of the candidates, plus the bad one when it is not confirmed yet', () => {
    expect(worstSteps({ lo: -1, hi: 0, confirmed: false })).toBe(1);
    expect(worstSteps({ lo: -1, hi: 0, confirmed: true })).toBe(0);
    expect(worstSteps({ lo: -1, hi: 10, confirmed: false })).toBe(5);
    expect(worstSteps({ lo: -1, hi: 1022, confirmed: false })).toBe(11);
  });

  it('bounds the steps of every search, each one ending on the true first bad candidate (or none)', () => {
    for (let n = 1; n <= 40; n++) {
      const most = worstSteps({ lo: -1, hi: n - 1, confirmed: false });
      let seen = 0;
      for (let first = 0; first <= n; first++) {
        const s = search(n, first);
        expect(s.found).toBe(first === n ? undefined : first);
        expect(s.steps).toBeLessThanOrEqual(most);
        seen = Math.max(seen, s.steps);
      }
      expect(seen).toBe(most);
    }
  });
});

describe('stepShare', () => {
  it('gives a step its share of what is left, in whole runs', () => {
    expect(stepShare(900, 5, 24)).toBe(168);
    expect(stepShare(600, 4, 100)).toBe(100);
    expect(stepShare(1000, 3, 10)).toBe(330);
  });

  it('gives at least one run, even past the budget or with no step counted', () => {
    expect(stepShare(10, 5, 24)).toBe(24);
    expect(stepShare(0, 1, 24)).toBe(24);
    expect(stepShare(100, 0, 24)).toBe(96);
  });
});
