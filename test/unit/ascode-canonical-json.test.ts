// The canonical JSON of a value (what a field's hash is taken of) is the text it was when the
// states committed in repositories were written: checked against that definition over random
// values, so that a faster build of it never changes a hash.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/ascode/model.js';

/** The definition the hashes in committed states were computed with. */
function reference(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(reference).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${reference(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

const value = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined)),
  node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 })),
})).node;

describe('canonical JSON', () => {
  it('is the text the committed hashes were taken of, keys sorted and undefined left out, for any value', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { numRuns: 3000 },
    );
  });

  it('writes the shapes of a suite as before', () => {
    const suite = { name: 'Smoke', criteria: [{ weight: 0.4, key: 'goal', name: 'Goal' }], noise: null, scenarios: [undefined, { goal: 'g', name: 'n' }], extra: undefined };
    expect(canonicalJson(suite)).toBe(reference(suite));
  });
});
