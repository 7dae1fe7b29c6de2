import { agentModelFor } from '../agents/model.js';
import { notFound, unprocessable } from '../errors.js';
import { eventLogFor } from '../events/log.js';
import type { ModuleEnv } from '../types.js';
import { evalModelFor, type EvalModel } from './model.js';
import { scoreCall } from './scorer.js';
import { rngFor, round3 } from './text.js';
import { simulateCall, type SimulatedCall } from './tester.js';
import { RUNS, type ResultRecord, type RunRecord, type ScoreShift, type ScoreRecord, type SuiteRecord } from './types.js';

/**
 * Eval runs in simulated time, TIMING.concurrency calls at a time, `eval.run.completed` appended
 * when the last call ends. The run record is the cursor, so a restarted emulator resumes every
 * run where it was (src/emulator/README.md).
 */

export const TIMING = { pendingMs: 2000, concurrency: 4, heldCheckMs: 10_000 } as const;
export const EVENT_TYPE = 'eval.run.completed';
export const CONTROL_FAIL_REASON = "failed by the emulator's control path";

export interface Arm {
  outcome: 'fail' | 'hold';
  reason: string | null;
  evalId: string | null;
}

const runners = new WeakMap<ModuleEnv, EvalRunner>();

/** A call's scores moved by the run's score shift: each criterion clamped to 0..1, the overall score weighted again. */
function shifted(scored: { criterionScores: ScoreRecord[]; overallScore: number }, run: RunRecord): { criterionScores: ScoreRecord[]; overallScore: number } {
  const s = run.scoreShift;
  if (!s) return scored;
  const criterionScores = scored.criterionScores.map((c) => ({
    ...c,
    score: round3(Math.min(1, Math.max(0, c.score + s.all + (s.byCriterion[c.criterionKey] ?? 0)))),
  }));
  const total = run.criteria.reduce((n, c) => n + c.weight, 0) || 1;
  const overallScore = round3(run.criteria.reduce((n, c, i) => n + c.weight * criterionScores[i]!.score, 0) / total);
  return { criterionScores, overallScore };
}

export function evalRunnerFor(env: ModuleEnv): EvalRunner {
  let r = runners.get(env);
  if (!r) {
    r = new EvalRunner(env);
    runners.set(env, r);
  }
  return r;
}

export class EvalRunner {
  private readonly model: EvalModel;
  private readonly timers = new Map<string, Set<() => void>>();
  /** Simulated calls of the runs in flight, by `${runId}:${index}` (recomputed after a restart: they are deterministic). */
  private readonly calls = new Map<string, SimulatedCall>();
  private arms: Arm[] = [];
  private readonly shifts = new Map<string, ScoreShift>();
  private closed = false;

  constructor(private readonly env: ModuleEnv) {
    this.model = evalModelFor(env);
    this.model.onSuiteDeleted((_orgId, suite) => {
      for (const [orgId, runs] of env.store.allCollections<RunRecord>(RUNS)) {
        if (orgId !== _orgId) continue;
        for (const r of runs.values()) if (r.evalId === suite.id) this.stop(r.id);
      }
    });
  }

  /** POST runs: a pending run of the suite's enabled scenarios × iterations. */
  start(orgId: string, suite: SuiteRecord): RunRecord {
    const agent = agentModelFor(this.env).find(orgId, suite.agentId);
    if (!agent) throw notFound('agent', suite.agentId);
    const scenarios = this.model.scenariosOf(orgId, suite.id).filter((s) => s.isEnabled);
    if (scenarios.length === 0) {
      throw unprocessable(
        'no_enabled_scenarios',
        `eval suite ${suite.id} has no enabled scenario to run; add an enabled one (POST .../scenarios; the API has no call that enables a scenario later)`,
      );
    }
    const plan = [];
    for (const s of scenarios) for (let i = 1; i <= suite.iterationsPerScenario; i++) plan.push({ scenarioId: s.id, iterationNumber: i, index: plan.length });
    const armIdx = this.arms.findIndex((a) => a.evalId === null || a.evalId === suite.id);
    const arm = armIdx >= 0 ? this.arms.splice(armIdx, 1)[0]! : null;
    const now = this.env.clock.iso();
    const run: RunRecord = {
      id: this.env.ids.next('run'),
      evalId: suite.id,
      agentId: suite.agentId,
      runNumber: suite.nextRunNumber++,
      status: 'pending',
      totalIterations: plan.length,
      agentVersion: agent.currentVersion,
      overallScore: null,
      completedIterations: 0,
      failedIterations: 0,
      error: null,
      createdAt: now,
      startedAt: null,
      completedAt: null,
      plan,
      scenarios: scenarios.map((s) => ({ id: s.id, name: s.name, persona: s.persona, goal: s.goal, category: s.category })),
      criteria: suite.scoringCriteria.map((c) => ({ ...c })),
      noise: suite.noise ? { ...suite.noise } : null,
      instructions: agent.config.instructions,
      agentName: agent.config.name,
      inFlight: {},
      nextIndex: 0,
      held: arm?.outcome === 'hold',
      controlFail: arm?.outcome === 'fail' ? (arm.reason ?? CONTROL_FAIL_REASON) : null,
      scoreShift: this.shiftFor(suite.agentId, agent.currentVersion, agent.config.instructions),
    };
    this.model.runs(orgId).set(run.id, run);
    this.model.suites(orgId).touch(suite.id); // its run counter moved
    this.schedule(run.id, TIMING.pendingMs, () => this.begin(orgId, run.id));
    return run;
  }

  /** Control path: the next run started (in `evalId` when given) fails right after starting, or is held. */
  arm(a: Arm): Arm {
    this.arms.push(a);
    return a;
  }

  /** Control path: the scores of runs started from now on that it selects move by `shift` (clamped to 0..1). */
  addShift(s: Omit<ScoreShift, 'id'>): ScoreShift {
    const shift = { id: this.env.ids.next('shift'), ...s };
    this.shifts.set(shift.id, shift);
    return shift;
  }

  removeShift(id: string): boolean {
    return this.shifts.delete(id);
  }

  /** The shifts a run of this agent, version and instructions gets: every criterion's, and each criterion's own. */
  private shiftFor(agentId: string, version: number, instructions: string): RunRecord['scoreShift'] {
    let all = 0;
    const byCriterion: Record<string, number> = {};
    let any = false;
    for (const s of this.shifts.values()) {
      if (s.agentId !== null && (s.agentId !== agentId || (s.fromVersion !== null && version < s.fromVersion))) continue;
      if (s.instructionsContain !== null && !instructions.includes(s.instructionsContain)) continue;
      any = true;
      if (s.criterion === null) all += s.shift;
      else byCriterion[s.criterion] = (byCriterion[s.criterion] ?? 0) + s.shift;
    }
    return any ? { all, byCriterion } : null;
  }

  disarm(): number {
    const n = this.arms.length;
    this.arms = [];
    return n;
  }

  /** Control path: a held run goes on. Undefined when no organization has the run. */
  release(runId: string): { run: RunRecord; released: boolean } | undefined {
    for (const [orgId, runs] of this.env.store.allCollections<RunRecord>(RUNS)) {
      const run = runs.get(runId);
      if (!run) continue;
      if (!run.held) return { run, released: false };
      run.held = false;
      runs.touch(run.id);
      if (run.status === 'running') this.pump(orgId, run);
      return { run, released: true };
    }
    return undefined;
  }

  /** DELETE run: stops it and removes it with its results. */
  deleteRun(orgId: string, run: RunRecord): void {
    this.stop(run.id);
    this.model.runs(orgId).delete(run.id);
    const results = this.model.results(orgId);
    for (const [id, r] of results) if (r.runId === run.id) results.delete(id);
  }

  /** After a restart: every run in flight goes on from its stored state. */
  resumeAll(): void {
    const now = this.env.clock.nowMs();
    for (const [orgId, runs] of this.env.store.allCollections<RunRecord>(RUNS)) {
      for (const run of runs.values()) {
        if (run.status === 'pending') {
          this.schedule(run.id, Date.parse(run.createdAt) + TIMING.pendingMs - now, () => this.begin(orgId, run.id));
        } else if (run.status === 'running') {
          for (const [index, endMs] of Object.entries(run.inFlight)) this.schedule(run.id, endMs - now, () => this.endCall(orgId, run.id, Number(index)));
          if (run.held) this.watchHeld(orgId, run.id);
          else this.pump(orgId, run);
        }
      }
    }
  }

  close(): void {
    this.closed = true;
    for (const id of [...this.timers.keys()]) this.stop(id);
  }

  /** Runs fn once `simMs` of simulated time have passed (never earlier: a timer that fires early waits the rest). */
  private schedule(runId: string, simMs: number, fn: () => void): void {
    if (this.closed) return;
    let set = this.timers.get(runId);
    if (!set) {
      set = new Set();
      this.timers.set(runId, set);
    }
    const s = set;
    const dueMs = this.env.clock.nowMs() + Math.max(0, simMs);
    const arm = (ms: number) => {
      const cancel = this.env.clock.after(ms, () => {
        s.delete(cancel);
        if (this.closed) return;
        const left = dueMs - this.env.clock.nowMs();
        if (left > 0) return arm(left);
        if (s.size === 0) this.timers.delete(runId);
        try {
          fn();
        } catch (err) {
          this.env.options.log?.(`eval run ${runId} failed internally: ${(err as Error).stack ?? String(err)}`);
        }
      });
      s.add(cancel);
    };
    arm(Math.max(0, simMs));
  }

  private stop(runId: string): void {
    for (const cancel of this.timers.get(runId) ?? []) cancel();
    this.timers.delete(runId);
    for (const key of [...this.calls.keys()]) if (key.startsWith(`${runId}:`)) this.calls.delete(key);
  }

  private live(orgId: string, runId: string): RunRecord | undefined {
    return this.model.runs(orgId).get(runId);
  }

  private agentGone(orgId: string, run: RunRecord): boolean {
    if (agentModelFor(this.env).find(orgId, run.agentId)) return false;
    this.finish(orgId, run, 'failed', `agent ${run.agentId} was deleted while the run was in progress`);
    return true;
  }

  private begin(orgId: string, runId: string): void {
    const run = this.live(orgId, runId);
    if (run?.status !== 'pending') return;
    run.status = 'running';
    run.startedAt = this.env.clock.iso();
    this.model.runs(orgId).touch(run.id);
    if (this.agentGone(orgId, run)) return;
    if (run.controlFail) return this.finish(orgId, run, 'failed', run.controlFail);
    if (run.held) this.watchHeld(orgId, run.id);
    else this.pump(orgId, run);
  }

  /** A held run has no call timers; it still fails when its agent is deleted. */
  private watchHeld(orgId: string, runId: string): void {
    this.schedule(runId, TIMING.heldCheckMs, () => {
      const run = this.live(orgId, runId);
      if (run?.status !== 'running' || !run.held) return;
      if (!this.agentGone(orgId, run)) this.watchHeld(orgId, runId);
    });
  }

  /** Places calls while there is room; completes the run when nothing is left. */
  private pump(orgId: string, run: RunRecord): void {
    if (run.status !== 'running' || run.held) return;
    if (this.agentGone(orgId, run)) return;
    const now = this.env.clock.nowMs();
    while (Object.keys(run.inFlight).length < TIMING.concurrency && run.nextIndex < run.plan.length) {
      const index = run.nextIndex++;
      const call = this.call(run, index);
      const endMs = now + call.durationSeconds * 1000;
      run.inFlight[index] = endMs;
      this.schedule(run.id, endMs - now, () => this.endCall(orgId, run.id, index));
    }
    this.model.runs(orgId).touch(run.id);
    if (Object.keys(run.inFlight).length === 0 && run.nextIndex >= run.plan.length) this.complete(orgId, run);
  }

  private call(run: RunRecord, index: number): SimulatedCall {
    const key = `${run.id}:${index}`;
    let call = this.calls.get(key);
    if (!call) {
      const p = run.plan[index]!;
      const scenario = run.scenarios.find((s) => s.id === p.scenarioId)!;
      call = simulateCall({
        seed: this.env.options.seed,
        evalId: run.evalId,
        runNumber: run.runNumber,
        scenario,
        iterationNumber: p.iterationNumber,
        agentName: run.agentName,
        instructions: run.instructions,
        noise: run.noise,
      });
      this.calls.set(key, call);
    }
    return call;
  }

  private endCall(orgId: string, runId: string, index: number): void {
    const run = this.live(orgId, runId);
    if (run?.status !== 'running' || !(index in run.inFlight)) return;
    if (this.agentGone(orgId, run)) return;
    const call = this.call(run, index);
    this.calls.delete(`${run.id}:${index}`);
    const p = run.plan[index]!;
    const scenario = run.scenarios.find((s) => s.id === p.scenarioId)!;
    const endMs = run.inFlight[index]!;
    delete run.inFlight[index];
    const scored = call.error
      ? null
      : shifted(scoreCall(rngFor(this.env.options.seed, run.evalId, run.runNumber, p.scenarioId, p.iterationNumber, 'score'), call, run.criteria), run);
    const result: ResultRecord = {
      id: this.env.ids.next('res'),
      runId: run.id,
      evalId: run.evalId,
      agentVersion: run.agentVersion,
      index,
      evalScenarioId: p.scenarioId,
      iterationNumber: p.iterationNumber,
      status: call.error ? 'failed' : 'completed',
      overallScore: scored?.overallScore ?? null,
      durationSeconds: call.durationSeconds,
      scenarioName: scenario.name,
      transcript: call.transcript,
      criterionScores: scored?.criterionScores ?? [],
      error: call.error,
      startedAt: this.env.clock.iso(endMs - call.durationSeconds * 1000),
      endedAt: this.env.clock.iso(endMs),
    };
    this.model.results(orgId).set(result.id, result);
    if (call.error) run.failedIterations++;
    else run.completedIterations++;
    this.model.runs(orgId).touch(run.id);
    this.pump(orgId, run);
  }

  private complete(orgId: string, run: RunRecord): void {
    const done = this.resultsOf(orgId, run.id).filter((r) => r.status === 'completed');
    if (done.length === 0) {
      const first = this.resultsOf(orgId, run.id).find((r) => r.error)?.error;
      return this.finish(
        orgId,
        run,
        'failed',
        `every iteration failed (${run.failedIterations} of ${run.totalIterations})${first ? `; the first: ${first}` : ''}`,
      );
    }
    run.overallScore = round3(done.reduce((s, r) => s + (r.overallScore ?? 0), 0) / done.length);
    this.finish(orgId, run, 'completed', null);
  }

  /** The run's final status and its event, in one step. */
  private finish(orgId: string, run: RunRecord, status: 'completed' | 'failed', error: string | null): void {
    this.stop(run.id);
    run.status = status;
    run.error = error;
    if (status === 'failed') run.overallScore = null;
    run.inFlight = {};
    run.held = false;
    run.completedAt = this.env.clock.iso();
    if (!run.startedAt) run.startedAt = run.completedAt;
    this.model.runs(orgId).touch(run.id);
    const event = eventLogFor(this.env).append(orgId, {
      type: EVENT_TYPE,
      data: {
        runId: run.id,
        evalId: run.evalId,
        agentId: run.agentId,
        runNumber: run.runNumber,
        status: run.status,
        overallScore: run.overallScore,
        agentVersion: run.agentVersion,
        totalIterations: run.totalIterations,
        completedIterations: run.completedIterations,
        failedIterations: run.failedIterations,
      },
    });
    // The same instant as the event (synchronous: nobody sees the run in between).
    run.completedAt = event.occurredAt;
  }

  /** The run's results in plan order (scenario, then iteration), read through the results' per-run facet. */
  resultsOf(orgId: string, runId: string): ResultRecord[] {
    const idx = this.model.results(orgId).ordered({ run: (r) => r.runId });
    return idx.page({ facet: 'run', values: [runId] }, 0, Number.MAX_SAFE_INTEGER, false).sort((a, b) => a.index - b.index);
  }
}
