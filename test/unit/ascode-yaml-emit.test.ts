// vap's fast path for new YAML files writes the same bytes as the yaml package, or steps
// aside: checked over random data of the shapes vap writes (agent front matter, suites,
// webhooks), with strings drawn from plain words and every character YAML treats specially.
import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { STRINGIFY } from '../../src/ascode/yaml-doc.js';
import { emitYaml } from '../../src/ascode/yaml-emit.js';

const word = fc.oneof(
  fc.constantFrom('Front Desk', 'booking', 'en-US', 'Ava', 'goal_completion', 'Calendar booking', 'a/b', 'x (y)', 'true', 'null', 'No', '1.5', '0x1', 'Lucía', 'a: b', '#x', ' lead', 'trail ', 'two  spaces', '', '-x', '.x', 'x.', 'a\nb', "it's", '"q"', '[x]', '{x}', '*x', '&x', '!x', '%x', '@x', '`x', '|x', '>x', '?x', 'x?', 'x,y', 'Caller 1, polite', 'x,', 'a , b', 'x#y', 'x #y', 'é', '\t', 'x:'),
  fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '-', '_', '.', '/', '(', ')', ':', '#', '"', "'", '\n', ',', 'é') }),
);
const scalar = fc.oneof(word, fc.integer({ min: -1000, max: 100000 }), fc.double({ min: 0, max: 10, noNaN: true }), fc.constantFrom(0.4, 0.25, 1e-7, 1e21, -0), fc.boolean(), fc.constant(null));
const flat = fc.dictionary(fc.constantFrom('name', 'key', 'weight', 'persona', 'goal', 'category', 'description', 'language', 'type', 'level'), scalar, { maxKeys: 4 });
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.array(flat, { maxLength: 3 }), flat);
const doc = fc.dictionary(fc.constantFrom('name', 'engine', 'voice', 'tools', 'variables', 'description', 'tags', 'status', 'gate', 'iterations', 'noise', 'criteria', 'scenarios', 'url', 'events'), value, { maxKeys: 8 });

describe('the fast YAML path', () => {
  it('writes what the yaml package writes, byte for byte, or steps aside', () => {
    let taken = 0;
    fc.assert(
      fc.property(doc, (data) => {
        const fast = emitYaml(data);
        if (fast !== undefined) {
          taken++;
          expect(fast).toBe(stringify(data, STRINGIFY));
        }
      }),
      { numRuns: 3000 },
    );
    // Not vacuous: a good share of the documents took the fast path.
    expect(taken).toBeGreaterThan(150);
  });

  it('takes the shapes of a pulled agent and suite', () => {
    const agent = { name: 'Bench agent 0001', engine: 'realtime', voice: { name: 'Ava', language: 'en-US' }, tools: ['Calendar booking'], variables: [] };
    const suite = { name: 'Smoke', status: 'ready', gate: true, iterations: 1, noise: null, criteria: [{ key: 'goal_completion', name: 'Goal completion', weight: 0.4 }], scenarios: [{ name: 'Scenario 1', category: 'happy_path', persona: 'Caller 1, polite', goal: 'Goal 1' }] };
    for (const d of [agent, suite]) expect(emitYaml(d)).toBe(stringify(d, STRINGIFY));
  });
});
