import type { ApiClient } from '../api/client.js';
import {
  getRun,
  getSuite,
  listRunResults,
  listRuns,
  listScenarios,
  startRun,
  type CriterionAggregate,
  type Run,
  type RunDetail,
  type RunResult,
} from '../api/evals.js';
import { UsageError } from '../errors.js';
import { resolvePooledBaseline, type PooledBaseline, type SuiteRef } from './baseline.js';
import { evaluateGates } from './gates.js';
import { startOutcomeReads, verdictSettings, waitForEnd, type FollowSettings } from './follow.js';
import { lookText } from './look-text.js';
import type { AdaptiveStop, AdaptiveSummary, RunOutcome } from './outcome.js';
import { reportNeeds, writeReports } from './reports.js';
import type { RunDeps, RunReporter } from './run-reporter.js';
import { percent, verdictPhrase, type RunComparison } from './verdict.js';

/**
 * Budgets (`--max-calls`) and adaptive runs (`--until-decided`), shared by `evals run --wait`, preview, push and promote.
 * A run that would pass the budget is refused before any call. Each look is tested against the Lan-DeMets Pocock boundary
 * at the information reached, so that looking again does not raise the false-alarm rate.
 */

export interface CallEstimate {
  /** Calls one run places: enabled scenarios × iterations per scenario. */
  perRun: number;
  scenarios: number;
  iterations: number;
  /** Simulated call minutes of each of the suite's recent completed runs (their results' durations), newest first. */
  recentMinutes: number[];
}

/** How many recent runs the estimate of call minutes reads. */
const RECENT_RUNS = 3;

export async function estimateCalls(api: ApiClient, ref: SuiteRef, signal?: AbortSignal): Promise<CallEstimate> {
  const [suite, scenarios, recent] = await Promise.all([
    getSuite(api, ref.agentId, ref.evalId, signal),
    listScenarios(api, ref.agentId, ref.evalId, signal),
    recentMinutes(api, ref, signal),
  ]);
  const enabled = scenarios.filter((s) => s.isEnabled !== false).length;
  const iterations = Number.isSafeInteger(suite.iterationsPerScenario) ? suite.iterationsPerScenario : 1;
  return { perRun: enabled * iterations, scenarios: enabled, iterations, recentMinutes: recent };
}

/** The simulated call minutes of each of the suite's recent completed runs (their results' durations), newest first. */
export async function recentMinutes(api: ApiClient, ref: SuiteRef, signal?: AbortSignal): Promise<number[]> {
  const runs = await listRuns(api, ref.agentId, ref.evalId, signal);
  const recent = [...runs]
    .filter((r) => r.status === 'completed')
    .sort((a, b) => b.runNumber - a.runNumber)
    .slice(0, RECENT_RUNS);
  const results = await Promise.all(recent.map((r) => listRunResults(api, ref.agentId, ref.evalId, r.id, signal)));
  return results.map(
    (rs) => rs.reduce((s, r) => s + (typeof r.durationSeconds === 'number' && Number.isFinite(r.durationSeconds) ? r.durationSeconds : 0), 0) / 60,
  );
}

export interface Budget {
  /** `--max-calls` or VAP_MAX_CALLS. */
  maxCalls?: number;
  untilDecided: boolean;
}

/** `--max-calls`, else VAP_MAX_CALLS (a usage error when it is not a whole number ≥ 1). */
export function budgetFrom(maxCalls: number | undefined, env: Record<string, string | undefined>): number | undefined {
  if (maxCalls !== undefined) return maxCalls;
  const v = env.VAP_MAX_CALLS?.trim();
  if (!v) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(
      `VAP_MAX_CALLS=${v} is not a whole number of calls ≥ 1`,
      'set it to the most calls a command may place (e.g. VAP_MAX_CALLS=300), or unset it',
    );
  return n;
}

/** Refuses (exit 2, nothing started) `calls` more calls that would pass the budget; `what` names them. */
export function checkBudget(calls: number, maxCalls: number | undefined, what: string): void {
  if (maxCalls === undefined || calls <= maxCalls) return;
  throw new UsageError(
    `${what} would place ${calls} calls, more than --max-calls ${maxCalls}`,
    `raise --max-calls (or VAP_MAX_CALLS) to at least ${calls}, or lower the suite's iterations per scenario`,
  );
}

/** --until-decided needs a budget and a baseline; exit 2 before anything is sent. */
export function checkUntilDecided(untilDecided: boolean | undefined, maxCalls: number | undefined, hasBaseline: boolean): void {
  if (!untilDecided) return;
  if (maxCalls === undefined)
    throw new UsageError('--until-decided needs a budget: --max-calls <n> (or VAP_MAX_CALLS)', 'add --max-calls 300, the most calls it may place');
  if (!hasBaseline)
    throw new UsageError(
      '--until-decided needs a baseline to decide against',
      'add --baseline previous|version:<n>|<runId>, or --fail-on-regression (which compares with previous)',
    );
}

/**
 * One budget over several suites run side by side: each gets the share of `maxCalls` in
 * proportion to the calls of its run (at least one run, as checked before).
 */
export function shareBudget(perRun: readonly number[], maxCalls: number): number[] {
  const total = perRun.reduce((a, b) => a + b, 0);
  return perRun.map((n) => (total > 0 ? Math.max(n, Math.floor((maxCalls * n) / total)) : maxCalls));
}

/** The runs a budget allows: at least one (checked before), at most floor(max / perRun). */
export function runsWithin(perRun: number, maxCalls: number | undefined): number {
  if (maxCalls === undefined || perRun <= 0) return 1;
  return Math.max(1, Math.floor(maxCalls / perRun));
}

/**
 * Before anything is placed: `50 calls (5 scenarios × 10 iterations); at most 300 with
 * --until-decided (6 runs, --max-calls 300); recent runs took 41.5, 40.8 and 42.0 simulated
 * call minutes`.
 */
export function estimateText(e: CallEstimate, b: Budget): string {
  const one = `${e.perRun} call${e.perRun === 1 ? '' : 's'} (${e.scenarios} scenario${e.scenarios === 1 ? '' : 's'} × ${e.iterations} iteration${e.iterations === 1 ? '' : 's'})`;
  const runs = runsWithin(e.perRun, b.maxCalls);
  const most = b.untilDecided
    ? `; at most ${runs * e.perRun} with --until-decided (${runs} run${runs === 1 ? '' : 's'} within --max-calls ${b.maxCalls})`
    : b.maxCalls !== undefined
      ? ` (--max-calls ${b.maxCalls})`
      : '';
  const minutes = e.recentMinutes.length
    ? `; the suite's last ${e.recentMinutes.length === 1 ? 'run' : `${e.recentMinutes.length} runs`} took ${listText(e.recentMinutes.map((m) => m.toFixed(1)))} simulated call minutes${e.recentMinutes.length === 1 ? '' : ' each'}`
    : '; no completed run of the suite yet to say how many call minutes a run takes';
  return `${one}${most}${minutes}`;
}

function listText(xs: string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`;
}

/** What an adaptive run tells as it goes: each run it starts, each look. */
interface AdaptiveReporter {
  started(run: Run, callsSoFar: number, maxCalls: number): void;
  looked(look: Look): void;
}

/** Each run and look of --until-decided, one line to the run's reporter. */
function lookReporter(to: Pick<RunReporter, 'started' | 'look'>): AdaptiveReporter {
  return {
    started(r, calls, max) {
      to.started(r, `Started run #${r.runNumber} (${r.id}): ${r.totalIterations} more calls, ${calls} of at most ${max}`);
    },
    looked(l) {
      const calls = l.index === 1 ? `${l.pooledCalls} calls` : `${l.run.totalIterations} more calls (${l.pooledCalls} on version ${l.run.agentVersion ?? '?'})`;
      to.look(`Run #${l.run.runNumber}: ${calls}; ${l.comparison ? lookText(l.comparison) : `no baseline: ${l.missing}`}`);
    },
  };
}

export interface Look {
  /** 1 for the first run's end. */
  index: number;
  run: Run;
  /** Calls this command placed so far, and the budget. */
  calls: number;
  maxCalls: number;
  /** Runs and calls of the agent version pooled on this side. */
  pooledRuns: number;
  pooledCalls: number;
  comparison?: RunComparison;
  missing?: string;
}

export interface AdaptiveSettings extends FollowSettings {
  maxCalls: number;
}

export interface AdaptiveResult {
  /** The outcome of the pooled runs: the newest run, every result, the gates on the pooled scores, the verdict. */
  outcome: RunOutcome;
  stop: AdaptiveStop;
}

/** The information of a side of n calls against a baseline of n0, up to σ² (equal spread assumed): 1/(1/n + 1/n0). */
const information = (n: number, n0: number) => (n > 0 && n0 > 0 ? 1 / (1 / n + 1 / n0) : 0);

/**
 * Starts more runs of the suite on the same agent version while the verdict is undecided and the next run fits `s.maxCalls`,
 * pooling that version's completed runs unless the baseline pools them. Throws as followRun does (RunStopped, API errors).
 */
export async function runUntilDecided(deps: RunDeps, ref: SuiteRef, s: AdaptiveSettings, first: Run): Promise<AdaptiveResult> {
  const { api, signal } = deps;
  const reporter = lookReporter(deps.reporter);
  const spec = s.gates.baseline;
  if (!spec)
    throw new UsageError(
      '--until-decided needs a baseline to decide against',
      'add --baseline previous|version:<n>|<runId> (or --fail-on-regression, which compares with previous)',
    );
  const deadline = Date.now() + s.timeout;
  const mine: Array<{ detail: RunDetail; results: RunResult[] }> = [];
  /** Completed runs of the same version from before this command: pooled, no call spent. */
  const earlier: Array<{ detail: RunDetail; results: RunResult[] }> = [];
  const ids = new Set<string>();
  let run = first;
  let calls = first.totalIterations;
  let baseline: PooledBaseline | undefined;
  const looks: number[] = [];
  let comparison: RunComparison | undefined;
  let stop: AdaptiveStop;
  for (;;) {
    ids.add(run.id);
    const runRef = { ...ref, runId: run.id };
    const { detail, reads } = await waitForEnd(deps, runRef, { ...s, timeout: Math.max(1, deadline - Date.now()) });
    const results = await (reads.results ?? listRunResults(api, ref.agentId, ref.evalId, run.id, signal));
    mine.push({ detail, results });
    if (detail.run.status !== 'completed') {
      stop = 'run failed';
      break;
    }
    if (!baseline) {
      baseline = await resolvePooledBaseline(api, ref, spec, first, signal, undefined, undefined, results, ids);
      if (baseline.missing === undefined) earlier.push(...(await earlierRunsOfVersion(api, ref, first, ids, baseline, signal)));
    }
    const pooled = [...earlier, ...mine];
    const pooledCalls = pooled.reduce((n, m) => n + m.results.length, 0);
    const look: Look = { index: mine.length, run: detail.run, calls, maxCalls: s.maxCalls, pooledRuns: pooled.length, pooledCalls };
    if (baseline.missing !== undefined) {
      reporter.looked({ ...look, missing: baseline.missing });
      stop = 'no baseline';
      break;
    }
    // The information fraction of this look: what the pooled calls give, over what the budget allows.
    const n0 = baseline.results.length;
    const most = pooledCalls + Math.max(0, runsWithin(first.totalIterations, s.maxCalls) * first.totalIterations - calls);
    looks.push(Math.min(1, information(pooledCalls, n0) / information(most, n0)));
    const { compareSides } = await import('./compare.js');
    comparison = compareSides(
      { runs: pooled.map((m) => m.detail), results: pooled.flatMap((m) => m.results) },
      { runs: baseline.runs, results: baseline.results },
      verdictSettings(s.gates, looks),
    );
    reporter.looked({ ...look, comparison });
    if (comparison.verdict !== 'too few iterations') {
      stop = 'decided';
      break;
    }
    if (calls + first.totalIterations > s.maxCalls) {
      stop = 'budget';
      break;
    }
    run = await startRun(api, ref.agentId, ref.evalId);
    calls += run.totalIterations;
    reporter.started(run, calls, s.maxCalls);
  }
  const outcome = await pooledOutcome(deps, ref, s, mine, earlier, baseline, comparison, { calls, maxCalls: s.maxCalls, stop, perRun: first.totalIterations });
  await writeReports(deps, outcome, s.reports);
  return { outcome, stop };
}

/** The suite's completed runs on `first`'s agent version from before it, except those the baseline pools. */
async function earlierRunsOfVersion(
  api: ApiClient,
  ref: SuiteRef,
  first: Run,
  ids: ReadonlySet<string>,
  baseline: PooledBaseline,
  signal?: AbortSignal,
): Promise<Array<{ detail: RunDetail; results: RunResult[] }>> {
  if (typeof first.agentVersion !== 'number' || baseline.missing !== undefined) return [];
  const theirs = new Set(baseline.runs.map((d) => d.run.id));
  const runs = await listRuns(api, ref.agentId, ref.evalId, signal);
  const same = runs.filter(
    (r) => r.status === 'completed' && r.agentVersion === first.agentVersion && r.runNumber < first.runNumber && !ids.has(r.id) && !theirs.has(r.id),
  );
  return Promise.all(
    same.map(async (r) => ({
      detail: await getRun(api, ref.agentId, ref.evalId, r.id, signal),
      results: await listRunResults(api, ref.agentId, ref.evalId, r.id, signal),
    })),
  );
}

/** The words of why an adaptive run stopped. */
export function stopWhy(stop: AdaptiveStop, c: RunComparison | undefined, calls: number, maxCalls: number, perRun: number): string {
  switch (stop) {
    case 'decided':
      return `${verdictPhrase(c!.verdict)} (family-wise error ${percent(c!.method.alpha)}) after ${calls} of at most ${maxCalls} calls`;
    case 'budget':
      return `still undecided after ${calls} calls: the next run of ${perRun} would pass --max-calls ${maxCalls}`;
    case 'no baseline':
      return `nothing to decide against (no baseline) after ${calls} calls`;
    default:
      return `a run failed after ${calls} of at most ${maxCalls} calls`;
  }
}

/**
 * The outcome of the pooled runs: the newest run's detail with the pooled counts and scores
 * (what the gates read), every result, the gates, the baseline verdict, and why it stopped.
 */
async function pooledOutcome(
  deps: RunDeps,
  ref: SuiteRef,
  s: AdaptiveSettings,
  mine: Array<{ detail: RunDetail; results: RunResult[] }>,
  earlier: Array<{ detail: RunDetail; results: RunResult[] }>,
  baseline: PooledBaseline | undefined,
  comparison: RunComparison | undefined,
  a: { calls: number; maxCalls: number; stop: AdaptiveStop; perRun: number },
): Promise<RunOutcome> {
  const last = mine.at(-1)!;
  const completed = [...earlier, ...mine].filter((m) => m.detail.run.status === 'completed');
  const results = a.stop === 'run failed' ? last.results : completed.flatMap((m) => m.results);
  const detail =
    a.stop === 'run failed'
      ? last.detail
      : pooledDetail(
          completed.map((m) => m.detail),
          results,
        );
  const runRef = { ...ref, runId: last.detail.run.id };
  const reads = startOutcomeReads(deps, runRef, { ...s, gates: { ...s.gates, baseline: undefined } }, { results: Promise.resolve(results) });
  const needs = reportNeeds(s.reports, deps.env);
  const [runs, suite] = await Promise.all([reads.runs, reads.suite]);
  const spec = s.gates.baseline!;
  const typed = spec.kind === 'previous' ? 'previous' : spec.kind === 'live' ? 'live' : spec.kind === 'version' ? `version:${spec.version}` : spec.runId;
  const baselineOutcome = baseline
    ? baseline.missing !== undefined
      ? { spec: typed, missing: baseline.missing }
      : { spec: typed, side: { detail: baseline.newest, results: baseline.results }, ...(comparison ? { comparison } : {}) }
    : undefined;
  const gates = detail.run.status === 'completed' ? evaluateGates(s.gates, detail, undefined, baselineOutcome ?? {}, { results }) : [];
  const summary: AdaptiveSummary = {
    runs: mine.map((m) => ({ id: m.detail.run.id, runNumber: m.detail.run.runNumber, status: m.detail.run.status, calls: m.results.length })),
    ...(earlier.length ? { earlier: earlier.map((m) => ({ id: m.detail.run.id, runNumber: m.detail.run.runNumber, calls: m.results.length })) } : {}),
    calls: a.calls,
    maxCalls: a.maxCalls,
    stop: a.stop,
    why: stopWhy(a.stop, comparison, a.calls, a.maxCalls, a.perRun),
  };
  return {
    agentId: ref.agentId,
    evalId: ref.evalId,
    ...(s.marker ? { markerId: s.marker } : {}),
    detail,
    results,
    gates,
    baseline: baselineOutcome,
    suite: suite ? { name: suite.name } : undefined,
    history: needs.history ? runs : undefined,
    adaptive: summary,
    ...(s.gates.minScore !== undefined ? { minScore: s.gates.minScore } : {}),
  };
}

/** Several runs of one version as one: the newest run's identity, the iterations summed, the scores and criterion averages over every scored result. */
export function pooledDetail(details: readonly RunDetail[], results: readonly RunResult[]): RunDetail {
  const newest = [...details].sort((a, b) => b.run.runNumber - a.run.runNumber)[0]!;
  if (details.length === 1) return newest;
  const scored = results.filter((r) => r.status !== 'failed' && typeof r.overallScore === 'number');
  const mean = (xs: number[]) => (xs.length ? Math.round((xs.reduce((x, y) => x + y, 0) / xs.length) * 1000) / 1000 : null);
  const sum = (f: (r: Run) => unknown) => details.reduce((n, d) => n + (typeof f(d.run) === 'number' ? (f(d.run) as number) : 0), 0);
  const criteria: CriterionAggregate[] = newest.aggregates.criteria.map((c) => {
    const xs = scored.map((r) => r.criterionScores?.find((x) => x.criterionKey === c.criterionKey)?.score).filter((x): x is number => typeof x === 'number');
    return { ...c, averageScore: mean(xs), maxScore: xs.length ? Math.max(...xs) : null };
  });
  return {
    run: {
      ...newest.run,
      overallScore: mean(scored.map((r) => r.overallScore as number)),
      totalIterations: sum((r) => r.totalIterations),
      completedIterations: sum((r) => r.completedIterations),
      failedIterations: sum((r) => r.failedIterations),
    },
    aggregates: { criteria },
  };
}
