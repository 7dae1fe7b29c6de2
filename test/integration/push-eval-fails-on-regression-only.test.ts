// `vap push --eval --baseline previous --fail-on-regression`: a push is rolled back on a
// significant regression only. A change at the level of the noise passes where an absolute
// --min-score at the same level would have flipped; a degraded instruction is rolled back,
// and the version history says why. In-process against a real emulator.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { benign, degrade, seedAgent, STAGING, twoOrgEnv, type Seeded, useTwoOrgProject } from '../helpers/two-orgs.js';

const t = useTwoOrgProject('vap-push-regression-');
let n = 0;

function vap(args: string[]) {
  return t.vap(['--profile', 'staging', ...args]);
}
const get = async (path: string) => (await t.emu.api('GET', path, undefined, STAGING.apiKey)).body.data;

/** A live agent with a gating suite of 3 scenarios × `iterations` and one completed run (the baseline), pulled. */
async function liveAgent(iterations: number): Promise<Seeded & { slug: string }> {
  const s = await seedAgent(t.emu, STAGING, { name: `Gate Desk ${++n}`, tools: ['Calendar booking'], suite: { name: 'Booking', iterations } });
  const r = await vap(['pull', '--agent', s.agentId]);
  expect(r.code, r.stderr).toBe(0);
  return { ...s, slug: `gate-desk-${n}` };
}
const edit = (slug: string, f: (s: string) => string) => {
  const md = join(t.dir, 'agents', slug, 'agent.md');
  writeFileSync(md, f(readFileSync(md, 'utf8')));
};
// Failed iterations are a gate of their own (--allow-failed-iterations); this file is about the verdicts.
const GATED = ['push', '--yes', '--eval', '--baseline', 'previous', '--fail-on-regression', '--allow-failed-iterations', '30'];

describe('vap push --eval --fail-on-regression', () => {
  it('a change at the level of the noise passes and stays, where --min-score at the same level would have rolled it back', async () => {
    // Ten iterations a scenario: few enough to be noisy, enough for the verdicts to tell noise from a change.
    const live = await liveAgent(10);
    const before = (await get(`/api/v1/agents/${live.agentId}/versions?limit=200`)).total;
    edit(live.slug, benign);
    const r = await vap(GATED);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/✓ passed --fail-on-regression: no significant regression against run #1/);
    expect(r.stderr).toContain('evals passed (1 suite): the new versions stay');
    const v = await get(`/api/v1/agents/${live.agentId}/versions?limit=200`);
    expect(v.total).toBe(before + 1);
    expect(v.versions.some((x: { changeType: string }) => x.changeType === 'rollback')).toBe(false);

    // The two runs: the baseline (the instructions before) and the push's (one greeting changed).
    const runs = (await get(`/api/v1/agents/${live.agentId}/evals/${live.suiteId}/runs`)).runs as Array<{
      id: string;
      runNumber: number;
      overallScore: number;
    }>;
    const first = runs.find((x) => x.runNumber === 1)!;
    const second = runs.find((x) => x.runNumber === 2)!;
    expect(second.overallScore).toBeLessThan(first.overallScore);
    // An absolute gate at the level the agent scored before: it passes the old run and fails the new one.
    const level = String(first.overallScore);
    const env = twoOrgEnv(t.emu.url, join(t.dir, '.config'));
    const gate = (runId: string) =>
      runCli(
        [
          '--profile',
          'staging',
          'evals',
          'runs',
          'get',
          live.suiteId!,
          runId,
          '--agent',
          live.agentId,
          '--min-score',
          level,
          '--allow-failed-iterations',
          '30',
        ],
        { env },
      );
    expect((await gate(first.id)).code).toBe(0);
    const flipped = await gate(second.id);
    expect(flipped.code).toBe(3);
    expect(flipped.stdout + flipped.stderr).toContain(`--min-score ${level}`);
  });

  it('a degraded instruction regresses significantly: rolled back, and the versions listing shows the rollback and its reason', async () => {
    const live = await liveAgent(4);
    const from = (await get(`/api/v1/agents/${live.agentId}`)).currentVersion;
    edit(live.slug, degrade);
    const r = await vap(GATED);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(3);
    expect(r.stdout).toMatch(/instruction_adherence .*▼ regressed/);
    expect(r.stdout).toMatch(/✗ FAILED --fail-on-regression: a significant regression against run #1 \(family-wise error 1%\)/);
    expect(r.stderr).toContain(`↩ rolled back agent ${live.slug}`);
    const v = await get(`/api/v1/agents/${live.agentId}/versions?limit=200`);
    expect(v.versions[0]).toMatchObject({ changeType: 'rollback', rolledBackTo: from });
    expect(v.versions[0].reason).toMatch(
      /^vap push \S+: eval gate failed on gate-desk-\d+\/booking \(--fail-on-regression: a significant regression against run #1 .*instruction_adherence -0\.\d+/,
    );
    const agent = await get(`/api/v1/agents/${live.agentId}`);
    expect(agent.instructions).toContain('Never give medical advice.');
    const listed = await runCli(['--profile', 'staging', 'agents', 'versions', live.agentId], { env: twoOrgEnv(t.emu.url, join(t.dir, '.config')) });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(`rollback\\t.*to version ${from}: vap push \\S+: eval gate failed on gate-desk-\\d+/booking \\(--fail-on-regression`),
    );
    // Nothing is recorded as passed: the files are not what staging now runs.
    const state = JSON.parse(readFileSync(join(t.dir, '.vap', 'state.staging.json'), 'utf8'));
    expect(state.passed?.[live.slug]).toBeUndefined();
  });
});
