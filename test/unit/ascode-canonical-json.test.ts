// The canonical JSON of a value (what a field's hash is taken of), and the field hashes of a
// model, are what they were when the states committed in repositories were written: checked
// against those definitions over random values, so that a faster build never changes a hash.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, comparable, FIELDS, fieldHashes, shortHash, type AnyModel, type Kind } from '../../src/ascode/model.js';

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
    const suite = {
      name: 'Smoke',
      criteria: [{ weight: 0.4, key: 'goal', name: 'Goal' }],
      noise: null,
      scenarios: [undefined, { goal: 'g', name: 'n' }],
      extra: undefined,
    };
    expect(canonicalJson(suite)).toBe(reference(suite));
  });

  it('gives each field of a model the hash of its comparable value, as the committed hashes were taken', () => {
    const text = fc.oneof(fc.constantFrom('', 'Front Desk', 'es-mx', 'en-US', 'Ava', 'a"b', 'é'), fc.string());
    const weight = fc.oneof(fc.constantFrom(0.4, 1, 3), fc.double({ min: 0.001, max: 10, noNaN: true }));
    const agent = fc.record({
      name: text,
      engine: fc.constantFrom('realtime', 'pipeline', 'speech-to-speech'),
      voice: fc.option(fc.record({ name: text, language: text }), { nil: null }),
      tools: fc.array(text, { maxLength: 4 }),
      variables: fc.array(fc.record({ name: text, description: text }), { maxLength: 3 }),
      description: text,
      tags: fc.array(text, { maxLength: 3 }),
      instructions: text,
    });
    const suite = fc.record({
      name: text,
      iterations: fc.integer({ min: 1, max: 50 }),
      status: fc.constantFrom('draft', 'ready'),
      noise: fc.option(fc.record({ type: text, level: text }), { nil: null }),
      criteria: fc.array(fc.record({ key: text, name: text, weight }), { maxLength: 4 }),
      scenarios: fc.array(fc.record({ name: text, persona: text, goal: text, category: text }), { maxLength: 4 }),
    });
    const webhook = fc.record({ name: text, url: text, events: fc.array(text, { maxLength: 4 }) });
    const reference = (kind: Kind, model: AnyModel) =>
      Object.fromEntries(FIELDS[kind].map((f) => [f, shortHash(canonicalJson(comparable(kind, f, (model as unknown as Record<string, unknown>)[f])))]));
    fc.assert(
      fc.property(
        fc.oneof(
          agent.map((m) => ['agent', m] as const),
          suite.map((m) => ['suite', m] as const),
          webhook.map((m) => ['webhook', m] as const),
        ),
        ([kind, model]) => {
          expect(fieldHashes(kind, model as AnyModel)).toEqual(reference(kind, model as AnyModel));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('a state entry as the state file holds it', () => {
  it('is its canonical JSON, whatever its fields, types and extra keys', async () => {
    const { entryJson } = await import('../../src/ascode/state-fast.js');
    const hash = fc.stringMatching(/^[0-9a-f]{16}$/);
    const entry = fc.record(
      {
        id: fc.oneof(fc.string(), fc.integer()),
        hash: fc.oneof(hash, fc.constant('')),
        fields: fc.oneof(
          fc.dictionary(
            fc.constantFrom('name', 'engine', 'voice', 'tools', 'instructions', 'scenarios', '__proto__', 'a"b', 'é'),
            fc.oneof(hash, fc.constant(undefined), fc.integer()),
          ),
          fc.constant(null),
          fc.array(hash),
        ),
        version: fc.oneof(fc.nat(), fc.constant(undefined), fc.double(), fc.string()),
        file: fc.oneof(hash, fc.constant(undefined), fc.integer()),
        extra: fc.oneof(fc.string(), fc.constant(undefined)),
      },
      { requiredKeys: ['id', 'hash', 'fields'] },
    );
    fc.assert(
      fc.property(fc.oneof(entry, value), (e) => entryJson(e) === canonicalJson(e)),
      { numRuns: 3000 },
    );
  });
});
