// vap.yaml's gates: the eval gates push --eval, preview and promote take, keyed by the
// flags' long names and parsed by the flags' own parsers; a flag on the command line wins.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benign, seedAgent, STAGING, useTwoOrgProject, writes } from '../helpers/two-orgs.js';

const t = useTwoOrgProject('vap-gates-yaml-');
let n = 0;
const staging = (args: string[]) => t.vap(['--profile', 'staging', ...args]);
const yaml = () => join(t.dir, 'vap.yaml');
const addGates = (text: string) => writeFileSync(yaml(), `${readFileSync(yaml(), 'utf8')}gates:\n${text}`);

async function pulledAgent() {
  const s = await seedAgent(t.emu, STAGING, { name: `Desk ${++n}`, tools: ['Calendar booking'], suite: { name: 'Booking', iterations: 1 } });
  expect((await staging(['pull', '--agent', s.agentId])).code).toBe(0);
  const slug = `desk-${n}`;
  const md = join(t.dir, 'agents', slug, 'agent.md');
  writeFileSync(md, benign(readFileSync(md, 'utf8')));
  return { ...s, slug };
}

describe('gates in vap.yaml', () => {
  it('push --eval gates on them; a flag given on the command line wins', async () => {
    await pulledAgent();
    addGates('  min-score: 0.999\n  allow-failed-iterations: 10\n');
    const r = await staging(['push', '--yes', '--eval']);
    expect(r.code, r.stderr).toBe(3);
    expect(`${r.stdout}${r.stderr}`).toContain('--min-score 0.999');
    const flag = await staging(['push', '--yes', '--eval', '--min-score', '0']);
    expect(flag.code, flag.stderr).toBe(0);
    expect(flag.stderr).toContain('recorded as passed in profile "staging"');
  });

  for (const [what, text, message] of [
    ['an unknown gate', '  min-scroe: 0.8\n', /^error: vap\.yaml:\d+: gates\.min-scroe: not a gate/m],
    ['a score out of range', '  min-score: 2\n', /^error: vap\.yaml:\d+: gates\.min-score: .*--min-score takes a score between 0 and 1/m],
    ['a value for a switch', '  fail-on-regression: yes please\n', /^error: vap\.yaml:\d+: gates\.fail-on-regression: takes true or false/m],
    ['a bad criterion', '  min-criterion: { tone: lots }\n', /^error: vap\.yaml:\d+: gates\.min-criterion: .*--min-criterion takes key=score/m],
  ] as const) {
    it(`${what} is exit 2 naming its line, with nothing sent`, async () => {
      await pulledAgent();
      addGates(text);
      await t.emu.clearRequests();
      const r = await staging(['push', '--yes', '--eval']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(await writes(t.emu)).toEqual([]);
    });
  }

  it('push --eval --all runs the gating suites of agents the push did not change, and records what passed', async () => {
    const a = await pulledAgent();
    // Nothing to apply: the file is what the platform holds again.
    writeFileSync(
      join(t.dir, 'agents', a.slug, 'agent.md'),
      readFileSync(join(t.dir, 'agents', a.slug, 'agent.md'), 'utf8').replace('"Hello, you have reached Acme Dental"', '"Hello, Acme Dental"'),
    );
    const plain = await staging(['push', '--yes', '--eval', '--allow-failed-iterations', '10']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain('no gating suite (gate: true) belongs to an agent this push changed');
    const all = await staging(['push', '--yes', '--eval', '--all', '--allow-failed-iterations', '10']);
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(t.dir, '.vap', 'state.staging.json'), 'utf8')).passed[a.slug]).toMatchObject({
      via: 'push',
      runs: [expect.stringMatching(/^run_/)],
    });
    const noEval = await staging(['push', '--yes', '--all']);
    expect(noEval.code).toBe(2);
    expect(noEval.stderr).toContain('--all needs --eval');
  });
});
