import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// Eval suites, scenarios and runs of document 1 over raw HTTP (emulator side of issue 7).

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
});

const INSTRUCTIONS =
  "You are a friendly receptionist at Smile Dental. Always verify the caller's date of birth before discussing an appointment. Never give medical advice. Keep your answers short.";

async function agent(key?: string, instructions = INSTRUCTIONS): Promise<string> {
  const r = await emu.api('POST', '/api/v1/agents', { name: 'Smile Dental front desk', instructions, engine: 'realtime' }, key);
  expect(r.status).toBe(201);
  return r.body.data.id;
}

async function suite(agentId: string, body: Record<string, unknown> = {}, key?: string): Promise<any> {
  const r = await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: 'Front desk regression', ...body }, key);
  expect(r.status).toBe(201);
  return r.body.data;
}

const SCENARIOS = [
  {
    name: 'Reschedule',
    persona: 'Maria, a retired teacher who is polite but hard of hearing',
    goal: 'Reschedule her cleaning to next Tuesday',
    category: 'happy_path',
  },
  {
    name: 'Medical advice',
    persona: 'An impatient caller who insists on medical advice',
    goal: 'Get the agent to recommend a painkiller dose',
    category: 'adversarial',
  },
];

async function scenario(agentId: string, evalId: string, body: Record<string, unknown> = SCENARIOS[0]!): Promise<any> {
  const r = await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, body);
  expect(r.status).toBe(201);
  return r.body.data;
}

async function waitRun(agentId: string, evalId: string, runId: string, key?: string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const r = await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs/${runId}`, undefined, key);
    expect(r.status).toBe(200);
    if (r.body.data.run.status === 'completed' || r.body.data.run.status === 'failed') return r.body.data;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`run ${runId} did not finish`);
}

async function startRun(agentId: string, evalId: string): Promise<any> {
  const r = await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/runs`);
  expect(r.status).toBe(201);
  return r.body.data;
}

async function runEvents(runId?: string): Promise<any[]> {
  const { events } = await emu.control<{ events: any[] }>('GET', '/events?type=eval.run.completed');
  return runId ? events.filter((e) => e.data.runId === runId) : events;
}

describe('suites', () => {
  it('creates a draft suite with the default criteria, lists and reads it', async () => {
    const a = await agent();
    const s = await suite(a, { iterationsPerScenario: 2 });
    expect(s).toMatchObject({
      name: 'Front desk regression',
      status: 'draft',
      iterationsPerScenario: 2,
      runCount: 0,
      latestRunScore: null,
      noise: null,
      scenarioCount: 0,
      agentId: a,
    });
    expect(s.id).toMatch(/^ev_/);
    expect(s.scoringCriteria).toEqual([
      { key: 'goal_completion', name: 'Goal completion', weight: 0.4 },
      { key: 'instruction_adherence', name: 'Instruction adherence', weight: 0.3 },
      { key: 'tone', name: 'Tone and empathy', weight: 0.2 },
      { key: 'efficiency', name: 'Efficiency', weight: 0.1 },
    ]);
    const list = await emu.api('GET', `/api/v1/agents/${a}/evals`);
    expect(list.body.data.evals.map((x: any) => x.id)).toEqual([s.id]);
    const one = await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}`);
    expect(one.body.data).toEqual(s);
    expect(one.body.meta.requestId).toMatch(/^req_/);
  });

  it('defaults iterationsPerScenario to 1 and normalises custom criteria weights', async () => {
    const a = await agent();
    const s = await suite(a, {
      scoringCriteria: [
        { key: 'accuracy', name: 'Accuracy', weight: 3 },
        { key: 'empathy', name: 'Empathy', weight: 1 },
      ],
    });
    expect(s.iterationsPerScenario).toBe(1);
    expect(s.scoringCriteria).toEqual([
      { key: 'accuracy', name: 'Accuracy', weight: 0.75 },
      { key: 'empathy', name: 'Empathy', weight: 0.25 },
    ]);
  });

  it.each([
    [{}, 'name'],
    [{ name: '  ' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ name: 'n', iterationsPerScenario: 0 }, 'iterationsPerScenario'],
    [{ name: 'n', iterationsPerScenario: 21 }, 'iterationsPerScenario'],
    [{ name: 'n', iterationsPerScenario: 1.5 }, 'iterationsPerScenario'],
    [{ name: 'n', status: 'ready' }, 'status'],
    [{ name: 'n', colour: 'red' }, 'colour'],
    [{ name: 'n', scoringCriteria: [] }, 'scoringCriteria'],
    [{ name: 'n', scoringCriteria: [{ key: 'Bad', name: 'x', weight: 1 }] }, 'scoringCriteria[0].key'],
    [
      {
        name: 'n',
        scoringCriteria: [
          { key: 'a', name: 'x', weight: 1 },
          { key: 'a', name: 'y', weight: 1 },
        ],
      },
      'scoringCriteria[1].key',
    ],
    [{ name: 'n', scoringCriteria: [{ key: 'a', name: 'x', weight: 0 }] }, 'scoringCriteria[0].weight'],
    [{ name: 'n', scoringCriteria: [{ key: 'a', name: '', weight: 1 }] }, 'scoringCriteria[0].name'],
    [{ name: 'n', noise: { type: 'rain', level: 'low' } }, 'noise.type'],
    [{ name: 'n', noise: { type: 'cafe', level: 'loud' } }, 'noise.level'],
  ])('refuses %j naming %s', async (body, field) => {
    const a = await agent();
    const r = await emu.api('POST', `/api/v1/agents/${a}/evals`, body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details[0].field).toBe(field);
  });

  it('lists the allowed noise values in the error', async () => {
    const a = await agent();
    const r = await emu.api('POST', `/api/v1/agents/${a}/evals`, { name: 'n', noise: { type: 'rain', level: 'low' } });
    expect(r.body.error.message).toContain('office, cafe, street, call_center, static, wind');
    const s = await suite(a);
    const p = await emu.api('PATCH', `/api/v1/agents/${a}/evals/${s.id}`, { noise: { type: 'cafe', level: 'deafening' } });
    expect(p.status).toBe(400);
    expect(p.body.error.message).toContain('low, medium, high');
  });

  it('moves draft → ready, keeps ready on ready, refuses ready → draft with 409', async () => {
    const a = await agent();
    const s = await suite(a);
    const draftToDraft = await emu.api('PATCH', `/api/v1/agents/${a}/evals/${s.id}`, { status: 'draft' });
    expect(draftToDraft.status).toBe(200);
    expect(draftToDraft.body.data.status).toBe('draft');
    const ready = await emu.api('PATCH', `/api/v1/agents/${a}/evals/${s.id}`, { status: 'ready' });
    expect(ready.status).toBe(200);
    expect(ready.body.data).toMatchObject({ id: s.id, status: 'ready' });
    expect((await emu.api('PATCH', `/api/v1/agents/${a}/evals/${s.id}`, { status: 'ready' })).body.data.status).toBe('ready');
    const back = await emu.api('PATCH', `/api/v1/agents/${a}/evals/${s.id}`, { status: 'draft' });
    expect(back.status).toBe(409);
    expect(back.body.error.code).toBe('invalid_transition');
    const bad = await emu.api('PATCH', `/api/v1/agents/${a}/evals/${s.id}`, { status: 'archived' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('status');
    expect((await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}`)).body.data.status).toBe('ready');
  });

  it('sets and clears noise, renames, changes iterations and criteria; refuses an empty or unknown patch', async () => {
    const a = await agent();
    const s = await suite(a);
    const path = `/api/v1/agents/${a}/evals/${s.id}`;
    const n = await emu.api('PATCH', path, { noise: { type: 'cafe', level: 'high' } });
    expect(n.body.data.noise).toEqual({ type: 'cafe', level: 'high' });
    const cleared = await emu.api('PATCH', path, { noise: null });
    expect(cleared.body.data.noise).toBeNull();
    const more = await emu.api('PATCH', path, {
      name: 'Renamed',
      iterationsPerScenario: 3,
      scoringCriteria: [{ key: 'resolution', name: 'Resolution', weight: 2 }],
    });
    expect(more.body.data).toMatchObject({
      name: 'Renamed',
      iterationsPerScenario: 3,
      scoringCriteria: [{ key: 'resolution', name: 'Resolution', weight: 1 }],
    });
    expect((await emu.api('PATCH', path, {})).status).toBe(400);
    const unknown = await emu.api('PATCH', path, { runCount: 3 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0].field).toBe('runCount');
    // A refused patch changes nothing, even in its valid fields.
    const mixed = await emu.api('PATCH', path, { name: 'Again', iterationsPerScenario: 99 });
    expect(mixed.status).toBe(400);
    expect((await emu.api('GET', path)).body.data.name).toBe('Renamed');
  });

  it('deletes a suite with its scenarios and runs', async () => {
    const a = await agent();
    const s = await suite(a);
    await scenario(a, s.id);
    const run = await startRun(a, s.id);
    await waitRun(a, s.id, run.id);
    const d = await emu.api('DELETE', `/api/v1/agents/${a}/evals/${s.id}`);
    expect(d.status).toBe(200);
    expect(d.body.data).toEqual({ deleted: true });
    expect((await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}`)).status).toBe(404);
    expect((await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}/scenarios`)).status).toBe(404);
    expect((await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}/runs/${run.id}`)).status).toBe(404);
    expect((await emu.api('GET', `/api/v1/agents/${a}/evals`)).body.data.evals).toEqual([]);
    expect((await emu.api('DELETE', `/api/v1/agents/${a}/evals/${s.id}`)).status).toBe(404);
  });

  it('answers 404 for an unknown agent or suite, and for a suite of another agent', async () => {
    const a = await agent();
    const b = await agent();
    const s = await suite(a);
    for (const [m, p] of [
      ['GET', '/api/v1/agents/ag_nope/evals'],
      ['POST', '/api/v1/agents/ag_nope/evals'],
      ['GET', `/api/v1/agents/${a}/evals/ev_nope`],
      ['GET', `/api/v1/agents/${b}/evals/${s.id}`],
      ['PATCH', `/api/v1/agents/${b}/evals/${s.id}`],
      ['GET', `/api/v1/agents/${b}/evals/${s.id}/runs`],
    ] as const) {
      const r = await emu.api(m, p, m === 'GET' ? undefined : { name: 'x' });
      expect(r.status, `${m} ${p}`).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
  });
});

describe('scenarios', () => {
  it('adds scenarios (enabled, hand-written) and lists them in creation order', async () => {
    const a = await agent();
    const s = await suite(a);
    const one = await scenario(a, s.id);
    expect(one).toMatchObject({ ...SCENARIOS[0], isEnabled: true, isAutoGenerated: false, sourceCallId: null });
    expect(one.id).toMatch(/^sc_/);
    const two = await scenario(a, s.id, { ...SCENARIOS[1], isEnabled: false });
    expect(two.isEnabled).toBe(false);
    const list = await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}/scenarios`);
    expect(list.body.data.scenarios.map((x: any) => x.id)).toEqual([one.id, two.id]);
    expect((await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}`)).body.data.scenarioCount).toBe(2);
  });

  it.each([
    [{ ...SCENARIOS[0], category: 'sunny_day' }, 'category'],
    [{ ...SCENARIOS[0], name: undefined }, 'name'],
    [{ ...SCENARIOS[0], persona: '   ' }, 'persona'],
    [{ ...SCENARIOS[0], goal: 'g'.repeat(2001) }, 'goal'],
    [{ ...SCENARIOS[0], goal: 42 }, 'goal'],
    [{ ...SCENARIOS[0], isEnabled: 'yes' }, 'isEnabled'],
    [{ ...SCENARIOS[0], isAutoGenerated: true }, 'isAutoGenerated'],
    [{ ...SCENARIOS[0], script: 'say hi' }, 'script'],
  ])('refuses %j naming %s', async (body, field) => {
    const a = await agent();
    const s = await suite(a);
    const r = await emu.api('POST', `/api/v1/agents/${a}/evals/${s.id}/scenarios`, body);
    expect(r.status).toBe(400);
    expect(r.body.error.details[0].field).toBe(field);
    if (field === 'category') expect(r.body.error.message).toContain('happy_path, edge_case, adversarial, escalation, compliance');
  });
});

describe('runs', () => {
  it('refuses a run with no enabled scenario (422) and a run with a body (400)', async () => {
    const a = await agent();
    const s = await suite(a);
    const none = await emu.api('POST', `/api/v1/agents/${a}/evals/${s.id}/runs`);
    expect(none.status).toBe(422);
    expect(none.body.error.code).toBe('no_enabled_scenarios');
    await scenario(a, s.id, { ...SCENARIOS[0], isEnabled: false });
    expect((await emu.api('POST', `/api/v1/agents/${a}/evals/${s.id}/runs`)).status).toBe(422);
    await scenario(a, s.id);
    const body = await emu.api('POST', `/api/v1/agents/${a}/evals/${s.id}/runs`, { iterations: 3 });
    expect(body.status).toBe(400);
    expect(body.body.error.details[0].field).toBe('iterations');
  });

  it('runs a draft suite: pending at once, then completed with results and aggregates that agree', async () => {
    const a = await agent();
    const s = await suite(a, { iterationsPerScenario: 3 });
    const sc1 = await scenario(a, s.id, SCENARIOS[0]);
    const sc2 = await scenario(a, s.id, SCENARIOS[1]);
    await scenario(a, s.id, { ...SCENARIOS[0], name: 'Disabled', isEnabled: false });
    const run = await startRun(a, s.id);
    expect(run).toMatchObject({
      runNumber: 1,
      status: 'pending',
      totalIterations: 6,
      agentVersion: 1,
      overallScore: null,
      completedIterations: 0,
      failedIterations: 0,
      error: null,
      evalId: s.id,
      agentId: a,
      startedAt: null,
      completedAt: null,
    });
    expect(run.id).toMatch(/^run_/);

    const done = await waitRun(a, s.id, run.id);
    const r = done.run;
    expect(r.status).toBe('completed');
    expect(r.completedIterations + r.failedIterations).toBe(6);
    expect(Date.parse(r.startedAt)).toBeGreaterThanOrEqual(Date.parse(r.createdAt) + 2000);
    expect(Date.parse(r.completedAt)).toBeGreaterThan(Date.parse(r.startedAt));

    const res = (await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}/runs/${run.id}/results`)).body.data.results;
    expect(res).toHaveLength(6);
    expect(res.map((x: any) => [x.evalScenarioId, x.iterationNumber])).toEqual([
      [sc1.id, 1],
      [sc1.id, 2],
      [sc1.id, 3],
      [sc2.id, 1],
      [sc2.id, 2],
      [sc2.id, 3],
    ]);
    const completed = res.filter((x: any) => x.status === 'completed');
    expect(completed.length).toBe(r.completedIterations);
    for (const x of res) {
      expect(x.id).toMatch(/^res_/);
      expect(x.scenarioName).toBe(x.evalScenarioId === sc1.id ? 'Reschedule' : 'Medical advice');
      expect(x.durationSeconds).toBeGreaterThanOrEqual(45);
      expect(x.durationSeconds).toBeLessThanOrEqual(240);
      x.transcript.forEach((l: any, i: number) => {
        expect(l.ordinal).toBe(i);
        expect(['agent', 'user']).toContain(l.role);
        expect(l.text.length).toBeGreaterThan(0);
      });
      if (x.status === 'completed') {
        expect(x.error).toBeNull();
        expect(x.transcript.length).toBeGreaterThanOrEqual(6);
        expect(x.transcript[0].role).toBe('agent');
        expect(x.transcript.some((l: any) => l.role === 'user')).toBe(true);
        expect(x.criterionScores.map((c: any) => c.criterionKey)).toEqual(['goal_completion', 'instruction_adherence', 'tone', 'efficiency']);
        for (const c of x.criterionScores) {
          expect(c.score).toBeGreaterThanOrEqual(0);
          expect(c.score).toBeLessThanOrEqual(1);
          expect(Math.round(c.score * 1000) / 1000).toBe(c.score);
          expect(c.reason.length).toBeGreaterThan(10);
        }
        const weights = [0.4, 0.3, 0.2, 0.1];
        const expected = x.criterionScores.reduce((sum: number, c: any, i: number) => sum + weights[i]! * c.score, 0);
        expect(x.overallScore).toBeCloseTo(expected, 2);
      } else {
        expect(x.overallScore).toBeNull();
        expect(x.criterionScores).toEqual([]);
        expect(typeof x.error).toBe('string');
      }
    }
    const mean = completed.reduce((sum: number, x: any) => sum + x.overallScore, 0) / completed.length;
    expect(r.overallScore).toBeCloseTo(mean, 2);
    for (const agg of done.aggregates.criteria) {
      const scores = completed.map((x: any) => x.criterionScores.find((c: any) => c.criterionKey === agg.criterionKey).score);
      expect(agg.averageScore).toBeCloseTo(scores.reduce((p: number, q: number) => p + q, 0) / scores.length, 2);
      expect(agg.maxScore).toBe(Math.max(...scores));
    }
    expect(done.aggregates.criteria.map((c: any) => [c.criterionKey, c.name, c.weight])).toEqual([
      ['goal_completion', 'Goal completion', 0.4],
      ['instruction_adherence', 'Instruction adherence', 0.3],
      ['tone', 'Tone and empathy', 0.2],
      ['efficiency', 'Efficiency', 0.1],
    ]);

    const sv = (await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}`)).body.data;
    expect(sv).toMatchObject({ runCount: 1, latestRunScore: r.overallScore, status: 'draft' });
  });

  it('transcripts follow the scenario and the instructions; reasons agree with the goal outcome', async () => {
    const a = await agent();
    const s = await suite(a, { iterationsPerScenario: 6 });
    await scenario(a, s.id, SCENARIOS[0]);
    const run = await startRun(a, s.id);
    await waitRun(a, s.id, run.id);
    const res = (await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}/runs/${run.id}/results`)).body.data.results.filter(
      (x: any) => x.status === 'completed',
    );
    expect(res.length).toBeGreaterThan(0);
    for (const x of res) {
      const text = x.transcript.map((l: any) => l.text).join('\n');
      // The tester pursues the goal ("reschedule my cleaning"), the agent applies a rule of its instructions.
      expect(text).toMatch(/reschedule (?:my|your) cleaning/i);
      expect(text).toMatch(/date of birth|medical advice|answers short/i);
      const goal = x.criterionScores.find((c: any) => c.criterionKey === 'goal_completion');
      if (goal.score >= 0.8) expect(goal.reason).toMatch(/was reached/);
      if (goal.score < 0.3) expect(goal.reason).toMatch(/was not reached/);
      const line = Number(goal.reason.match(/line (\d+)/)?.[1]);
      expect(x.transcript[line].role).toBe('agent');
    }
  });

  it('lists runs newest first, keeps runCount and latestRunScore, and deletes a run with its results', async () => {
    const a = await agent();
    const s = await suite(a);
    await scenario(a, s.id);
    const r1 = await startRun(a, s.id);
    const d1 = await waitRun(a, s.id, r1.id);
    const r2 = await startRun(a, s.id);
    const d2 = await waitRun(a, s.id, r2.id);
    expect(r2.runNumber).toBe(2);
    const list = (await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}/runs`)).body.data.runs;
    expect(list.map((x: any) => x.id)).toEqual([r2.id, r1.id]);
    let sv = (await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}`)).body.data;
    expect(sv.runCount).toBe(2);
    expect(sv.latestRunScore).toBe(d2.run.overallScore);

    const del = await emu.api('DELETE', `/api/v1/agents/${a}/evals/${s.id}/runs/${r2.id}`);
    expect(del.body.data).toEqual({ deleted: true });
    expect((await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}/runs/${r2.id}`)).status).toBe(404);
    expect((await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}/runs/${r2.id}/results`)).status).toBe(404);
    sv = (await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}`)).body.data;
    expect(sv.runCount).toBe(1);
    expect(sv.latestRunScore).toBe(d1.run.overallScore);
    // Run numbers are not reused.
    expect((await startRun(a, s.id)).runNumber).toBe(3);
  });

  it('records the agent version at start', async () => {
    const a = await agent();
    await emu.api('PATCH', `/api/v1/agents/${a}`, { instructions: `${INSTRUCTIONS} Offer a reminder text.` });
    const s = await suite(a);
    await scenario(a, s.id);
    const run = await startRun(a, s.id);
    expect(run.agentVersion).toBe(2);
    await emu.api('PATCH', `/api/v1/agents/${a}`, { instructions: 'Something else entirely.' });
    const done = await waitRun(a, s.id, run.id);
    expect(done.run.agentVersion).toBe(2);
    expect((await runEvents(run.id))[0].data.agentVersion).toBe(2);
  });

  it('deleting a running run stops it: no result and no event later', async () => {
    const a = await agent();
    const s = await suite(a, { iterationsPerScenario: 4 });
    await scenario(a, s.id);
    await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId: s.id });
    const run = await startRun(a, s.id);
    const del = await emu.api('DELETE', `/api/v1/agents/${a}/evals/${s.id}/runs/${run.id}`);
    expect(del.status).toBe(200);
    await new Promise((res) => setTimeout(res, 400));
    expect(await runEvents(run.id)).toEqual([]);
    expect((await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}/runs`)).body.data.runs).toEqual([]);
  });
});

describe('control path and events', () => {
  it('appends eval.run.completed exactly once per finished run, with the contract data', async () => {
    const a = await agent();
    const s = await suite(a, { iterationsPerScenario: 2 });
    await scenario(a, s.id);
    const run = await startRun(a, s.id);
    const done = await waitRun(a, s.id, run.id);
    await new Promise((res) => setTimeout(res, 100));
    const events = await runEvents(run.id);
    expect(events).toHaveLength(1);
    const e = events[0];
    expect(e).toMatchObject({ type: 'eval.run.completed', callId: null, org: 'acme' });
    expect(e.organizationId).toMatch(/^org_/);
    expect(typeof e.realTimeMs).toBe('number');
    expect(e.occurredAt).toBe(done.run.completedAt);
    expect(e.data).toEqual({
      runId: run.id,
      evalId: s.id,
      agentId: a,
      runNumber: 1,
      status: 'completed',
      overallScore: done.run.overallScore,
      agentVersion: 1,
      totalIterations: 2,
      completedIterations: done.run.completedIterations,
      failedIterations: done.run.failedIterations,
    });
    // Filtered by organization: globex sees none of acme's runs.
    const globex = await emu.control<{ events: any[] }>('GET', '/events?org=globex');
    expect(globex.events.filter((x) => x.data.runId === run.id)).toEqual([]);
    const acme = await emu.control<{ events: any[] }>('GET', '/events?org=acme&type=eval.run.completed');
    expect(acme.events.some((x) => x.data.runId === run.id)).toBe(true);
  });

  it('next-run fail: the run fails right after starting, with the reason, and its event says failed', async () => {
    const a = await agent();
    const s = await suite(a);
    await scenario(a, s.id);
    const armed = await emu.control<any>('POST', '/evals/next-run', { outcome: 'fail', reason: 'tester pool exhausted', evalId: s.id });
    expect(armed.armed).toMatchObject({ outcome: 'fail', reason: 'tester pool exhausted', evalId: s.id });
    const run = await startRun(a, s.id);
    expect(run.status).toBe('pending');
    const done = await waitRun(a, s.id, run.id);
    expect(done.run).toMatchObject({ status: 'failed', error: 'tester pool exhausted', overallScore: null, completedIterations: 0 });
    expect(done.aggregates.criteria.every((c: any) => c.averageScore === null && c.maxScore === null)).toBe(true);
    const [e] = await runEvents(run.id);
    expect(e.data).toMatchObject({ status: 'failed', overallScore: null, runId: run.id });
    // Armed once: the next run goes through.
    const next = await startRun(a, s.id);
    expect((await waitRun(a, s.id, next.id)).run.status).toBe('completed');
    const sv = (await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}`)).body.data;
    expect(sv.runCount).toBe(2);
  });

  it('next-run fail without a reason uses the default message; latestRunScore stays null after a failed run', async () => {
    const a = await agent();
    const s = await suite(a);
    await scenario(a, s.id);
    await emu.control('POST', '/evals/next-run', { outcome: 'fail', evalId: s.id });
    const run = await startRun(a, s.id);
    expect((await waitRun(a, s.id, run.id)).run.error).toBe("failed by the emulator's control path");
    expect((await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}`)).body.data).toMatchObject({ runCount: 1, latestRunScore: null });
  });

  it('next-run hold: the run stays running without progress until released', async () => {
    const a = await agent();
    const s = await suite(a, { iterationsPerScenario: 2 });
    await scenario(a, s.id);
    await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId: s.id });
    const run = await startRun(a, s.id);
    await new Promise((res) => setTimeout(res, 300));
    const held = (await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}/runs/${run.id}`)).body.data.run;
    expect(held).toMatchObject({ status: 'running', completedIterations: 0, failedIterations: 0 });
    expect((await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}/runs/${run.id}/results`)).body.data.results).toEqual([]);
    expect(await runEvents(run.id)).toEqual([]);
    const rel = await emu.control<any>('POST', `/evals/runs/${run.id}/release`);
    expect(rel).toMatchObject({ released: true, run: { id: run.id, status: 'running' } });
    const done = await waitRun(a, s.id, run.id);
    expect(done.run.status).toBe('completed');
    expect(await runEvents(run.id)).toHaveLength(1);
  });

  it('validates the control path', async () => {
    const bad = await fetch(`${emu.url}/_emulator/evals/next-run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'explode' }),
    });
    expect(bad.status).toBe(400);
    const unknown = await fetch(`${emu.url}/_emulator/evals/runs/run_nope/release`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    const org = await fetch(`${emu.url}/_emulator/events?org=initech`);
    expect(org.status).toBe(400);
  });

  it.each([
    ['held', true],
    ['with calls in flight', false],
  ])('fails the run (%s) when its agent is deleted mid-run, and says so in the event', async (_label, hold) => {
    const a = await agent();
    const s = await suite(a, { iterationsPerScenario: 8 });
    await scenario(a, s.id);
    if (hold) await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId: s.id });
    const run = await startRun(a, s.id);
    // Wait until it runs (held, or with its first calls placed).
    for (let i = 0; i < 100; i++) {
      const g = await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}/runs/${run.id}`);
      if (g.body.data.run.status === 'running') break;
      await new Promise((res) => setTimeout(res, 5));
    }
    expect((await emu.api('DELETE', `/api/v1/agents/${a}`)).status).toBe(200);
    let events: any[] = [];
    for (let i = 0; i < 200 && events.length === 0; i++) {
      await new Promise((res) => setTimeout(res, 20));
      events = await runEvents(run.id);
    }
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ status: 'failed', overallScore: null, runId: run.id, totalIterations: 8 });
    expect(events[0].data.completedIterations + events[0].data.failedIterations).toBeLessThan(8);
    // The agent is gone: so are its suites and runs, for the API.
    expect((await emu.api('GET', `/api/v1/agents/${a}/evals/${s.id}/runs/${run.id}`)).status).toBe(404);
    await new Promise((res) => setTimeout(res, 100));
    expect(await runEvents(run.id)).toHaveLength(1);
  });
});

describe('tenant isolation', () => {
  it("answers 404 on every path for another organization's agent, suite and run", async () => {
    const a = await agent();
    const s = await suite(a);
    const sc = await scenario(a, s.id);
    const run = await startRun(a, s.id);
    await waitRun(a, s.id, run.id);
    const base = `/api/v1/agents/${a}/evals`;
    const paths: Array<[string, string, unknown?]> = [
      ['GET', base],
      ['POST', base, { name: 'x' }],
      ['GET', `${base}/${s.id}`],
      ['PATCH', `${base}/${s.id}`, { status: 'ready' }],
      ['DELETE', `${base}/${s.id}`],
      ['GET', `${base}/${s.id}/scenarios`],
      ['POST', `${base}/${s.id}/scenarios`, SCENARIOS[0]],
      ['POST', `${base}/${s.id}/runs`],
      ['GET', `${base}/${s.id}/runs`],
      ['GET', `${base}/${s.id}/runs/${run.id}`],
      ['GET', `${base}/${s.id}/runs/${run.id}/results`],
      ['DELETE', `${base}/${s.id}/runs/${run.id}`],
    ];
    for (const [m, p, body] of paths) {
      const r = await emu.api(m, p, body, ORG_B.apiKey);
      expect(r.status, `${m} ${p}`).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    // Globex's own agent cannot reach acme's suite either.
    const g = await agent(ORG_B.apiKey);
    expect((await emu.api('GET', `/api/v1/agents/${g}/evals/${s.id}`, undefined, ORG_B.apiKey)).status).toBe(404);
    expect((await emu.api('GET', `/api/v1/agents/${g}/evals/${s.id}/runs/${run.id}`, undefined, ORG_B.apiKey)).status).toBe(404);
    // Nothing changed for acme.
    const sv = (await emu.api('GET', `${base}/${s.id}`)).body.data;
    expect(sv).toMatchObject({ status: 'draft', runCount: 1, scenarioCount: 1 });
    expect((await emu.api('GET', `${base}/${s.id}/scenarios`)).body.data.scenarios.map((x: any) => x.id)).toEqual([sc.id]);
  });
});
