import { Chalk } from 'chalk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { renderChat } from '../../src/ui/chat.js';
import { renderResult } from '../../src/evals/render/results.js';
import { SPARK_BARS, sparkline } from '../../src/ui/sparkline.js';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// `vap evals runs list|results|delete` against a real emulator (issue 7), and the
// renderers behind them (sparkline, chat transcript).

let emu: TestEmulator;
let agent: string;
let suite: string;
/** Finished runs of `suite`, oldest first. */
const runs: Array<{ id: string; runNumber: number; status: string; overallScore: number | null }> = [];

const vap = (argv: string[], opts: RunOptions = {}, key = ORG_A.apiKey) => runCli(argv, { ...opts, env: { ...cliEnv(emu.url, key), ...opts.env } });
const base = () => `/api/v1/agents/${agent}/evals/${suite}`;

async function startRun(): Promise<string> {
  const r = await emu.api<{ data: { id: string } }>('POST', `${base()}/runs`);
  expect(r.status).toBe(201);
  return r.body.data.id;
}

/** Polls until the run has ended (the test emulator runs at time scale 1000). */
async function finished(runId: string): Promise<{ id: string; runNumber: number; status: string; overallScore: number | null }> {
  for (let i = 0; i < 600; i++) {
    const r = await emu.api<{ data: { run: { id: string; runNumber: number; status: string; overallScore: number | null } } }>(
      'GET',
      `${base()}/runs/${runId}`,
    );
    if (r.body.data.run.status === 'completed' || r.body.data.run.status === 'failed') return r.body.data.run;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`run ${runId} did not end`);
}

const SPARK = new RegExp(`^SCORE  ([${SPARK_BARS.join('')}]+)  `, 'm');

beforeAll(async () => {
  emu = await startTestEmulator();
  const a = await emu.api<{ data: { id: string } }>('POST', '/api/v1/agents', {
    name: 'Reception',
    instructions: 'Book and move appointments.',
    engine: 'realtime',
    variables: [],
  });
  agent = a.body.data.id;
  const s = await emu.api<{ data: { id: string } }>('POST', `/api/v1/agents/${agent}/evals`, { name: 'Booking', iterationsPerScenario: 2 });
  suite = s.body.data.id;
  for (const sc of [
    {
      name: 'Reschedule',
      persona: 'A patient booked for Monday who can only come on Friday afternoon',
      goal: 'Move the appointment to Friday afternoon',
      category: 'happy_path',
    },
    { name: 'Wrong number', persona: 'Someone who dialled by mistake', goal: 'Find out who they called and hang up politely', category: 'edge_case' },
  ]) {
    expect((await emu.api('POST', `${base()}/scenarios`, sc)).status).toBe(201);
  }
  // Three completed runs, then one the control path fails (no score): newest first is 4, 3, 2, 1.
  for (let i = 0; i < 3; i++) runs.push(await finished(await startRun()));
  await emu.control('POST', '/evals/next-run', { outcome: 'fail', reason: 'failed on purpose by the test', evalId: suite });
  runs.push(await finished(await startRun()));
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  await emu.clearRequests();
});

describe('vap evals runs list', () => {
  it('lists runs newest first; piped output is TSV with no sparkline', async () => {
    expect(runs.map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'failed']);
    const r = await vap(['evals', 'runs', 'list', suite, '--agent', agent]);
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((row) => row[0])).toEqual([...runs].reverse().map((x) => x.id));
    // No score: an empty field piped (a terminal shows `–`).
    expect(rows[0]!.slice(1, 5)).toEqual(['#4', 'failed', '', '0/4']);
    expect(rows[3]!.slice(1, 4)).toEqual(['#1', 'completed', runs[0]!.overallScore!.toFixed(3)]);
    expect(rows[3]![4]).toMatch(/^4\/4( \([1-3] failed\))?$/);
    for (const bar of SPARK_BARS) expect(r.stdout).not.toContain(bar);
  });

  it('ends the table with a sparkline of the overall score, oldest to newest, on a terminal', async () => {
    const r = await vap(['evals', 'runs', 'list', '--eval', suite, '--agent', agent], { tty: true });
    expect(r.code).toBe(0);
    // The table fits 80 columns (the right-most columns are left out when it would not); --wide has them all.
    expect(r.stdout).toMatch(/ID\s+RUN\s+STATUS\s+SCORE\s+ITERATIONS\s+AGENT VERSION/);
    for (const l of r.stdout.split('\n')) expect(l.length).toBeLessThanOrEqual(80);
    const wide = await vap(['evals', 'runs', 'list', '--eval', suite, '--agent', agent, '--wide'], { tty: true });
    expect(wide.stdout).toMatch(/ID\s+RUN\s+STATUS\s+SCORE\s+ITERATIONS\s+AGENT VERSION\s+CREATED/);
    const spark = r.stdout.match(SPARK);
    expect(spark, r.stdout).not.toBeNull();
    // One bar per scored run (the failed run has no score), in the order of the runs.
    expect([...spark![1]!]).toEqual([...sparkline(runs.slice(0, 3).map((x) => x.overallScore))]);
    expect(r.stdout).toContain(`${runs[0]!.overallScore!.toFixed(3)} → ${runs[2]!.overallScore!.toFixed(3)}`);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('over 3 scored runs (oldest → newest)');
    // The line after the table (wrapped under itself at 80 columns).
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[lines.length - 2]).toMatch(SPARK);

    const limited = await vap(['evals', 'runs', 'list', suite, '--agent', agent, '--limit', '2'], { tty: true });
    expect(limited.stdout).toContain('over 1 scored run (oldest → newest)');
  });

  it('prints no sparkline with --json, -q or --query', async () => {
    const json = await vap(['evals', 'runs', 'list', suite, '--agent', agent, '--json'], { tty: true });
    const list = JSON.parse(json.stdout);
    expect(list.map((x: { runNumber: number }) => x.runNumber)).toEqual([4, 3, 2, 1]);
    const q = await vap(['evals', 'runs', 'list', suite, '--agent', agent, '-q'], { tty: true });
    expect(q.stdout.trim().split('\n')).toHaveLength(4);
    const query = await vap(['evals', 'runs', 'list', suite, '--agent', agent, '--query', '[0].status'], { tty: true });
    expect(JSON.parse(query.stdout)).toBe('failed');
  });

  it('says how to start a run when there is none, and 404s for another tenant', async () => {
    const s = await emu.api<{ data: { id: string } }>('POST', `/api/v1/agents/${agent}/evals`, { name: 'Fresh', iterationsPerScenario: 1 });
    const r = await vap(['evals', 'runs', 'list', s.body.data.id, '--agent', agent], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`vap evals run ${s.body.data.id} --agent ${agent} --wait`);
    const foreign = await vap(['evals', 'runs', 'list', suite, '--agent', agent], {}, ORG_B.apiKey);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/HTTP 404/);
  });
});

describe('vap evals runs results', () => {
  it('--json gives the raw results, exactly what the API answers', async () => {
    const run = runs[2]!;
    const api = await emu.api<{ data: { results: unknown[] } }>('GET', `${base()}/runs/${run.id}/results`);
    const r = await vap(['evals', 'runs', 'results', suite, run.id, '--agent', agent, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(api.body.data.results);
    expect(api.body.data.results).toHaveLength(4);
    const other = await vap(['evals', 'runs', 'results', run.id, '--eval', suite, '--agent', agent, '-o', 'ndjson']);
    expect(
      other.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(api.body.data.results);
  });

  it('draws each call as a chat wrapped to the terminal width, with the scores and reasons', async () => {
    const run = runs[2]!;
    const results = (
      await emu.api<{
        data: {
          results: Array<{
            id: string;
            scenarioName: string;
            status: string;
            transcript: Array<{ role: string; text: string }>;
            criterionScores: Array<{ criterionKey: string; score: number; reason: string }>;
            error: string | null;
          }>;
        };
      }>('GET', `${base()}/runs/${run.id}/results`)
    ).body.data.results;
    const r = await vap(['evals', 'runs', 'results', suite, run.id, '--agent', agent], { tty: true, env: { COLUMNS: '64' } });
    expect(r.code).toBe(0);
    const out = r.stdout;
    for (const line of out.split('\n')) {
      if (!line.startsWith('━━')) expect(line.length, line).toBeLessThanOrEqual(64);
    }
    for (const res of results) {
      expect(out).toContain(res.id);
      if (res.status === 'completed') {
        expect(out).toMatch(/^ {2}agent {3}\S/m);
        expect(out).toMatch(/^ {2}caller {2}\S/m);
        // Every word of the transcript is there, in order, across the wrapped lines.
        const words = res.transcript.flatMap((t) => t.text.split(/\s+/).filter(Boolean));
        const flat = out.replace(/\s+/g, ' ');
        let at = flat.indexOf(res.id);
        for (const w of words.slice(0, 20)) {
          at = flat.indexOf(w, at);
          expect(at, w).toBeGreaterThan(-1);
        }
        for (const c of res.criterionScores) expect(out).toMatch(new RegExp(`^ {2}${c.criterionKey}\\s+${c.score.toFixed(3)}\\s`, 'm'));
      } else {
        expect(out).toContain('error');
      }
    }
    // The criterion names come from the suite.
    expect(out).toContain('Tone and empathy');
    expect(out).not.toContain('Goal completion:');
  });

  it('filters by scenario name or id, and by failed iterations', async () => {
    const run = runs[2]!;
    const all = (
      await emu.api<{ data: { results: Array<{ id: string; evalScenarioId: string; scenarioName: string; status: string }> } }>(
        'GET',
        `${base()}/runs/${run.id}/results`,
      )
    ).body.data.results;
    const byName = await vap(['evals', 'runs', 'results', suite, run.id, '--agent', agent, '--scenario', 'wrong NUMBER', '-q']);
    const expected = all.filter((x) => x.scenarioName === 'Wrong number').map((x) => x.id);
    expect(expected).toHaveLength(2);
    expect(byName.stdout.trim().split('\n')).toEqual(expected);
    const byId = await vap(['evals', 'runs', 'results', suite, run.id, '--agent', agent, '--scenario', all[0]!.evalScenarioId, '--json']);
    expect(JSON.parse(byId.stdout).every((x: { evalScenarioId: string }) => x.evalScenarioId === all[0]!.evalScenarioId)).toBe(true);
    const none = await vap(['evals', 'runs', 'results', suite, run.id, '--agent', agent, '--scenario', 'nope'], { tty: true });
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('the scenarios in this run are: Reschedule, Wrong number');
    const failed = await vap(['evals', 'runs', 'results', suite, run.id, '--agent', agent, '--failed', '--json']);
    expect(JSON.parse(failed.stdout)).toEqual(all.filter((x) => x.status === 'failed'));
  });

  it('piped output is one TSV line per result', async () => {
    const r = await vap(['evals', 'runs', 'results', suite, runs[0]!.id, '--agent', agent]);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(row[0]).toMatch(/^res_/);
      expect(['Reschedule', 'Wrong number']).toContain(row[1]);
      expect(['1', '2']).toContain(row[2]);
    }
  });

  it('a run that ended with no result says so on a terminal (not "yet")', async () => {
    const failed = runs[3]!;
    expect(failed.status).toBe('failed');
    const r = await vap(['evals', 'runs', 'results', suite, failed.id, '--agent', agent], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(`Run ${failed.id} ended failed with no results: failed on purpose by the test.`);
  });

  it('checks the run arguments before sending', async () => {
    for (const [argv, err] of [
      [['evals', 'runs', 'results', suite, '--agent', agent], /missing the eval suite/],
      [['evals', 'runs', 'results', suite, runs[0]!.id, '--eval', 'ev_other', '--agent', agent], /disagrees/],
      [['evals', 'runs', 'results', suite, runs[0]!.id], /missing --agent/],
    ] as const) {
      const r = await vap([...argv]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(err);
    }
    expect(await emu.requests()).toEqual([]);
  });
});

describe('vap evals runs delete', () => {
  it('needs --yes without a terminal, then deletes the run and its results', async () => {
    const victim = await finished(await startRun());
    await emu.clearRequests();
    const refused = await vap(['evals', 'runs', 'delete', suite, victim.id, '--agent', agent]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    expect(await emu.requests()).toEqual([]);

    const r = await vap(['evals', 'runs', 'delete', victim.id, '--eval', suite, '--agent', agent, '--yes']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Deleted run ${victim.id} of suite ${suite}`);
    const ids = (await vap(['evals', 'runs', 'list', suite, '--agent', agent, '-q'])).stdout.trim().split('\n');
    expect(ids).not.toContain(victim.id);
    expect((await vap(['evals', 'runs', 'results', suite, victim.id, '--agent', agent])).code).toBe(1);
  });
});

describe('the renderers', () => {
  const plain = new Chalk({ level: 0 });

  it('sparkline: one bar per value, scaled to the values, flat when equal, skips missing ones', () => {
    expect(sparkline([0, 1])).toBe('▁█');
    expect(sparkline([0.7, 0.8, 0.9])).toBe('▁▅█');
    expect(sparkline([0.5, 0.5, 0.5])).toBe('▄▄▄');
    expect(sparkline([0.2, null, 0.4, undefined])).toBe('▁█');
    expect(sparkline([])).toBe('');
    expect(sparkline([0.25, 0.5], { min: 0, max: 1 })).toBe('▃▅');
  });

  it('chat: labelled turns, the text aligned and wrapped, unknown roles labelled by name', () => {
    const lines = renderChat(
      [
        { role: 'agent', text: 'Thanks for calling Acme dental, how can I help you today?' },
        { role: 'user', text: 'I would like to move my appointment please' },
        { role: 'supervisor', text: 'hi' },
      ],
      { width: 40, chalk: plain },
    );
    expect(lines).toEqual([
      'agent       Thanks for calling Acme',
      '            dental, how can I help you',
      '            today?',
      'caller      I would like to move my',
      '            appointment please',
      'supervisor  hi',
    ]);
    const coloured = renderChat([{ role: 'agent', text: 'hi' }], { width: 40, chalk: new Chalk({ level: 1 }) })[0]!;
    expect(coloured).toContain('\u001b[36m');
    expect(renderChat([{ role: 'agent', text: 'a-very-long-unbroken-token-indeed' }], { width: 20, minTextWidth: 10, indent: 2 })).toEqual([
      '  agent  a-very-long',
      '         -unbroken-t',
      '         oken-indeed',
    ]);
  });

  it('a failed iteration shows its error, no score', () => {
    const lines = renderResult(
      {
        id: 'res_1',
        evalScenarioId: 'sc_1',
        scenarioName: 'Reschedule',
        iterationNumber: 2,
        status: 'failed',
        overallScore: null,
        durationSeconds: 20,
        transcript: [],
        criterionScores: [],
        error: "the tester's call was not answered: no audio from the agent for 20 s",
      },
      { width: 50, chalk: plain },
    );
    expect(lines[0]).toBe('━━ Reschedule · iteration 2 · failed · 20s  res_1');
    expect(lines.slice(2)).toEqual(["  error  the tester's call was not answered: no", '         audio from the agent for 20 s']);
  });
});
