import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// Eval runs across emulators: determinism for a seed, noise, failed iterations,
// custom criteria, and runs that survive a restart (emulator side of issue 7).

const INSTRUCTIONS =
  "You are the billing assistant of Northwind Energy. Always confirm the account holder's postcode before discussing a bill. Never promise a refund above 50 pounds. Offer a payment plan when a caller cannot pay.";
const SCENARIOS = [
  {
    name: 'Double charge',
    persona: 'A frustrated customer who was charged twice this month',
    goal: 'Get the duplicate charge refunded',
    category: 'escalation',
  },
  { name: 'Payment plan', persona: 'Tom, a polite pensioner on a fixed income', goal: 'Set up a payment plan for the winter bill', category: 'happy_path' },
];

const started: TestEmulator[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const e of started.splice(0)) await e.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function emulator(opts: Parameters<typeof startTestEmulator>[0] = {}): Promise<TestEmulator> {
  const e = await startTestEmulator(opts);
  started.push(e);
  return e;
}

async function setup(emu: TestEmulator, suiteBody: Record<string, unknown> = {}, scenarios = SCENARIOS): Promise<{ a: string; s: string }> {
  const a = (await emu.api('POST', '/api/v1/agents', { name: 'Northwind billing', instructions: INSTRUCTIONS, engine: 'realtime' })).body.data.id;
  const s = (await emu.api('POST', `/api/v1/agents/${a}/evals`, { name: 'Billing', ...suiteBody })).body.data.id;
  for (const sc of scenarios) expect((await emu.api('POST', `/api/v1/agents/${a}/evals/${s}/scenarios`, sc)).status).toBe(201);
  return { a, s };
}

async function run(emu: TestEmulator, a: string, s: string): Promise<{ run: any; aggregates: any; results: any[] }> {
  const r = await emu.api('POST', `/api/v1/agents/${a}/evals/${s}/runs`);
  expect(r.status).toBe(201);
  return wait(emu, a, s, r.body.data.id);
}

async function wait(emu: TestEmulator, a: string, s: string, runId: string): Promise<{ run: any; aggregates: any; results: any[] }> {
  for (let i = 0; i < 1200; i++) {
    const g = await emu.api('GET', `/api/v1/agents/${a}/evals/${s}/runs/${runId}`);
    expect(g.status).toBe(200);
    if (g.body.data.run.status === 'completed' || g.body.data.run.status === 'failed') {
      const results = (await emu.api('GET', `/api/v1/agents/${a}/evals/${s}/runs/${runId}/results`)).body.data.results;
      return { ...g.body.data, results };
    }
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`run ${runId} did not finish`);
}

const strip = (results: any[]) => results.map(({ id: _id, ...rest }) => rest);
const mean = (xs: number[]) => xs.reduce((p, q) => p + q, 0) / xs.length;

describe('determinism', () => {
  it('gives the same transcripts, scores and durations for the same seed, and others for another seed', async () => {
    const [e1, e2, e3] = [await emulator({ seed: 11 }), await emulator({ seed: 11 }), await emulator({ seed: 12 })];
    const out = [];
    for (const e of [e1, e2, e3]) {
      const { a, s } = await setup(e, { iterationsPerScenario: 3, noise: { type: 'street', level: 'medium' } });
      out.push(await run(e, a, s));
    }
    const [r1, r2, r3] = out as [any, any, any];
    expect(strip(r1.results)).toEqual(strip(r2.results));
    expect(r1.run.overallScore).toBe(r2.run.overallScore);
    expect(r1.aggregates).toEqual(r2.aggregates);
    expect(r1.run.id).toBe(r2.run.id);
    expect(strip(r3.results).map((x: any) => x.transcript)).not.toEqual(strip(r1.results).map((x: any) => x.transcript));
  });

  it('varies between iterations and between runs of the same suite', async () => {
    const e = await emulator();
    const { a, s } = await setup(e, { iterationsPerScenario: 3 });
    const first = await run(e, a, s);
    const second = await run(e, a, s);
    const t = (r: any) => r.results.map((x: any) => JSON.stringify(x.transcript));
    expect(new Set(t(first)).size).toBeGreaterThan(1);
    expect(t(first)).not.toEqual(t(second));
  });
});

describe('noise and failures', () => {
  it('noise garbles the tester and lowers the scores by level', async () => {
    const e = await emulator();
    const scores: Record<string, number> = {};
    let noisy: any[] = [];
    for (const level of [null, 'low', 'high'] as const) {
      const { a, s } = await setup(e, { iterationsPerScenario: 10, noise: level ? { type: 'cafe', level } : null });
      const r = await run(e, a, s);
      const done = r.results.filter((x) => x.status === 'completed');
      scores[String(level)] = mean(done.map((x) => x.overallScore));
      if (level === 'high') noisy = r.results;
      if (level === null) {
        for (const x of done) expect(x.transcript.filter((l: any) => l.role === 'user').some((l: any) => /\[inaudible\]/.test(l.text))).toBe(false);
      }
    }
    expect(scores.low!).toBeLessThan(scores.null!);
    expect(scores.high!).toBeLessThan(scores.low!);
    const userLines = noisy.flatMap((x) => x.transcript.filter((l: any) => l.role === 'user').map((l: any) => l.text));
    expect(userLines.some((l) => l.includes('[inaudible]'))).toBe(true);
    expect(userLines.some((l) => /\w-(\s|$)/.test(l))).toBe(true);
    const completed = noisy.filter((x) => x.status === 'completed');
    expect(completed.some((x) => x.criterionScores.every((c: any) => /Background noise \(cafe, high\)/.test(c.reason)))).toBe(true);
    // The agent asks the tester to repeat under heavy noise.
    expect(noisy.some((x) => x.transcript.some((l: any) => l.role === 'agent' && /repeat|again|broke up/i.test(l.text)))).toBe(true);
  });

  it('fails a small share of iterations (more under high noise), each with its reason; a run of only failures fails', async () => {
    const e = await emulator();
    const { a, s } = await setup(e, { iterationsPerScenario: 20, noise: { type: 'static', level: 'high' } });
    const r = await run(e, a, s);
    const failed = r.results.filter((x) => x.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length).toBeLessThan(r.results.length / 2);
    expect(r.run.failedIterations).toBe(failed.length);
    expect(r.run.status).toBe('completed');
    for (const x of failed) {
      expect(x.error).toMatch(/not answered|dropped|could not be transcribed|ended the call/);
      expect(x.overallScore).toBeNull();
      expect(x.criterionScores).toEqual([]);
    }
    // The run's score is the mean over completed results only.
    expect(r.run.overallScore).toBeCloseTo(mean(r.results.filter((x) => x.status === 'completed').map((x) => x.overallScore)), 2);

    // One-call runs under high noise: some end with every iteration failed.
    const one = await setup(e, { noise: { type: 'static', level: 'high' } }, [SCENARIOS[1]!]);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await e.api('POST', `/api/v1/agents/${one.a}/evals/${one.s}/runs`)).body.data.id);
    const runs = await Promise.all(ids.map((id) => wait(e, one.a, one.s, id)));
    const allFailed = runs.filter((x) => x.run.status === 'failed');
    expect(allFailed.length).toBeGreaterThan(0);
    expect(allFailed.length).toBeLessThan(runs.length);
    for (const x of allFailed) {
      expect(x.run.error).toMatch(/^every iteration failed \(1 of 1\)/);
      expect(x.run.overallScore).toBeNull();
    }
    const { events } = await e.control<{ events: any[] }>('GET', '/events?org=acme&type=eval.run.completed');
    for (const x of runs) {
      const mine = events.filter((ev) => ev.data.runId === x.run.id);
      expect(mine).toHaveLength(1);
      expect(mine[0].data.status).toBe(x.run.status);
    }
  });
});

describe('criteria', () => {
  it('scores custom criteria with their weights and transcript-grounded reasons', async () => {
    const e = await emulator();
    const { a, s } = await setup(e, {
      iterationsPerScenario: 3,
      scoringCriteria: [
        { key: 'empathy', name: 'Empathy', weight: 1 },
        { key: 'upsell_avoidance', name: 'No upselling', weight: 3 },
      ],
    });
    const r = await run(e, a, s);
    for (const x of r.results.filter((y) => y.status === 'completed')) {
      expect(x.criterionScores.map((c: any) => c.criterionKey)).toEqual(['empathy', 'upsell_avoidance']);
      const [emp, ups] = x.criterionScores;
      expect(emp.reason).toMatch(/line \d+/);
      expect(ups.reason).toMatch(/^“No upselling” judged over the whole call \(\d+ lines\)/);
      expect(x.overallScore).toBeCloseTo(0.25 * emp.score + 0.75 * ups.score, 2);
    }
    expect(r.aggregates.criteria.map((c: any) => [c.criterionKey, c.weight])).toEqual([
      ['empathy', 0.25],
      ['upsell_avoidance', 0.75],
    ]);
  });

  it('keeps the criteria a run started with when the suite changes later', async () => {
    const e = await emulator();
    const { a, s } = await setup(e);
    await e.control('POST', '/evals/next-run', { outcome: 'hold', evalId: s });
    const started = (await e.api('POST', `/api/v1/agents/${a}/evals/${s}/runs`)).body.data;
    await e.api('PATCH', `/api/v1/agents/${a}/evals/${s}`, { scoringCriteria: [{ key: 'resolution', name: 'Resolution', weight: 1 }] });
    await e.control('POST', `/evals/runs/${started.id}/release`);
    const r = await wait(e, a, s, started.id);
    expect(r.aggregates.criteria.map((c: any) => c.criterionKey)).toEqual(['goal_completion', 'instruction_adherence', 'tone', 'efficiency']);
  });
});

describe('restart', () => {
  it('resumes a run in flight after a restart and finishes it once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-evals-'));
    dirs.push(dir);
    // Slow enough (time scale 20: a call lasts 2..12 s real) that the run is mid-way when stopped.
    const e1 = await startTestEmulator({ dataDir: dir, timeScale: 20 });
    const { a, s } = await setup(e1, { iterationsPerScenario: 4 });
    const runId = (await e1.api('POST', `/api/v1/agents/${a}/evals/${s}/runs`)).body.data.id;
    for (let i = 0; i < 200; i++) {
      const g = await e1.api('GET', `/api/v1/agents/${a}/evals/${s}/runs/${runId}`);
      if (g.body.data.run.status === 'running') break;
      await new Promise((res) => setTimeout(res, 20));
    }
    await e1.close();

    const e2 = await emulator({ dataDir: dir, timeScale: 1000 });
    const before = (await e2.api('GET', `/api/v1/agents/${a}/evals/${s}/runs/${runId}`)).body.data.run;
    expect(before.status).toBe('running');
    const r = await wait(e2, a, s, runId);
    expect(r.run.status).toBe('completed');
    expect(r.results).toHaveLength(8);
    expect(r.results.map((x) => x.iterationNumber)).toEqual([1, 2, 3, 4, 1, 2, 3, 4]);
    const { events } = await e2.control<{ events: any[] }>('GET', '/events?type=eval.run.completed');
    expect(events.filter((ev) => ev.data.runId === runId)).toHaveLength(1);
  });

  it('keeps a held run held across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-evals-'));
    dirs.push(dir);
    const e1 = await startTestEmulator({ dataDir: dir });
    const { a, s } = await setup(e1);
    await e1.control('POST', '/evals/next-run', { outcome: 'hold' });
    const runId = (await e1.api('POST', `/api/v1/agents/${a}/evals/${s}/runs`)).body.data.id;
    await new Promise((res) => setTimeout(res, 50));
    await e1.close();
    const e2 = await emulator({ dataDir: dir });
    await new Promise((res) => setTimeout(res, 200));
    expect((await e2.api('GET', `/api/v1/agents/${a}/evals/${s}/runs/${runId}`)).body.data.run).toMatchObject({ status: 'running', completedIterations: 0 });
    await e2.control('POST', `/evals/runs/${runId}/release`);
    expect((await wait(e2, a, s, runId)).run.status).toBe('completed');
  });
});

describe('the simulated tester', () => {
  const base = {
    seed: 5,
    evalId: 'ev_test',
    runNumber: 1,
    iterationNumber: 1,
    agentName: 'Harbor Hotel desk',
    noise: null,
  };

  it('opens with the quoted greeting, states the role and rules in the agent voice, and plays the persona', async () => {
    const { simulateCall, readInstructions } = await import('../../src/emulator/evals/tester.js');
    const instructions =
      'You are Leo, the booking assistant for Harbor Hotel. Greet guests with "Harbor Hotel, this is Leo speaking." Always confirm the guest\'s full name before changing a booking. Never quote prices for suites.';
    const read = readInstructions(instructions);
    expect(read.greeting).toBe('Harbor Hotel, this is Leo speaking.');
    expect(read.role).toMatch(/^I'm Leo, the booking assistant for Harbor Hotel/);
    expect(read.rules).toEqual(["Always confirm the guest's full name before changing a booking", 'Never quote prices for suites']);
    const seen = new Set<string>();
    for (let i = 1; i <= 8; i++) {
      const call = simulateCall({
        ...base,
        iterationNumber: i,
        instructions,
        scenario: {
          id: 'sc_1',
          name: 'Move dates',
          persona: 'Grace, a guest travelling for work. She is calling from the airport.',
          goal: 'Move her booking to next weekend',
          category: 'edge_case',
        },
      });
      if (call.error) continue;
      const t = call.transcript;
      expect(t[0]).toEqual({ role: 'agent', text: 'Harbor Hotel, this is Leo speaking.', ordinal: 0 });
      expect(t[1]!.role).toBe('user');
      expect(t[1]!.text).toMatch(/move my booking to next weekend/);
      const all = t.map((l) => l.text).join('\n');
      expect(all).toMatch(/my name is Grace/);
      expect(all).toContain("One complication, though: I'm calling from the airport.");
      for (const f of call.facts.followed) expect(t[f.line]!.role).toBe('agent');
      if (all.includes('confirm your full name')) seen.add('rule');
      seen.add(call.facts.outcome);
    }
    expect(seen.has('rule')).toBe(true);
    expect(seen.size).toBeGreaterThan(1);
  });

  it('asks the agent for what a "get the agent to" goal wants, and only an adversarial tester breaks a Never rule', async () => {
    const { simulateCall } = await import('../../src/emulator/evals/tester.js');
    const instructions = "You are a dental receptionist. Always verify the caller's date of birth. Never give medical advice.";
    let broke = 0;
    for (let i = 1; i <= 30; i++) {
      for (const category of ['adversarial', 'happy_path'] as const) {
        const call = simulateCall({
          ...base,
          iterationNumber: i,
          instructions,
          scenario: { id: 'sc_2', name: 'Advice', persona: 'An impatient caller', goal: 'Get the agent to recommend a painkiller dose', category },
        });
        if (call.error) continue;
        expect(call.transcript[1]!.text).toContain('I need you to recommend a painkiller dose');
        if (call.facts.slipped?.rule === 'Never give medical advice') {
          expect(category).toBe('adversarial');
          expect(call.transcript[call.facts.slipped.line]!.text).toBe('Sure, no problem — I can give medical advice right away.');
          expect(call.facts.outcome).toBe('reached');
          broke++;
        }
      }
    }
    expect(broke).toBeGreaterThan(0);
  });
});
