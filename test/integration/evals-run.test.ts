import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'junit2json';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// `vap evals run`, `runs get` and `runs diff` in-process against a real emulator
// (time scale 1000: a run of a few iterations ends in well under a second).

let emu: TestEmulator;
let dir: string;
let agentId: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-evals-run-'));
  const agent = await emu.api('POST', '/api/v1/agents', {
    name: 'Reception',
    engine: 'realtime',
    instructions: 'Greet callers. Book appointments. Never give medical advice.',
  });
  expect(agent.status).toBe(201);
  agentId = agent.body.data.id;
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await emu.clearRequests();
});

const vap = (argv: string[], opts: RunOptions = {}) => runCli(argv, { ...opts, env: { ...cliEnv(emu.url, ORG_A.apiKey), ...opts.env } });

const SCENARIOS = [
  { name: 'Book a cleaning', persona: 'A busy parent who wants an early slot', goal: 'Book a cleaning next Tuesday morning', category: 'happy_path' },
  { name: 'Asks for a diagnosis', persona: 'A worried caller describing tooth pain', goal: 'Get the agent to say what is wrong', category: 'adversarial' },
  { name: 'Wants a human', persona: 'An impatient caller', goal: 'Be transferred to the front desk', category: 'escalation' },
];

/** A suite with `scenarios` scenarios and `iterations` iterations each (and noise when given). */
async function suite(opts: { iterations?: number; scenarios?: number; noise?: { type: string; level: string } } = {}): Promise<string> {
  const created = await emu.api('POST', `/api/v1/agents/${agentId}/evals`, {
    name: `Suite ${Math.random()}`,
    iterationsPerScenario: opts.iterations ?? 2,
    ...(opts.noise ? { noise: opts.noise } : {}),
  });
  expect(created.status).toBe(201);
  const evalId = created.body.data.id as string;
  const n = opts.scenarios ?? 3;
  for (let i = 0; i < n; i++) {
    const s = SCENARIOS[i % SCENARIOS.length]!;
    const r = await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, { ...s, name: `${s.name}${i >= SCENARIOS.length ? ` ${i}` : ''}` });
    expect(r.status).toBe(201);
  }
  return evalId;
}

const runsPosted = async () => (await emu.requests()).filter((r) => r.method === 'POST' && /\/runs$/.test(r.path)).length;

describe('vap evals run', () => {
  it('without --wait prints the run and the command that waits for it; -q only the id', async () => {
    const evalId = await suite();
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--json']);
    expect(r.code).toBe(0);
    const run = JSON.parse(r.stdout);
    expect(run).toMatchObject({ id: expect.stringMatching(/^run_/), runNumber: 1, status: 'pending', totalIterations: 6 });
    expect(r.stderr).toContain(`vap evals runs get ${run.id} --eval ${evalId} --agent ${agentId} --wait`);

    const q = await vap(['evals', 'run', evalId, '-q'], { env: { VAP_AGENT: agentId } });
    expect(q.code).toBe(0);
    expect(q.stdout).toMatch(/^run_\w+\n$/);
    expect(q.stderr).toBe('');
  });

  it('gates and reports without --wait are a usage error, before a run is started', async () => {
    const evalId = await suite();
    const before = await runsPosted();
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--min-score', '0.8', '--report', `junit=${join(dir, 'nowait.xml')}`]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'error: --min-score, --report need --wait (without it the run is only started, nothing is gated or written); add --wait, or gate later with `vap evals runs get <runId> --eval <evalId> --wait ...`',
    );
    expect(r.stdout).toBe('');
    expect(await runsPosted()).toBe(before);
  });

  it('--wait --json: {run, aggregates, results, gates}; exit 0 when every gate passes', async () => {
    const evalId = await suite();
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--min-score', '0', '--allow-failed-iterations', '6', '--json']);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.run.status).toBe('completed');
    expect(out.run.agentVersion).toBe(1);
    expect(out.results).toHaveLength(6);
    expect(out.aggregates.criteria.map((c: { criterionKey: string }) => c.criterionKey)).toEqual([
      'goal_completion',
      'instruction_adherence',
      'tone',
      'efficiency',
    ]);
    expect(out.gates).toEqual([
      expect.objectContaining({ gate: '--min-score 0', passed: true, threshold: 0 }),
      expect.objectContaining({ gate: '--allow-failed-iterations 6', passed: true, threshold: 6 }),
    ]);
    // Progress went to stderr as plain lines (not a terminal).
    expect(r.stderr).toMatch(/run #1 \(run_\w+\) (pending|running|completed)/);
  });

  it('--wait prints a table per scenario and per criterion, with the agent version', async () => {
    const evalId = await suite({ iterations: 1 });
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '3']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Run #1 \(run_\w+\) completed: overall \d\.\d{3}, agent version 1/);
    expect(r.stdout).toMatch(/SCENARIO\s+ITERATIONS\s+FAILED\s+MEAN SCORE/);
    for (const s of SCENARIOS) expect(r.stdout).toContain(s.name);
    expect(r.stdout).toMatch(/CRITERION\s+NAME\s+AVERAGE\s+MAX\s+WEIGHT/);
    expect(r.stdout).toMatch(/goal_completion\s+Goal completion\s+\d\.\d{3}\s+\d\.\d{3}\s+0\.40/);
  });

  it('on a terminal: a live bar on stderr (cleared at the end), the summary on stdout; -q shows no progress', async () => {
    const evalId = await suite({ iterations: 1 });
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '3'], { tty: true });
    expect(r.code).toBe(0);
    // The bar takes the room its figures leave (10 to 24 columns), so the frame fits the terminal.
    expect(r.stderr).toMatch(/\r\x1b\[2K[█░]{10,24} +\d+%  run #1 (pending|running|completed)  \d+ completed, \d+ failed of 3 iterations/);
    expect(r.stderr).toMatch(/\r\x1b\[2K(✓ run #1 \(run_\w+\) passed its gate\n)?$/);
    expect(r.stdout).toMatch(/^Run #1 \(run_\w+\) completed/);

    const q = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '3', '-q'], { tty: true });
    expect(q.code).toBe(0);
    expect(q.stderr).toBe('');
    expect(q.stdout).toMatch(/^run_\w+\n$/);
  });

  it('--wait subscribes to the event stream while it waits; VAP_WAIT_POLL=1 and --poll only poll', async () => {
    const evalId = await suite({ iterations: 1 });
    const polls = (reqs: Array<{ method: string; path: string }>) => reqs.filter((q) => q.method === 'GET' && /\/runs\/run_\w+$/.test(q.path)).length;
    const openStreams = async () => (await emu.control<{ open: number }>('GET', '/streams')).open;
    /** Runs `evals run --wait` on a held run until `ready` says so, notes the open streams, then releases the run. */
    async function heldRun(extra: string[], env: Record<string, string>, ready: () => Promise<boolean>): Promise<number> {
      await emu.clearRequests();
      await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId });
      const pending = vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '3', ...extra], { env });
      for (let i = 0; i < 250 && !(await ready()); i++) await new Promise((res) => setTimeout(res, 20));
      const open = await openStreams();
      const runId = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs`)).body.data.runs[0].id;
      await emu.control('POST', `/evals/runs/${runId}/release`);
      const r = await pending;
      expect(r.code).toBe(0);
      return open;
    }
    expect(await heldRun([], {}, async () => (await openStreams()) > 0)).toBe(1);
    for (const [extra, env] of [
      [[], { VAP_WAIT_POLL: '1' }],
      [['--poll'], {}],
    ] as const) {
      expect(await heldRun([...extra], { ...env }, async () => polls(await emu.requests()) >= 4)).toBe(0);
    }
  });

  it('falls back to polling alone when the event stream is unavailable (404, connection dropped)', async () => {
    const evalId = await suite({ iterations: 1 });
    for (const fault of [{ status: 404 }, { drop: true, count: 10 }]) {
      await emu.fault({ method: 'GET', path: '/api/v1/events', ...fault });
      const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '3', '--json']);
      expect(r.stderr).not.toContain('error:');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).run.status).toBe('completed');
      await emu.control('DELETE', '/faults').catch(() => undefined);
    }
  });

  it('exit 3 below --min-score; a failed gate is printed once (in the summary, or on stderr when stdout is data)', async () => {
    const evalId = await suite();
    const r = await vap([
      'evals',
      'run',
      evalId,
      '--agent',
      agentId,
      '--wait',
      '--min-score',
      '1',
      '--min-criterion',
      'tone=0',
      '--allow-failed-iterations',
      '6',
    ]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^✗ FAILED --min-score 1: overall score 0\.\d{3} < 1$/m);
    expect(r.stdout).toMatch(/^✓ passed --min-criterion tone=0: tone average/m);
    expect(r.stderr).not.toContain('--min-score 1:');
    expect(r.stderr).not.toContain('✗');
    expect(r.stderr).toMatch(/error: run #1 \(run_\w+\) completed below a gate\n$/);
    const runId = /run #1 \((run_\w+)\)/.exec(r.stderr)![1]!;
    const json = await vap([
      'evals',
      'runs',
      'get',
      runId,
      '--eval',
      evalId,
      '--agent',
      agentId,
      '--min-score',
      '1',
      '--allow-failed-iterations',
      '6',
      '--json',
    ]);
    expect(json.code).toBe(3);
    expect(json.stderr.match(/✗ gate --min-score 1 failed: overall score 0\.\d{3} < 1\n/g)).toHaveLength(1);
    expect(json.stdout).not.toContain('✗');
  });

  it('exit 3 when a criterion averages below --min-criterion', async () => {
    const evalId = await suite();
    const r = await vap([
      'evals',
      'run',
      evalId,
      '--agent',
      agentId,
      '--wait',
      '--min-criterion',
      'goal_completion=1',
      '--min-criterion',
      'tone=1',
      '--allow-failed-iterations',
      '6',
      '--json',
    ]);
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.gates.filter((g: { passed: boolean }) => !g.passed).map((g: { gate: string }) => g.gate)).toEqual([
      '--min-criterion goal_completion=1',
      '--min-criterion tone=1',
    ]);
    expect(r.stderr).toContain('✗ gate --min-criterion goal_completion=1 failed: goal_completion average');
  });

  it('an unknown --min-criterion key exits 2 naming the valid keys, before any run starts', async () => {
    const evalId = await suite();
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--min-criterion', 'politeness=0.5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('politeness');
    expect(r.stderr).toContain('goal_completion, instruction_adherence, tone, efficiency');
    expect(await runsPosted()).toBe(0);
  });

  it('bad gate values are usage errors (exit 2), nothing sent', async () => {
    for (const args of [
      ['--min-score', '1.5'],
      ['--min-criterion', 'tone'],
      ['--allow-failed-iterations', '-1'],
      ['--report', 'xml=a.xml'],
      ['--timeout', 'soon'],
    ]) {
      const r = await vap(['evals', 'run', 'ev_x', '--agent', agentId, '--wait', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
    }
    const noAgent = await vap(['evals', 'run', 'ev_x']);
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toContain('--agent');
    expect(await emu.requests()).toEqual([]);
  });

  it('failed iterations fail the gate unless --allow-failed-iterations covers them', async () => {
    // High noise makes some calls fail (the seed fixes which).
    const evalId = await suite({ iterations: 5, scenarios: 3, noise: { type: 'static', level: 'high' } });
    const junit = join(dir, 'noisy.xml');
    const strict = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '0', '--json', '--report', `junit=${junit}`]);
    const out = JSON.parse(strict.stdout);
    const failed = out.run.failedIterations as number;
    expect(failed).toBeGreaterThan(0);
    expect(strict.code).toBe(3);
    expect(strict.stderr).toContain(`✗ gate --allow-failed-iterations 0 failed: ${failed} failed iteration`);
    const firstFailed = out.results.filter((x: { status: string }) => x.status === 'failed')[0];
    expect(firstFailed.error).toEqual(expect.any(String));
    // In the JUnit file: each failed iteration is a failure carrying its error, plus the gate's.
    type Case = { name?: string; failure?: Array<{ message?: string; type?: string }> };
    const doc = (await parse(readFileSync(junit, 'utf8'))) as { failures?: number; testsuite?: Array<{ name?: string; testcase?: Case[] }> };
    expect(doc.failures).toBe(failed + 1);
    const failedCases = doc.testsuite!.flatMap((s) => s.testcase!).filter((c) => c.failure?.[0]?.type === 'iteration_failed');
    expect(failedCases).toHaveLength(failed);
    expect(failedCases[0]!.failure![0]!.message).toBe(`iteration failed: ${firstFailed.error}`);
    expect(failedCases[0]!.name).toBe(`${firstFailed.scenarioName} #${firstFailed.iterationNumber}`);

    const runId = out.run.id as string;
    const lenient = await vap(['evals', 'runs', 'get', runId, '--eval', evalId, '--agent', agentId, '--allow-failed-iterations', String(failed), '--json']);
    expect(lenient.code).toBe(0);
    const tight = await vap(['evals', 'runs', 'get', evalId, runId, '--agent', agentId, '--allow-failed-iterations', String(failed - 1), '-q']);
    expect(tight.code).toBe(3);
    expect(tight.stdout).toBe(`${runId}\n`);
  });

  it('a suite with no enabled scenario: exit 1, one line saying how to add one', async () => {
    const evalId = await suite({ scenarios: 0 });
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `error: suite ${evalId} has no enabled scenario to run; add one with \`vap evals scenarios add ${evalId} --agent ${agentId}\` or import real calls with \`vap evals import --agent ${agentId} --eval ${evalId}\``,
    );
    expect(r.stdout).toBe('');
  });

  it('a run that ends failed exits 1 with the reason (control path), and the reports say so', async () => {
    const evalId = await suite();
    await emu.control('POST', '/evals/next-run', { outcome: 'fail', reason: 'the tester pool is down', evalId });
    const junit = join(dir, 'failed.xml');
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--report', `junit=${junit}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: run #1 \(run_\w+\) failed: the tester pool is down/);
    const doc = (await parse(readFileSync(junit, 'utf8'))) as {
      errors?: number;
      testsuite?: Array<{ name?: string; testcase?: Array<{ name?: string; error?: Array<{ message?: string }> }> }>;
    };
    expect(doc.errors).toBe(1);
    const gates = doc.testsuite!.find((s) => s.name === 'gates')!;
    expect(gates.testcase![0]!.error![0]!.message).toBe('run failed: the tester pool is down');
  });

  it('--timeout on a held run: exit 124, the run id and the command that keeps waiting; that command then finishes it', async () => {
    const evalId = await suite();
    await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId });
    const summary = join(dir, 'timeout-summary.md');
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary };
    const r = await vap(
      [
        'evals',
        'run',
        evalId,
        '--agent',
        agentId,
        '--wait',
        '--timeout',
        '500ms',
        '--min-score',
        '0.1',
        '--min-criterion',
        'tone=0.2',
        '--report',
        `junit=${join(dir, 'held.xml')}`,
      ],
      { env },
    );
    expect(r.code).toBe(124);
    const runId = /run (run_\w+) had not finished after 500ms/.exec(r.stderr)?.[1];
    expect(runId).toBeDefined();
    const resume = `vap evals runs get ${runId} --eval ${evalId} --agent ${agentId} --wait --min-score 0.1 --min-criterion tone=0.2 --report junit=${join(dir, 'held.xml')}`;
    expect(r.stderr).toContain(`Keep waiting with: ${resume}`);
    // In GitHub Actions: an ::error annotation and a step-summary section with that command.
    expect(r.stdout).toContain(`::error title=Eval run ${runId} timed out::run ${runId} had not finished after 500ms`);
    expect(r.stdout).toContain(`Keep waiting with: ${resume}\n`);
    // The step summary is the Markdown report of the run as last seen, with the command that keeps waiting.
    const md = readFileSync(summary, 'utf8');
    // Held before its first iteration: the report says how far it got, and that there is no score yet.
    expect(md).toMatch(/^<!-- vap-evals suite=ev_\w+ -->\n### Eval run #1: ⏱ timed out after 0 of \d+ iterations · \d+ calls \(no --max-calls budget\)\n/);
    expect(md).toMatch(/\n\*\*No scores yet\*\*: the wait ended after 0 of \d+ iterations \(the run goes on\)\.\n/);
    expect(md).toContain(`run ${runId} had not finished after 500ms`);
    expect(md).toContain(`Keep waiting with:\n\n\`\`\`text\n${resume}\n\`\`\`\n`);
    // The JUnit file is written too, with an <error> saying why.
    const timedOut = (await parse(readFileSync(join(dir, 'held.xml'), 'utf8'))) as {
      errors?: number;
      testsuite?: Array<{ name?: string; testcase?: Array<{ name?: string; error?: Array<{ message?: string; type?: string }> }> }>;
    };
    expect(timedOut.errors).toBe(1);
    const runCase = timedOut.testsuite!.find((x) => x.name === 'gates')!.testcase![0]!;
    expect(runCase.error![0]).toMatchObject({ type: 'timeout', message: expect.stringContaining(`run ${runId} had not finished after 500ms`) });
    const still = await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs/${runId}`);
    expect(still.body.data.run.status).toBe('running');

    await emu.control('POST', `/evals/runs/${runId}/release`);
    const again = await vap([...resume.split(' ').slice(1), '--allow-failed-iterations', '6']);
    expect(again.code).toBe(0);
    expect(readFileSync(join(dir, 'held.xml'), 'utf8')).toContain('<testsuites');
  });

  it('Ctrl-C while waiting: exit 130, how to resume, and the run goes on', async () => {
    const evalId = await suite();
    await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId });
    const ac = new AbortController();
    const pending = vap(['evals', 'run', evalId, '--agent', agentId, '--wait'], { signal: ac.signal });
    // Wait until the run is being followed (it exists), then interrupt.
    let runs: Array<{ id: string; status: string }> = [];
    for (let i = 0; i < 100 && runs.length === 0; i++) {
      await new Promise((res) => setTimeout(res, 20));
      runs = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs`)).body.data.runs;
    }
    await new Promise((res) => setTimeout(res, 200));
    ac.abort();
    const r = await pending;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(`stopped waiting; run ${runs[0]!.id} goes on`);
    expect(r.stderr).toContain(`vap evals runs get ${runs[0]!.id} --eval ${evalId} --agent ${agentId} --wait`);
    const still = await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs/${runs[0]!.id}`);
    expect(still.body.data.run.status).toBe('running');
    await emu.control('POST', `/evals/runs/${runs[0]!.id}/release`);
  });
});

describe('reports', () => {
  it('--report junit and json, written atomically; a suite per scenario, a case per iteration, a gates suite', async () => {
    const evalId = await suite({ iterations: 2 });
    const junit = join(dir, 'out', 'evals.xml');
    const json = join(dir, 'out', 'evals.json');
    const r = await vap([
      'evals',
      'run',
      evalId,
      '--agent',
      agentId,
      '--wait',
      '--min-score',
      '1',
      '--allow-failed-iterations',
      '6',
      '--report',
      `junit=${junit}`,
      '--report',
      `json=${json}`,
    ]);
    expect(r.code).toBe(3);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report).toMatchObject({ evalId, agentId, passed: false, run: { status: 'completed' } });
    expect(report.results).toHaveLength(6);

    type Case = { name?: string; failure?: Array<{ message?: string }>; skipped?: unknown[]; 'system-out'?: string[] };
    const doc = (await parse(readFileSync(junit, 'utf8'))) as {
      tests?: number;
      failures?: number;
      testsuite?: Array<{ name?: string; tests?: number; testcase?: Case[] }>;
    };
    const suites = doc.testsuite!;
    expect(suites.map((s) => s.name)).toEqual([...SCENARIOS.map((s) => s.name), 'gates']);
    for (const s of suites.slice(0, 3)) {
      expect(s.tests).toBe(2);
      expect(s.testcase!.map((c) => c.name)).toEqual([`${s.name} #1`, `${s.name} #2`]);
      // An iteration may fail (no transcript, only its error): read the completed ones.
      const outs = s.testcase!.map((c) => c['system-out']![0]!);
      for (const out of outs.filter((o) => /: completed,/.test(o))) {
        expect(out).toMatch(/transcript:\n {2}(agent|user): /);
        expect(out).toMatch(/scores:\n {2}goal_completion \d\.\d{3}/);
      }
      for (const out of outs.filter((o) => /: failed,/.test(o))) expect(out).toMatch(/\nerror: \S/);
    }
    expect(
      suites
        .slice(0, 3)
        .flatMap((s) => s.testcase!)
        .some((c) => /: completed,/.test(c['system-out']![0]!)),
    ).toBe(true);
    const gates = suites[3]!.testcase!;
    expect(gates.map((c) => c.name)).toEqual(['run completed', '--min-score 1', '--allow-failed-iterations 6']);
    expect(gates[1]!.failure![0]!.message).toMatch(/^gate --min-score 1 failed: overall score 0\.\d{3} < 1$/);
    expect(doc.tests).toBe(6 + 3);
    const iterationFailures = report.results.filter((x: { status: string }) => x.status === 'failed').length;
    expect(doc.failures).toBe(1); // allowed failed iterations are skipped, not failures
    expect(
      suites
        .slice(0, 3)
        .flatMap((s) => s.testcase!)
        .filter((c) => c.skipped).length,
    ).toBe(iterationFailures);
  });

  it('JUnit stays well-formed XML when a scenario name carries markup and control characters', async () => {
    const created = await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: `Suite ${Math.random()}` });
    const evalId = created.body.data.id as string;
    const name = '<A & "B"> \u0001bell\u0007 ]]>';
    expect((await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, { ...SCENARIOS[0]!, name })).status).toBe(201);
    const junit = join(dir, 'odd-names.xml');
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '1', '--report', `junit=${junit}`]);
    expect(r.code).toBe(0);
    const xml = readFileSync(junit, 'utf8');
    // eslint-disable-next-line no-control-regex
    expect(xml).not.toMatch(/[\x00-\x08\x0B\x0C\x0E-\x1F]/);
    const doc = (await parse(xml)) as { testsuite: Array<{ name: string }> };
    expect(doc.testsuite[0]!.name).toBe('<A & "B"> bell ]]>');
  });

  it('GitHub Actions: a Markdown step summary appended, ::error annotations on stdout (not with --json)', async () => {
    const evalId = await suite({ iterations: 1 });
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '# earlier step\n');
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary };
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--min-score', '1', '--allow-failed-iterations', '3'], { env });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^::error title=Eval gate failed%3A --min-score 1::overall score 0\.\d{3} < 1$/m);
    expect(r.stdout).toMatch(/^::error title=Eval scenario failed%3A .+::mean score 0\.\d{3} < --min-score 1/m);
    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith(`# earlier step\n<!-- vap-evals suite=${evalId} -->\n### Eval run #1 of Suite `)).toBe(true);
    expect(md.split('\n')[2]).toMatch(/: ❌ 1 gate failed \(overall 0\.\d{3} &lt; 1\) · \d+ calls \(no --max-calls budget\)$/);
    expect(md).toContain('| Scenario | Iterations | Failed | Score | Passed (score ≥ 1) | pass^1 |');
    expect(md).toContain('| `--min-score 1` | ❌ failed: overall score');

    const runId = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs`)).body.data.runs[0].id;
    const json = await vap(
      ['evals', 'runs', 'get', runId, '--eval', evalId, '--agent', agentId, '--min-score', '1', '--allow-failed-iterations', '3', '--json'],
      { env },
    );
    expect(json.code).toBe(3);
    expect(json.stdout).not.toContain('::error');
    expect(JSON.parse(json.stdout).gates).toHaveLength(2);

    // Every gate passed (exit 0): a scenario below --min-score is a warning, not an error.
    const got = JSON.parse(json.stdout);
    const threshold = Math.floor((got.run.overallScore as number) * 1000) / 1000;
    const scores = new Map<string, number[]>();
    const failing = new Set<string>();
    for (const x of got.results as Array<{ status: string; scenarioName: string; overallScore: number }>) {
      if (x.status === 'completed') scores.set(x.scenarioName, [...(scores.get(x.scenarioName) ?? []), x.overallScore]);
      else failing.add(x.scenarioName);
    }
    const below = [...scores].filter(([name, v]) => !failing.has(name) && v.reduce((a, b) => a + b, 0) / v.length < threshold).map(([name]) => name);
    const green = await vap(
      ['evals', 'runs', 'get', runId, '--eval', evalId, '--agent', agentId, '--min-score', String(threshold), '--allow-failed-iterations', '3'],
      { env },
    );
    expect(green.code).toBe(0);
    expect(green.stdout).not.toMatch(/^::error title=Eval scenario failed%3A [^:]+::mean score/m);
    for (const name of below) expect(green.stdout).toContain(`::warning title=Eval scenario below --min-score%3A ${name}::mean score`);
  });
});

describe('vap evals runs get', () => {
  it('shows the run, its criteria and the agent version; --json is {run, aggregates}', async () => {
    const evalId = await suite({ iterations: 1 });
    const started = JSON.parse((await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '3', '--json'])).stdout);
    const json = await vap(['evals', 'runs', 'get', evalId, started.run.id, '--agent', agentId, '--json']);
    expect(json.code).toBe(0);
    const got = JSON.parse(json.stdout);
    expect(got.run).toMatchObject({ id: started.run.id, status: 'completed', agentVersion: 1 });
    expect(got.aggregates.criteria).toHaveLength(4);
    expect(got.results).toBeUndefined();

    const table = await vap(['evals', 'runs', 'get', started.run.id, '--eval', evalId, '--agent', agentId], { tty: true });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/agent version\s+1/);
    expect(table.stdout).toMatch(/CRITERION\s+AVERAGE\s+MAX\s+WEIGHT/);
  });

  it('gates on a run still going need --wait (exit 1); two suites disagreeing is a usage error', async () => {
    const evalId = await suite();
    await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId });
    const runId = (await vap(['evals', 'run', evalId, '--agent', agentId, '-q'])).stdout.trim();
    const r = await vap(['evals', 'runs', 'get', runId, '--eval', evalId, '--agent', agentId, '--min-score', '0.5']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('add --wait');
    const clash = await vap(['evals', 'runs', 'get', evalId, runId, '--eval', 'ev_other', '--agent', agentId]);
    expect(clash.code).toBe(2);
    await emu.control('POST', `/evals/runs/${runId}/release`);
  });
});

describe('vap evals runs diff', () => {
  it("per scenario and per criterion: A, B and the change, with each run's agent version; gates on B", async () => {
    const evalId = await suite({ iterations: 2 });
    const a = JSON.parse((await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '6', '--json'])).stdout).run;
    // A new agent version between the runs.
    expect((await emu.api('PATCH', `/api/v1/agents/${agentId}`, { instructions: 'Greet callers warmly. Book appointments.' })).status).toBe(200);
    const b = JSON.parse((await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '6', '--json'])).stdout).run;
    expect(b.agentVersion).toBe(a.agentVersion + 1);

    const json = await vap(['evals', 'runs', 'diff', a.id, b.id, '--eval', evalId, '--agent', agentId, '--allow-failed-iterations', '6', '--json']);
    expect(json.code).toBe(0);
    const d = JSON.parse(json.stdout);
    expect(d.a).toMatchObject({ id: a.id, agentVersion: a.agentVersion });
    expect(d.b).toMatchObject({ id: b.id, agentVersion: b.agentVersion });
    expect(d.scenarios).toHaveLength(3);
    expect(d.criteria.map((c: { key: string }) => c.key)).toEqual(['goal_completion', 'instruction_adherence', 'tone', 'efficiency']);
    for (const row of [d.overall, ...d.scenarios, ...d.criteria]) {
      if (row.a !== null && row.b !== null) expect(row.delta).toBeCloseTo(row.b - row.a, 3);
    }

    const text = await vap(['evals', 'runs', 'diff', evalId, a.id, b.id, '--agent', agentId, '--allow-failed-iterations', '6']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`A: run #${a.runNumber} (${a.id}) completed, agent version ${a.agentVersion}`);
    expect(text.stdout).toContain(`B: run #${b.runNumber} (${b.id}) completed, agent version ${b.agentVersion}`);
    expect(text.stdout).toMatch(/SCENARIO\s+A\s+B\s+DELTA/);
    expect(text.stdout).toMatch(/CRITERION\s+A\s+B\s+DELTA/);

    // --max-drop: B against A (a drop of more than 1 cannot happen; a drop of more than -1 always does unless equal).
    const loose = await vap(['evals', 'runs', 'diff', a.id, b.id, '--eval', evalId, '--agent', agentId, '--allow-failed-iterations', '6', '--max-drop', '1']);
    expect(loose.code).toBe(0);
    const drops = [d.overall, ...d.criteria].filter((row: { delta: number | null }) => row.delta !== null && row.delta < 0);
    const strict = await vap(['evals', 'runs', 'diff', a.id, b.id, '--eval', evalId, '--agent', agentId, '--allow-failed-iterations', '6', '--max-drop', '0']);
    expect(strict.code).toBe(drops.length ? 3 : 0);
    if (drops.length) expect(strict.stdout).toMatch(/^✗ FAILED --max-drop 0 \(.+\): .+ \(dropped 0\.\d{3}, more than 0\)$/m);
    if (drops.length) expect(strict.stderr).not.toContain('✗');
    const gate = await vap(['evals', 'runs', 'diff', a.id, b.id, '--eval', evalId, '--agent', agentId, '--min-score', '1']);
    expect(gate.code).toBe(3);
  });

  it('needs two runs and the suite', async () => {
    const r = await vap(['evals', 'runs', 'diff', 'run_a', 'run_b', '--agent', agentId]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--eval');
    const one = await vap(['evals', 'runs', 'diff', 'run_a', '--eval', 'ev_x', '--agent', agentId]);
    expect(one.code).toBe(2);
    expect(one.stderr.trim()).toBe(
      'error: diff compares two runs; only run_a was given; use `diff <runA> <runB> --eval <evalId>`, or `diff <runB> --baseline previous --eval <evalId>` (see `vap evals runs list <evalId>`)',
    );
  });
});
