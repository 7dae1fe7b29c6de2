import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// Budgets, estimates and adaptive runs (`--max-calls`, `--until-decided`) of `evals run
// --wait` against a real emulator, with a known truth: the emulator's score-shift control
// lowers the scores of the new agent version by a stated amount.

let emu: TestEmulator;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-until-decided-'));
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

const vap = (argv: string[], opts: RunOptions = {}) => runCli(argv, { ...opts, env: { ...cliEnv(emu.url, ORG_A.apiKey), ...opts.env } });
const runsPosted = async () => (await emu.requests()).filter((r) => r.method === 'POST' && /\/runs$/.test(r.path)).length;

/** An agent at version 1 with a suite of 3 scenarios × 8 iterations (24 calls a run) and `baselineRuns` completed runs, then at version 2. */
async function agentWithHistory(baselineRuns: number): Promise<{ agentId: string; evalId: string }> {
  const instructions = `Greet callers. Book appointments. Never give medical advice. Case ${Math.random()}.`;
  const agentId = (await emu.api('POST', '/api/v1/agents', { name: 'Reception', engine: 'realtime', instructions })).body.data.id as string;
  const evalId = (await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: 'Booking', iterationsPerScenario: 8 })).body.data.id as string;
  for (const [name, category] of [
    ['Book a cleaning', 'happy_path'],
    ['Wants a human', 'escalation'],
    ['Asks for a diagnosis', 'edge_case'],
  ] as const) {
    await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, { name, persona: 'A caller', goal: `${name} today`, category });
  }
  for (let i = 0; i < baselineRuns; i++) {
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '100%', '-q']);
    expect(r.code).toBe(0);
  }
  expect((await emu.api('PATCH', `/api/v1/agents/${agentId}`, { instructions: `${instructions} Thank the caller.` })).status).toBe(200);
  return { agentId, evalId };
}

describe('the score-shift control', () => {
  it('answers 200 with an id, shifts the runs it selects (clamped to 0..1), and is removed by DELETE', async () => {
    const { agentId, evalId } = await agentWithHistory(0);
    const up = await emu.control<{ id: string; shift: number; agentId: string; fromVersion: number }>('POST', '/evals/score-shift', {
      shift: 1,
      agentId,
      fromVersion: 2,
    });
    expect(up).toMatchObject({ id: expect.stringMatching(/^shift_/), shift: 1, agentId, fromVersion: 2, criterion: null, instructionsContain: null });
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '100%', '--json']);
    const out = JSON.parse(r.stdout);
    const scored = out.results.filter((x: { status: string }) => x.status === 'completed');
    expect(scored.length).toBeGreaterThan(0);
    for (const x of scored) {
      expect(x.overallScore).toBe(1);
      for (const c of x.criterionScores) expect(c.score).toBe(1);
    }
    expect(await emu.control('DELETE', `/evals/score-shift/${up.id}`)).toEqual({ deleted: true });
    const after = JSON.parse((await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '100%', '--json'])).stdout);
    expect(after.results.some((x: { overallScore: number | null }) => x.overallScore !== null && x.overallScore < 1)).toBe(true);
  });

  it('one criterion only, selected by the instructions (a preview copy is shifted too): the others and the weighting hold', async () => {
    const { agentId, evalId } = await agentWithHistory(0);
    const s = await emu.control<{ id: string }>('POST', '/evals/score-shift', { shift: -1, criterion: 'tone', instructionsContain: 'Thank the caller.' });
    const out = JSON.parse((await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '100%', '--json'])).stdout);
    const x = out.results.find((r: { status: string }) => r.status === 'completed');
    const score = (k: string) => x.criterionScores.find((c: { criterionKey: string }) => c.criterionKey === k).score as number;
    expect(score('tone')).toBe(0);
    expect(score('goal_completion')).toBeGreaterThan(0);
    // The default weights: 0.4, 0.3, 0.2, 0.1.
    expect(x.overallScore).toBeCloseTo(0.4 * score('goal_completion') + 0.3 * score('instruction_adherence') + 0.1 * score('efficiency'), 2);
    await emu.control('DELETE', `/evals/score-shift/${s.id}`);
  });

  it('refuses a body without a selector, or a shift outside -1..1, in the one error envelope; an unknown id is 404', async () => {
    const post = (body: unknown) =>
      fetch(`${emu.url}/_emulator/evals/score-shift`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const none = await post({ shift: -0.1 });
    expect(none.status).toBe(400);
    expect(((await none.json()) as { error: { details: Array<{ field: string }> } }).error.details[0]!.field).toBe('agentId');
    expect((await post({ shift: 2, agentId: 'ag_x' })).status).toBe(400);
    expect((await post({ shift: -0.1, fromVersion: 2 })).status).toBe(400);
    const gone = await fetch(`${emu.url}/_emulator/evals/score-shift/shift_nope`, { method: 'DELETE' });
    expect(gone.status).toBe(404);
  });
});

describe('budgets', () => {
  it("prints the calls a run places and the call minutes of the suite's recent runs before starting it", async () => {
    const { agentId, evalId } = await agentWithHistory(1);
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '100%', '--max-calls', '30']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^Calls: 24 calls \(3 scenarios × 8 iterations\) \(--max-calls 30\); the suite's last run took \d+\.\d simulated call minutes\n/m);
    expect(r.stderr.indexOf('Calls: ')).toBeLessThan(r.stderr.indexOf('Started run #'));
  });

  it('--max-calls below one run, or VAP_MAX_CALLS: exit 2 with one line, nothing started', async () => {
    const { agentId, evalId } = await agentWithHistory(0);
    await emu.clearRequests();
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--max-calls', '20']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`a run of suite ${evalId} would place 24 calls, more than --max-calls 20`);
    const e = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait'], { env: { VAP_MAX_CALLS: '10' } });
    expect(e.code).toBe(2);
    expect(e.stderr).toContain('would place 24 calls, more than --max-calls 10');
    const bad = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait'], { env: { VAP_MAX_CALLS: 'lots' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('VAP_MAX_CALLS=lots is not a whole number of calls ≥ 1');
    expect(await runsPosted()).toBe(0);
  });

  it('--until-decided needs a budget and a baseline (exit 2, nothing started)', async () => {
    const { agentId, evalId } = await agentWithHistory(0);
    await emu.clearRequests();
    const a = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--fail-on-regression', '--until-decided']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('--until-decided needs a budget: --max-calls <n> (or VAP_MAX_CALLS)');
    const b = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--until-decided', '--max-calls', '100']);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--until-decided needs a baseline to decide against');
    expect(await runsPosted()).toBe(0);
  });
});

describe('pooled baselines', () => {
  it('runs diff with --baseline version:1 pools every completed run of that version (no call spent); a run id is that run alone', async () => {
    const { agentId, evalId } = await agentWithHistory(3);
    const b = JSON.parse((await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--json'])).stdout).run.id as string;
    await emu.clearRequests();
    const pooled = JSON.parse((await vap(['evals', 'runs', 'diff', b, '--eval', evalId, '--agent', agentId, '--baseline', 'version:1', '--json'])).stdout);
    expect(pooled.comparison.pooled).toMatchObject({ current: { runs: 1, calls: 24 }, baseline: { runs: 3, calls: 72, runNumbers: [1, 2, 3] } });
    expect(pooled.comparison.baseline.runNumber).toBe(3);
    expect(await runsPosted()).toBe(0);
    const runs = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs`)).body.data.runs as Array<{ id: string; runNumber: number }>;
    const one = JSON.parse(
      (await vap(['evals', 'runs', 'diff', b, '--eval', evalId, '--agent', agentId, '--baseline', runs.find((r) => r.runNumber === 2)!.id, '--json'])).stdout,
    );
    expect(one.comparison.pooled.baseline).toMatchObject({ runs: 1, calls: 24, runNumbers: [2] });
  });
});

describe('--until-decided', () => {
  it('a drop of 0.2 on the new version: regressed against the pooled baseline version, exit 3, the runs and calls in --json and the Markdown headline', async () => {
    const { agentId, evalId } = await agentWithHistory(3);
    const s = await emu.control<{ id: string }>('POST', '/evals/score-shift', { shift: -0.2, agentId, fromVersion: 2 });
    const md = join(dir, 'regressed.md');
    const r = await vap([
      'evals',
      'run',
      evalId,
      '--agent',
      agentId,
      '--wait',
      '--allow-failed-iterations',
      '100%',
      '--baseline',
      'version:1',
      '--fail-on-regression',
      '--until-decided',
      '--max-calls',
      '96',
      '--json',
      '--report',
      `markdown=${md}`,
    ]);
    await emu.control('DELETE', `/evals/score-shift/${s.id}`);
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.baseline).toMatchObject({
      verdict: 'regressed',
      pooled: { baseline: { runs: 3, calls: 72 } },
      method: { alpha: 0.01, family: expect.stringContaining('then Holm over the rows'), sequential: { boundary: 'Lan-DeMets Pocock' } },
    });
    expect(out.baseline.overallChange.delta).toBeLessThan(-0.1);
    expect(out.adaptive).toMatchObject({ stop: 'decided', maxCalls: 96 });
    expect(out.adaptive.calls).toBe(24 * out.adaptive.runs.length);
    expect(out.baseline.pooled.current.runs).toBe(out.adaptive.runs.length);
    expect(r.stderr).toMatch(/^Calls: 24 calls \(3 scenarios × 8 iterations\); at most 96 with --until-decided \(4 runs within --max-calls 96\)/m);
    expect(r.stderr).toMatch(
      /^Run #4: 24 calls; against run #3 and 2 more \(version 1, 72 calls\): regressed: overall -0\.\d{3} \(98\.4% CI -0\.\d{3} to -0\.\d{3}\)/m,
    );
    const head = readFileSync(md, 'utf8').split('\n')[1]!;
    expect(head).toMatch(
      /^### Eval run #\d+ of Booking: ❌ 1 gate failed \(a significant regression\) · ▼ regressed at family-wise error 1%: overall -0\.\d{3} \(98\.4% CI .*\).*, against #3 and 2 more · \d+ calls of at most 96$/,
    );
  });

  it('pools the completed runs of the same version made before it (no call spent), and names them in --json and the Markdown', async () => {
    const { agentId, evalId } = await agentWithHistory(2);
    expect((await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '100%', '-q'])).code).toBe(0);
    const md = join(dir, 'earlier.md');
    const r = await vap([
      'evals',
      'run',
      evalId,
      '--agent',
      agentId,
      '--wait',
      '--allow-failed-iterations',
      '100%',
      '--baseline',
      'version:1',
      '--until-decided',
      '--max-calls',
      '24',
      '--json',
      '--report',
      `markdown=${md}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.adaptive).toMatchObject({ calls: 24, maxCalls: 24, earlier: [{ runNumber: 3, calls: 24 }] });
    expect(out.adaptive.runs).toEqual([expect.objectContaining({ runNumber: 4, calls: 24 })]);
    expect(out.baseline.pooled.current).toMatchObject({ runs: 2, calls: 48 });
    expect(out.baseline.pooled.baseline).toMatchObject({ runs: 2, calls: 48 });
    expect(out.results).toHaveLength(48);
    expect(readFileSync(md, 'utf8')).toContain('Runs: #4 (--until-decided), pooled with #3 of the same version (before it); stopped: ');
  });

  it('identical versions within a budget of two runs: stops when the next run would pass it, undecided, and says what would decide', async () => {
    const { agentId, evalId } = await agentWithHistory(3);
    const md = join(dir, 'undecided.md');
    const r = await vap([
      'evals',
      'run',
      evalId,
      '--agent',
      agentId,
      '--wait',
      '--allow-failed-iterations',
      '100%',
      '--baseline',
      'version:1',
      '--fail-on-regression',
      '--until-decided',
      '--max-calls',
      '48',
      '--json',
      '--report',
      `markdown=${md}`,
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.adaptive).toMatchObject({
      stop: 'budget',
      calls: 48,
      maxCalls: 48,
      why: 'still undecided after 48 calls: the next run of 24 would pass --max-calls 48',
    });
    expect(out.adaptive.runs).toHaveLength(2);
    expect(out.baseline.verdict).toBe('too few iterations');
    expect(out.baseline.pooled.current).toMatchObject({ runs: 2, calls: 48 });
    expect(out.baseline.toDecide.eachSide).toBeGreaterThan(8);
    expect(out.results).toHaveLength(48);
    expect(out.passRates).toMatchObject({ k: 8, rule: 'completed' });
    expect(r.stderr).toMatch(/^Started run #5 \(run_\w+\): 24 more calls, 48 of at most 48$/m);
    expect(r.stderr).toMatch(
      /^Run #5: 24 more calls \(48 on version 2\); against run #3 and 2 more \(version 1, 72 calls\): undecided \(overall [-+]?0\.\d{3}, 98\.4% CI /m,
    );
    const text = readFileSync(md, 'utf8');
    expect(text.split('\n')[1]).toMatch(
      /· ○ undecided at family-wise error 1%: .*; about \d+ scored iterations per scenario (on each side \(the baseline too\) )?would decide a change of 0\.05 · 48 calls of at most 48$/,
    );
    expect(text).toContain('stopped: still undecided after 48 calls: the next run of 24 would pass --max-calls 48.');
  });
});
