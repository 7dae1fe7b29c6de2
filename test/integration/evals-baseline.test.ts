import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { marked, type Tokens } from 'marked';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// `--baseline previous|version:n|<runId>`, the verdicts and `--fail-on-regression` on
// `evals run --wait`, `evals runs get` and `evals runs diff`, against a real emulator. A
// regression is made the way a real one happens: the same suite, then loud background noise
// on the tester's line (`evals update --noise static:high`), which costs every score.

let emu: TestEmulator;
let dir: string;
let agentId: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-baseline-'));
  agentId = (
    await emu.api('POST', '/api/v1/agents', {
      name: 'Reception',
      engine: 'realtime',
      instructions: 'Greet callers. Book appointments. Never give medical advice.',
    })
  ).body.data.id;
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

const vap = (argv: string[], opts: RunOptions = {}) => runCli(argv, { ...opts, env: { ...cliEnv(emu.url, ORG_A.apiKey), ...opts.env } });

async function suite(iterations = 8): Promise<string> {
  const evalId = (await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: `Baseline ${Math.random()}`, iterationsPerScenario: iterations })).body.data
    .id as string;
  for (const [name, category] of [
    ['Book a cleaning', 'happy_path'],
    ['Wants a human', 'escalation'],
    ['Asks for a diagnosis', 'adversarial'],
  ] as const) {
    await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, { name, persona: 'A caller', goal: `${name} today`, category });
  }
  return evalId;
}

const noise = (evalId: string, value: { type: string; level: string } | null) =>
  emu.api('PATCH', `/api/v1/agents/${agentId}/evals/${evalId}`, { noise: value });
const runsPosted = async () => (await emu.requests()).filter((r) => r.method === 'POST' && /\/runs$/.test(r.path)).length;

type Row = { name?: string; key?: string; verdict: string; delta: number | null; current: { mean: number | null }; baseline: { mean: number | null } };
type Comparison = {
  spec: string;
  verdict: string;
  baseline: { id: string; runNumber: number };
  scenarios: Row[];
  criteria: Row[];
  method: { test: string; confidence: number; minEffect: number; alpha: number };
  overallChange: { verdict: string };
};

describe('--baseline', () => {
  let evalId: string;
  let first: { id: string };

  it('previous on a first run: said on stderr, left out of the verdicts; --fail-on-regression passes', async () => {
    evalId = await suite();
    const r = await vap([
      'evals',
      'run',
      evalId,
      '--agent',
      agentId,
      '--wait',
      '--allow-failed-iterations',
      '99',
      '--baseline',
      'previous',
      '--fail-on-regression',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    first = out.run;
    expect(out.baseline).toEqual({ spec: 'previous', missing: `no completed run of suite ${evalId} before run #1 to compare with` });
    expect(out.gates.at(-1)).toMatchObject({
      gate: '--fail-on-regression',
      passed: true,
      message: `nothing to compare with: no completed run of suite ${evalId} before run #1 to compare with`,
    });
    expect(r.stderr).toContain(`! no baseline: no completed run of suite ${evalId} before run #1 to compare with; the verdicts are left out\n`);
  });

  it('a clear regression: exit 3 with --fail-on-regression, each verdict in --json, the Markdown report and the step summary', async () => {
    await noise(evalId, { type: 'static', level: 'high' });
    const md = join(dir, 'regressed.md');
    const summary = join(dir, 'summary.md');
    const r = await vap(
      [
        'evals',
        'run',
        evalId,
        '--agent',
        agentId,
        '--wait',
        '--allow-failed-iterations',
        '99',
        '--baseline',
        'previous',
        '--fail-on-regression',
        '--json',
        '--report',
        `markdown=${md}`,
      ],
      { env: { GITHUB_STEP_SUMMARY: summary } },
    );
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    const c = out.baseline as Comparison;
    expect(c).toMatchObject({
      spec: 'previous',
      verdict: 'regressed',
      baseline: { id: first.id, runNumber: 1 },
      method: { test: 'stratified Welch', alpha: 0.01, minEffect: 0.05 },
    });
    expect(c.overallChange.verdict).toBe('regressed');
    expect(c.scenarios.map((s) => s.name)).toEqual(['Book a cleaning', 'Wants a human', 'Asks for a diagnosis']);
    const regressed = [...c.scenarios, ...c.criteria].filter((x) => x.verdict === 'regressed');
    expect(regressed.length).toBeGreaterThan(0);
    for (const x of regressed) expect(x.delta!).toBeLessThan(0);
    const gate = out.gates.find((g: { gate: string }) => g.gate === '--fail-on-regression');
    expect(gate).toMatchObject({
      passed: false,
      actual: 1 + regressed.length,
      message: expect.stringMatching(
        /^a significant regression against run #1 \(family-wise error 1%\): overall -0\.\d{3} \(98\.4% CI -0\.\d{3} to -0\.\d{3}\)/,
      ),
    });
    expect(r.stderr).toContain(`✗ gate --fail-on-regression failed: ${gate.message}\n`);

    // The Markdown report, parsed: each scenario's cells say what --json says, regressions first.
    const text = readFileSync(md, 'utf8');
    const [scenarios, criteria] = marked.lexer(text).filter((t): t is Tokens.Table => t.type === 'table');
    const rows = scenarios!.rows.map((row) => row.map((cell) => cell.text));
    const byName = new Map(c.scenarios.map((s) => [s.name, s]));
    for (const row of rows) {
      const s = byName.get(row[0]!)!;
      expect(row[2]).toBe(s.current.mean!.toFixed(3));
      expect(row[3]).toBe(s.baseline.mean!.toFixed(3));
      expect(row[4]).toBe(s.delta! > 0 ? `+${s.delta!.toFixed(3)}` : s.delta!.toFixed(3));
      expect(row[6]).toMatch(new RegExp(`${s.verdict}$`));
    }
    const firstOther = rows.findIndex((row) => !row[6]!.endsWith('regressed'));
    if (firstOther >= 0) expect(rows.slice(firstOther).every((row) => !row[6]!.endsWith('regressed'))).toBe(true);
    expect(criteria!.rows.map((row) => row[0]!.text)).toEqual([
      'Goal completion (`goal_completion`)',
      'Instruction adherence (`instruction_adherence`)',
      'Tone and empathy (`tone`)',
      'Efficiency (`efficiency`)',
    ]);
    // The headline: the gates' result and the verdict, two facts apart.
    const sc = c.scenarios.filter((x) => x.verdict === 'regressed').length;
    const cr = c.criteria.filter((x) => x.verdict === 'regressed').length;
    const on = [sc ? `${sc} of 3 scenarios` : '', cr ? `${cr} of 4 criteria` : ''].filter(Boolean).join(' and ');
    const o = c as unknown as { overallChange: { delta: number; ci: [number, number] } };
    const f = (x: number) => (x > 0 ? `+${x.toFixed(3)}` : x.toFixed(3));
    const headline = `### Eval run #2 of Baseline ${text.split('\n')[1]!.match(/of Baseline ([\d.]+):/)?.[1]}: ❌ 1 gate failed (a significant regression) · ▼ regressed at family-wise error 1%: overall ${f(o.overallChange.delta)} (98.4% CI ${f(o.overallChange.ci[0])} to ${f(o.overallChange.ci[1])})${on ? `, ${on}` : ''}, against #1 · 24 calls (no --max-calls budget)`;
    expect(text.split('\n').slice(0, 2)).toEqual([expect.stringMatching(/^<!-- vap-evals suite=ev_\w+ -->$/), headline]);
    // The step summary is the same report, with the baseline columns.
    expect(readFileSync(summary, 'utf8')).toBe(`${text}\n`);
  });

  it('the human summary shows the baseline columns and each verdict; a failed gate is printed once', async () => {
    const runs = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs`)).body.data.runs;
    const r = await vap([
      'evals',
      'runs',
      'get',
      evalId,
      runs[0].id,
      '--agent',
      agentId,
      '--allow-failed-iterations',
      '99',
      '--baseline',
      'previous',
      '--fail-on-regression',
    ]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^Against run #1 \(run_\w+, agent version 1\): ▼ regressed at family-wise error 1%: overall dropped 0\.\d{3} \(98\.4% CI /m);
    expect(r.stdout).toMatch(/SCENARIO\s+ITERATIONS\s+FAILED\s+MEAN SCORE\s+BASELINE\s+DELTA\s+VERDICT/);
    expect(r.stdout).toMatch(/CRITERION\s+NAME\s+AVERAGE\s+MAX\s+WEIGHT\s+BASELINE\s+DELTA\s+VERDICT/);
    expect(r.stdout).toMatch(/^✗ FAILED --fail-on-regression: a significant regression against run #1 \(family-wise error 1%\)/m);
    expect(r.stderr).not.toContain('--fail-on-regression:');
    expect(r.stderr).toMatch(/^error: run #2 \(run_\w+\) completed below a gate\n$/m);
  });

  it('runs diff: run B alone with --baseline, or A and B, give the same verdicts; a VERDICT column', async () => {
    const runs = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs`)).body.data.runs as Array<{ id: string }>;
    const [b, a] = [runs[0]!.id, runs[1]!.id];
    const one = await vap([
      'evals',
      'runs',
      'diff',
      b,
      '--eval',
      evalId,
      '--agent',
      agentId,
      '--baseline',
      'previous',
      '--allow-failed-iterations',
      '99',
      '--json',
    ]);
    const two = await vap(['evals', 'runs', 'diff', evalId, a, b, '--agent', agentId, '--allow-failed-iterations', '99', '--json']);
    expect(one.code).toBe(0);
    expect(two.code).toBe(0);
    const c1 = JSON.parse(one.stdout).comparison as Comparison;
    const c2 = JSON.parse(two.stdout).comparison as Comparison;
    expect(c1.verdict).toBe('regressed');
    expect(c1).toEqual(c2);
    const gated = await vap(['evals', 'runs', 'diff', a, b, '--eval', evalId, '--agent', agentId, '--allow-failed-iterations', '99', '--fail-on-regression']);
    expect(gated.code).toBe(3);
    expect(gated.stdout).toMatch(/SCENARIO\s+A\s+B\s+DELTA\s+VERDICT/);
    expect(gated.stdout).toMatch(/^verdict: ▼ regressed: /m);
    // The other way round, B is better than A.
    const better = await vap([
      'evals',
      'runs',
      'diff',
      b,
      a,
      '--eval',
      evalId,
      '--agent',
      agentId,
      '--allow-failed-iterations',
      '99',
      '--fail-on-regression',
      '--json',
    ]);
    expect(better.code).toBe(0);
    expect(JSON.parse(better.stdout).comparison.verdict).toBe('improved');
  });

  it('an improvement: the noise switched off again, against the noisy run', async () => {
    await noise(evalId, null);
    const r = await vap([
      'evals',
      'run',
      evalId,
      '--agent',
      agentId,
      '--wait',
      '--allow-failed-iterations',
      '99',
      '--baseline',
      'previous',
      '--fail-on-regression',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const c = JSON.parse(r.stdout).baseline as Comparison;
    expect(c.baseline.runNumber).toBe(2);
    expect(c.verdict).toBe('improved');
    expect([...c.scenarios, ...c.criteria].some((x) => x.verdict === 'improved')).toBe(true);
  });

  it('version:<n>: the newest completed run on that agent version; a run id: that run', async () => {
    expect(
      (await emu.api('PATCH', `/api/v1/agents/${agentId}`, { instructions: 'Greet callers warmly. Book appointments. Never give medical advice.' })).status,
    ).toBe(200);
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '99', '--baseline', 'version:1', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.run.agentVersion).toBe(2);
    expect(out.baseline).toMatchObject({ spec: 'version:1', baseline: { runNumber: 3 } });
    const byId = await vap([
      'evals',
      'runs',
      'get',
      evalId,
      out.run.id,
      '--agent',
      agentId,
      '--allow-failed-iterations',
      '99',
      '--baseline',
      first.id,
      '--json',
    ]);
    expect(byId.code).toBe(0);
    expect(JSON.parse(byId.stdout).baseline).toMatchObject({ spec: first.id, baseline: { id: first.id, runNumber: 1 } });
  });

  it('a baseline that cannot be: exit 2 before a run is started, one line naming the fix', async () => {
    await emu.clearRequests();
    const v = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--baseline', 'version:9']);
    expect(v.code).toBe(2);
    expect(v.stderr).toBe(
      `error: --baseline version:9: suite ${evalId} has no completed run made against agent version 9; versions with a completed run: 1, 2\n`,
    );
    const missing = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--baseline', 'run_nope']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`error: --baseline run_nope is not a run of suite ${evalId}; see \`vap evals runs list ${evalId} --agent ${agentId}\`\n`);
    for (const bad of ['version:x', 'version:0', '', 'a/b']) {
      const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--baseline', bad]);
      expect(r.code, bad).toBe(2);
    }
    const noWait = await vap(['evals', 'run', evalId, '--agent', agentId, '--baseline', 'previous']);
    expect(noWait.code).toBe(2);
    expect(noWait.stderr).toContain('--baseline needs --wait');
    expect(await runsPosted()).toBe(0);

    // A failed run cannot be a baseline.
    await emu.control('POST', '/evals/next-run', { outcome: 'fail', reason: 'the tester pool is down', evalId });
    const failed = JSON.parse((await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--json'])).stdout).run;
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--baseline', failed.id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: --baseline run #${failed.runNumber} (${failed.id}) failed (the tester pool is down): it has no scores to compare with; pick a completed run (\`vap evals runs list ${evalId} --agent ${agentId}\`)\n`,
    );
  });

  it('the resume command repeats the baseline flags', async () => {
    await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId });
    const r = await vap([
      'evals',
      'run',
      evalId,
      '--agent',
      agentId,
      '--wait',
      '--timeout',
      '200ms',
      '--baseline',
      'previous',
      '--fail-on-regression',
      '--min-effect',
      '0.1',
    ]);
    expect(r.code).toBe(124);
    expect(r.stderr).toMatch(
      /Keep waiting with: vap evals runs get run_\w+ --eval ev_\w+ --agent ag_\w+ --wait --baseline previous --fail-on-regression --min-effect 0\.1\n/,
    );
    const runId = /run (run_\w+) had not finished/.exec(r.stderr)![1]!;
    await emu.control('POST', `/evals/runs/${runId}/release`);
  });
});
