// One budget of calls (--max-calls, VAP_MAX_CALLS) and adaptive runs (--until-decided) in the
// commands that run gating suites as code: preview, push --eval and promote --eval. Before any
// call they say what the runs will place; a budget too small is exit 2 with nothing made or
// applied; --until-decided runs a suite again while its verdict is undecided. Against a real
// emulator, with its score-shift control as the known truth.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benign, seedAgent, STAGING, useTwoOrgProject, waitForRun, writes, type Seeded } from '../helpers/two-orgs.js';

const t = useTwoOrgProject('vap-budgets-');
let n = 0;

const staging = (args: string[], env: Record<string, string | undefined> = {}) => t.vap(['--profile', 'staging', ...args], env);
const get = async (path: string) => (await t.emu.api('GET', path, undefined, STAGING.apiKey)).body.data;

/** A live agent with a gating suite of 3 scenarios × `iterations` and one completed run, pulled. */
async function liveAgent(iterations: number): Promise<Seeded & { slug: string }> {
  const s = await seedAgent(t.emu, STAGING, { name: `Budget Desk ${++n}`, tools: ['Calendar booking'], suite: { name: 'Booking', iterations } });
  const r = await staging(['pull', '--agent', s.agentId]);
  expect(r.code, r.stderr).toBe(0);
  return { ...s, slug: `budget-desk-${n}` };
}
const edit = (slug: string, f: (s: string) => string) => {
  const md = join(t.dir, 'agents', slug, 'agent.md');
  writeFileSync(md, f(readFileSync(md, 'utf8')));
};
const agentsNamed = async (part: string) => ((await get('/api/v1/agents?limit=100')).agents as Array<{ name: string }>).filter((a) => a.name.includes(part));

describe('preview within a budget', () => {
  it('says the calls it will place and the live suite’s recent call minutes; a budget below them is exit 2 with no copy made', async () => {
    const live = await liveAgent(4);
    edit(live.slug, benign);
    await t.emu.clearRequests();
    const r = await staging(['preview', '--label', 'tight', '--max-calls', '11']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('error: preview "tight" would place 12 calls, more than --max-calls 11');
    expect(await writes(t.emu)).toEqual([]);
    expect(await agentsNamed('preview tight')).toEqual([]);

    const env = await staging(['preview', '--label', 'tight'], { VAP_MAX_CALLS: '11' });
    expect(env.code).toBe(2);
    expect(await writes(t.emu)).toEqual([]);

    const ok = await staging(['preview', '--label', 'roomy', '--max-calls', '12', '--allow-failed-iterations', '100%']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/^Calls: 12 to place \(1 suite, scenarios × iterations\) \(--max-calls 12\)$/m);
    expect(ok.stderr).toMatch(
      new RegExp(`^  ${live.slug}/booking: 12 calls \\(3 scenarios × 4 iterations\\); its last run took \\d+\\.\\d simulated call minutes$`, 'm'),
    );
  });

  it('--until-decided runs the copy again while undecided and stops on a regression, within the budget; the copies are removed', async () => {
    const live = await liveAgent(4);
    // Two more runs of the live version: the baseline pools all three.
    for (let i = 0; i < 2; i++) {
      const run = (await t.emu.api('POST', `/api/v1/agents/${live.agentId}/evals/${live.suiteId}/runs`, undefined, STAGING.apiKey)).body.data;
      await waitForRun(t.emu, STAGING, live.agentId, live.suiteId!, run.id);
    }
    const marker = `Case ${n} of a drop.`;
    edit(live.slug, (s) => s.replace(/\n---\n/, `\n---\n${marker}\n`));
    const shift = await t.emu.control<{ id: string }>('POST', '/evals/score-shift', { shift: -0.4, instructionsContain: marker });
    try {
      const r = await staging([
        'preview',
        '--label',
        'drop',
        '--fail-on-regression',
        '--until-decided',
        '--max-calls',
        '48',
        '--allow-failed-iterations',
        '100%',
      ]);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(/^Calls: 12 to place \(1 suite, scenarios × iterations\); at most 48 with --until-decided within --max-calls 48$/m);
      // Decided at the first look: no second run.
      expect(r.stderr).toMatch(/^ {2}Run #1: 12 calls; against run #3 and 2 more \(version \d+, 36 calls\): regressed: overall -0\.\d{3}/m);
      expect(r.stderr).not.toMatch(/^Started run #2/m);
      expect(r.stdout).toMatch(/✗ FAILED --fail-on-regression: a significant regression against run #3 and 2 more of its version \(family-wise error 1%\)/);
      expect(await agentsNamed('preview drop')).toEqual([]);
    } finally {
      await t.emu.control('DELETE', `/evals/score-shift/${shift.id}`);
    }
  });
});

describe('push --eval and promote --eval within a budget', () => {
  it('push --eval: a budget below the gating runs is exit 2 before anything is applied; --until-decided needs a baseline', async () => {
    const live = await liveAgent(4);
    edit(live.slug, benign);
    const before = (await get(`/api/v1/agents/${live.agentId}`)).currentVersion;
    await t.emu.clearRequests();
    const r = await staging(['push', '--yes', '--eval', '--max-calls', '5']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('error: the gating suites of this push (--eval) would place 12 calls, more than --max-calls 5');
    const noBaseline = await staging(['push', '--yes', '--eval', '--until-decided', '--max-calls', '50']);
    expect(noBaseline.code).toBe(2);
    expect(noBaseline.stderr).toContain('--until-decided needs a baseline to decide against');
    expect(await writes(t.emu)).toEqual([]);
    expect((await get(`/api/v1/agents/${live.agentId}`)).currentVersion).toBe(before);

    const noEval = await staging(['push', '--yes', '--max-calls', '50']);
    expect(noEval.code).toBe(2);
    expect(noEval.stderr).toContain('--max-calls needs --eval');
  });

  it('push --eval --until-decided: an unchanged score runs again until the budget, and the push stays', async () => {
    const live = await liveAgent(4);
    edit(live.slug, benign);
    const r = await staging([
      'push',
      '--yes',
      '--eval',
      '--baseline',
      'previous',
      '--fail-on-regression',
      '--until-decided',
      '--max-calls',
      '24',
      '--allow-failed-iterations',
      '100%',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Calls: 12 to place \(1 suite, scenarios × iterations\); at most 24 with --until-decided within --max-calls 24$/m);
    const runs = (await get(`/api/v1/agents/${live.agentId}/evals/${live.suiteId}/runs`)).runs as unknown[];
    // The seed's run, then one or two of the push (a second only while undecided).
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.length).toBeLessThanOrEqual(3);
    expect(r.stderr).toContain('evals passed (1 suite): the new versions stay');
  });

  it('promote: --until-decided and --max-calls need --eval (exit 2)', async () => {
    const r = await t.vap(['promote', '--from', 'staging', '--to', 'prod', '--yes', '--until-decided', '--max-calls', '10']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--until-decided, --max-calls need --eval');
  });
});
