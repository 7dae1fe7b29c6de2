import { getSuite, listRunResults, listRuns, type Run, type RunDetail, type RunResult, type Suite } from '../api/evals.js';
import { UsageError } from '../errors.js';
import { safe } from '../ui/safe-text.js';
import { baselineArg, readBaselineRun, resolvePooledBaseline, type BaselineReads, type PooledBaseline } from './baseline.js';
import { checkCriterionKeys, evaluateGates, gateArgs, type GateSpec } from './gates.js';
import { runLabel, unseenRun, type BaselineOutcome, type RunOutcome, type RunStop, type WaitStop } from './outcome.js';
import { formatDuration } from '../ui/values.js';
import { preloadReports, reportNeeds, writeReports, type ReportTarget } from './reports.js';
import type { RunDeps, RunReporter } from './run-reporter.js';
import { progressText } from './summary.js';
import { DEFAULT_ALPHA, DEFAULT_MIN_EFFECT, type VerdictSettings } from './verdict.js';
import { waitForRun, type WatchCompletion } from './wait.js';

export type { ReportTarget } from './reports.js';

export interface FollowSettings {
  timeout: number;
  gates: GateSpec;
  reports: ReportTarget[];
  /** Poll only (no event stream): `--poll` or VAP_WAIT_POLL=1. */
  poll: boolean;
  /**
   * The suite id the Markdown report's hidden marker names, when it is not the run's own
   * suite (a preview's copy names the live suite, so its pull-request comment is one).
   */
  marker?: string;
  /** `--max-calls`, when given: the reports say the calls spent against it. */
  maxCalls?: number;
}

export interface RunRef {
  agentId: string;
  evalId: string;
  runId: string;
}

/** The command that goes on waiting for a run with the same gates, baseline and reports. */
export function resumeCommand(ref: RunRef, s: Pick<FollowSettings, 'gates' | 'reports'>): string {
  const args = ['vap', 'evals', 'runs', 'get', ref.runId, '--eval', ref.evalId, '--agent', ref.agentId, '--wait', ...gateArgs(s.gates)];
  for (const r of s.reports) args.push('--report', `${r.kind}=${r.path}`);
  return args.map(shellWord).join(' ');
}

function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Chooses how to learn of the run's end: the organization's event stream, unless told to poll. */
async function completionWatch(deps: RunDeps, poll: boolean): Promise<WatchCompletion | undefined> {
  if (poll || deps.env.VAP_WAIT_POLL === '1') return undefined;
  const { eventStreamWatch } = await import('./run-events.js');
  return eventStreamWatch(deps.api);
}

/** The wait ended before the run did (--timeout, Ctrl-C), its reports written: startAndGate and readAndGate return it as a value. */
export class RunStopped extends Error {
  constructor(readonly stop: WaitStop) {
    super(stop.message);
    this.name = 'RunStopped';
  }
}

/**
 * Waits for a run to end, then finishes it (see finishRun). On --timeout, Ctrl-C (RunStopped: the run goes on) or an API
 * error the reports are still written, saying why, so that a CI step publishing them finds them, failing as the command did.
 */
export async function followRun(deps: RunDeps, ref: RunRef, s: FollowSettings, initial?: RunDetail): Promise<RunOutcome> {
  const { detail, reads } = await waitForEnd(deps, ref, s, initial);
  return finishRun(deps, ref, detail, s, reads);
}

/**
 * Waits for a run to finish, with its progress: its end and what was read beside it
 * (the results, and what the outcome needs when the event stream said it ended). --timeout,
 * Ctrl-C and an error of the API are thrown as followRun says, the reports written first.
 */
export async function waitForEnd(deps: RunDeps, ref: RunRef, s: FollowSettings, initial?: RunDetail): Promise<{ detail: RunDetail; reads: OutcomeReads }> {
  const { api } = deps;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DOMException('wait timed out', 'TimeoutError')), s.timeout);
  const signal = AbortSignal.any([deps.signal, deadline.signal]);
  const progress = await deps.reporter.progress();
  let last = initial;
  let keysChecked = false;
  const checkKeys = (d: RunDetail) => {
    if (keysChecked || d.aggregates.criteria.length === 0) return;
    keysChecked = true;
    checkCriterionKeys(
      s.gates,
      d.aggregates.criteria.map((c) => c.criterionKey),
    );
  };
  let detail: RunDetail;
  let results: RunResult[] | undefined;
  let reads: OutcomeReads | undefined;
  try {
    if (initial) {
      checkKeys(initial);
      progress?.update(initial.run);
    }
    ({ detail, results } = await waitForRun(api, {
      ...ref,
      signal,
      initial,
      watch: await completionWatch(deps, s.poll),
      onProgress: (d) => {
        // The first answer is in: the report builders load while the run goes on.
        if (!last) preloadReports(s.reports, deps.env);
        last = d;
        checkKeys(d);
        progress?.update(d.run);
      },
      // The stream said the run ended: what the gates and reports need besides the run and
      // its results (the suite, its runs, a baseline) is read beside them.
      onEnded: () => {
        reads = startOutcomeReads(deps, ref, s, {}, { results: false });
      },
    }));
  } catch (err) {
    progress?.stop();
    const seen = last ? ` (last seen ${last.run.status}, ${progressText(last.run)})` : '';
    const resume = resumeCommand(ref, s);
    if (deps.signal.aborted) {
      const message = `stopped waiting; run ${ref.runId} goes on${seen}`;
      await writeStopped(deps, ref, s, last, { kind: 'interrupted', message, resume });
      throw new RunStopped({ kind: 'interrupted', runId: ref.runId, message, resume });
    }
    if (deadline.signal.aborted) {
      const message = `run ${ref.runId} had not finished after ${formatDuration(s.timeout)}${seen}; it goes on`;
      await writeStopped(deps, ref, s, last, { kind: 'timeout', message, resume });
      throw new RunStopped({ kind: 'timeout', runId: ref.runId, message, resume });
    }
    if (!(err instanceof UsageError))
      await writeStopped(deps, ref, s, last, {
        kind: 'error',
        message: `stopped waiting for run ${ref.runId}${seen}: ${(err as Error)?.message ?? String(err)}`,
        resume,
      });
    throw err;
  } finally {
    clearTimeout(timer);
    progress?.stop();
  }
  return { detail, reads: { ...reads, ...(results ? { results: Promise.resolve(results) } : {}) } };
}

/** The reports of a run the wait gave up on: its last-seen state and why (a failure to write them is only a warning). */
export async function writeStopped(
  deps: RunDeps,
  ref: RunRef,
  s: Pick<FollowSettings, 'reports' | 'marker'>,
  last: RunDetail | undefined,
  stop: RunStop,
): Promise<void> {
  const o: RunOutcome = {
    agentId: ref.agentId,
    evalId: ref.evalId,
    ...(s.marker ? { markerId: s.marker } : {}),
    detail: last ?? unseenRun(ref.runId),
    results: [],
    gates: [],
    stopped: stop,
  };
  await writeReports(deps, o, s.reports).catch((err: Error) => deps.reporter.warn(err.message));
}

/**
 * A finished run: its results, its baseline and verdicts, the gates, and the reports
 * (JUnit, JSON, Markdown, HTML, GitHub step summary) written. The caller shows it and
 * ends as outcomeVerdict says.
 */
export async function finishRun(
  deps: RunDeps,
  ref: RunRef,
  detail: RunDetail,
  s: Pick<FollowSettings, 'gates' | 'reports' | 'marker' | 'maxCalls'>,
  reads?: OutcomeReads,
): Promise<RunOutcome> {
  checkCriterionKeys(
    s.gates,
    detail.aggregates.criteria.map((c) => c.criterionKey),
  );
  let outcome: RunOutcome;
  try {
    outcome = await gatherOutcome(deps, ref, detail, s, reads);
  } catch (err) {
    if (!(err instanceof UsageError))
      await writeStopped(deps, ref, s, detail, {
        kind: 'error',
        message: `could not read run ${runLabel(detail.run)}: ${(err as Error)?.message ?? String(err)}`,
      });
    throw err;
  }
  await writeReports(deps, outcome, s.reports);
  return outcome;
}

/**
 * What the gates and reports of a finished run need besides the run: its results, the
 * suite (its name), the suite's runs (the HTML trend chart, `--baseline previous|version:n`)
 * and a baseline named by id (the run and its results). Each is a request in flight.
 */
export interface OutcomeReads {
  results?: Promise<RunResult[]>;
  runs?: Promise<Run[]>;
  suite?: Promise<Suite | undefined>;
  baseline?: BaselineReads;
}

/**
 * Starts, side by side, every read the outcome needs that `known` lacks (`results: false`: results are read elsewhere).
 * Started before the run is known to have ended, they may go unused, so none may become an unhandled rejection:
 * each is awaited, and its error thrown, where it is used.
 */
export function startOutcomeReads(
  deps: Pick<RunDeps, 'api' | 'env' | 'signal'>,
  ref: RunRef,
  s: Pick<FollowSettings, 'gates' | 'reports'>,
  known: OutcomeReads = {},
  what: { results?: boolean } = {},
): OutcomeReads {
  const { api, signal } = deps;
  const needs = reportNeeds(s.reports, deps.env);
  const spec = s.gates.baseline;
  const reads: OutcomeReads = {
    results: known.results ?? (what.results === false ? undefined : listRunResults(api, ref.agentId, ref.evalId, ref.runId, signal)),
    runs:
      known.runs ??
      (needs.history || (spec !== undefined && spec.kind !== 'run' && !(spec.kind === 'live' && spec.suite))
        ? listRuns(api, ref.agentId, ref.evalId, signal)
        : undefined),
    suite: known.suite ?? (needs.suite ? getSuite(api, ref.agentId, ref.evalId, signal).catch(() => undefined) : undefined),
    baseline:
      known.baseline ??
      (spec?.kind === 'run' && spec.runId !== ref.runId
        ? { run: readBaselineRun(api, ref, spec.runId, signal), results: listRunResults(api, ref.agentId, ref.evalId, spec.runId, signal) }
        : undefined),
  };
  for (const p of [reads.results, reads.runs, reads.baseline?.run, reads.baseline?.results]) p?.catch(() => undefined);
  return reads;
}

/** Reads what the gates and reports need, side by side (what was read already, or is being read, is not asked for again): results, baseline (and its results), suite, recent runs. */
export async function gatherOutcome(
  deps: Pick<RunDeps, 'api' | 'env' | 'signal'> & { reporter: Pick<RunReporter, 'warn'> },
  ref: RunRef,
  detail: RunDetail,
  s: Pick<FollowSettings, 'gates' | 'reports' | 'marker' | 'maxCalls'>,
  known: OutcomeReads = {},
): Promise<RunOutcome> {
  const needs = reportNeeds(s.reports, deps.env);
  const spec = s.gates.baseline;
  const fresh = startOutcomeReads(deps, ref, s, known);
  // Every request is out (the run's answer is in): the report builders compile while the rest arrives.
  preloadReports(s.reports, deps.env);
  const [results, runs, suite] = await Promise.all([fresh.results, fresh.runs, fresh.suite]);
  const baseline = spec && detail.run.status === 'completed' ? await baselineOutcome(detail, results!, runs) : undefined;
  const gates = detail.run.status === 'completed' ? evaluateGates(s.gates, detail, undefined, baseline, { results: results! }) : [];
  return {
    agentId: ref.agentId,
    evalId: ref.evalId,
    ...(s.marker ? { markerId: s.marker } : {}),
    detail,
    results: results!,
    gates,
    baseline,
    suite: suite ? { name: suite.name } : undefined,
    history: needs.history ? runs : undefined,
    ...(s.gates.minScore !== undefined ? { minScore: s.gates.minScore } : {}),
    ...(s.maxCalls !== undefined ? { maxCalls: s.maxCalls } : {}),
  };

  async function baselineOutcome(d: RunDetail, res: RunResult[], list?: Run[]): Promise<BaselineOutcome> {
    const typed = baselineArg(spec!);
    let found: PooledBaseline;
    try {
      found = await resolvePooledBaseline(deps.api, ref, spec!, d.run, deps.signal, list, fresh.baseline, res);
    } catch (err) {
      // Checked before the wait; a baseline deleted since then is said, not fatal.
      if (err instanceof UsageError) found = { missing: err.message };
      else throw err;
    }
    if (found.missing !== undefined) {
      await deps.reporter.warn(safe`no baseline: ${found.missing}; the verdicts are left out`);
      return { spec: typed, missing: found.missing };
    }
    const { compareSides } = await import('./compare.js');
    const side = { detail: found.newest, results: found.results };
    return { spec: typed, side, comparison: compareSides({ runs: [d], results: res }, { runs: found.runs, results: found.results }, verdictSettings(s.gates)) };
  }
}

/** The verdicts' settings of a gate spec (--min-effect, --alpha; `looks` for an adaptive run). */
export function verdictSettings(g: Pick<GateSpec, 'minEffect' | 'alpha'>, looks?: readonly number[]): VerdictSettings {
  return { minEffect: g.minEffect ?? DEFAULT_MIN_EFFECT, alpha: g.alpha ?? DEFAULT_ALPHA, ...(looks ? { looks } : {}) };
}
