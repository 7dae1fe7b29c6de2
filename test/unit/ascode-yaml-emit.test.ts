// vap's fast paths for its own YAML files write the same bytes as the yaml package, and read
// the same data from them, or step aside: checked over random data of the shapes vap writes
// (agent front matter, suites, webhooks), with strings drawn from plain words and every
// character YAML treats specially, and over texts edited by hand.
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { STRINGIFY } from '../../src/ascode/yaml-doc.js';
import { emitYaml } from '../../src/ascode/yaml-emit.js';
import { readOwnYaml } from '../../src/ascode/yaml-fast-read.js';

const word = fc.oneof(
  fc.constantFrom(
    'Front Desk',
    'booking',
    'en-US',
    'Ava',
    'goal_completion',
    'Calendar booking',
    'a/b',
    'x (y)',
    'true',
    'null',
    'No',
    '1.5',
    '0x1',
    'Lucía',
    'a: b',
    '#x',
    ' lead',
    'trail ',
    'two  spaces',
    '',
    '-x',
    '.x',
    'x.',
    'a\nb',
    "it's",
    '"q"',
    '[x]',
    '{x}',
    '*x',
    '&x',
    '!x',
    '%x',
    '@x',
    '`x',
    '|x',
    '>x',
    '?x',
    'x?',
    'x,y',
    'Caller 1, polite',
    'x,',
    'a , b',
    'x#y',
    'x #y',
    'é',
    '\t',
    'x:',
  ),
  fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '-', '_', '.', '/', '(', ')', ':', '#', '"', "'", '\n', ',', 'é') }),
);
const scalar = fc.oneof(
  word,
  fc.integer({ min: -1000, max: 100000 }),
  fc.double({ min: 0, max: 10, noNaN: true }),
  fc.constantFrom(0.4, 0.25, 1e-7, 1e21, -0),
  fc.boolean(),
  fc.constant(null),
);
const flat = fc.dictionary(fc.constantFrom('name', 'key', 'weight', 'persona', 'goal', 'category', 'description', 'language', 'type', 'level'), scalar, {
  maxKeys: 4,
});
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.array(flat, { maxLength: 3 }), flat);
const doc = fc.dictionary(
  fc.constantFrom(
    'name',
    'engine',
    'voice',
    'tools',
    'variables',
    'description',
    'tags',
    'status',
    'gate',
    'iterations',
    'noise',
    'criteria',
    'scenarios',
    'url',
    'events',
  ),
  value,
  { maxKeys: 8 },
);

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
    const suite = {
      name: 'Smoke',
      status: 'ready',
      gate: true,
      iterations: 1,
      noise: null,
      criteria: [{ key: 'goal_completion', name: 'Goal completion', weight: 0.4 }],
      scenarios: [{ name: 'Scenario 1', category: 'happy_path', persona: 'Caller 1, polite', goal: 'Goal 1' }],
    };
    for (const d of [agent, suite]) expect(emitYaml(d)).toBe(stringify(d, STRINGIFY));
  });

  it('reads back what it writes as the yaml package reads it, and steps aside for anything else', () => {
    let taken = 0;
    fc.assert(
      fc.property(doc, (data) => {
        const text = stringify(data, STRINGIFY);
        const fast = readOwnYaml(text);
        if (fast !== undefined) {
          taken++;
          expect(fast).toEqual(parse(text));
        } else {
          expect(emitYaml(parse(text) as Record<string, unknown>)).not.toBe(text);
        }
      }),
      { numRuns: 3000 },
    );
    expect(taken).toBeGreaterThan(150);
  });

  it('reads a hand-edited text only when it is the text vap would write', () => {
    const own = 'name: Smoke\nstatus: ready\ngate: true\niterations: 1\ncriteria:\n  - key: tone\n    name: Tone\n    weight: 1\nscenarios: []\n';
    expect(readOwnYaml(own)).toEqual(parse(own));
    // YAML 1.2, as the package reads it: "yes" is a string (which the suite's schema then refuses).
    expect(readOwnYaml(own.replace('gate: true', 'gate: yes'))).toMatchObject({ gate: 'yes' });
    for (const edited of [
      own.replace('gate: true', 'gate: true # must pass'),
      own.replace('gate: true', "gate: 'true'"),
      own.replace('iterations: 1', 'iterations: 1.0'),
      own.replace('iterations: 1', 'iterations: 01'),
      own.replace('    name: Tone', '     name: Tone'),
      own.replace('name: Smoke', 'name: Smoke\nname: Again'),
      own.replace('name: Smoke', '__proto__: x'),
      own.replace('scenarios: []', 'scenarios:'),
      own.replace(/\n/g, '\r\n'),
      own.slice(0, -1),
      `---\n${own}`,
      `{name: Smoke}\n`,
    ]) {
      expect(readOwnYaml(edited), edited).toBeUndefined();
    }
  });
});
