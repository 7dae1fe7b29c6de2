import type { ApiClient } from '../api/client.js';
import { FINISHED_RUN_STATUSES, getSuite, listRunResults, listRuns, type Run, type RunDetail, type RunResult, type Suite } from '../api/evals.js';
import type { Context } from '../context.js';
import { CliError, GateError, InterruptedError, UsageError, WaitTimeoutError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { safe, safeText } from '../ui/safe-text.js';
import { baselineArg, readBaselineRun, resolvePooledBaseline, type BaselineReads, type PooledBaseline } from './baseline.js';
import { checkCriterionKeys, evaluateGates, gateArgs, type GateSpec } from './gates.js';
import { annotations, inGithubActions, timeoutAnnotation } from './github.js';
import { outcomeJson, runLabel, unseenRun, type BaselineOutcome, type RunOutcome, type RunStop } from './outcome.js';
import { runProgress } from './progress.js';
import { formatDuration } from '../ui/values.js';
import { preloadReports, reportNeeds, writeReports, type ReportTarget } from './reports.js';
import { progressText, renderRunSummary, runSummaryTsv } from './summary.js';
import { DEFAULT_ALPHA, DEFAULT_MIN_EFFECT, type VerdictSettings } from './verdict.js';
import { waitForRun, type WatchCompletion } from './wait.js';

export type { ReportTarget } from './reports.js';

/** A finished run below a gate (exit 3), with its outcome: the gates that failed, the baseline verdicts. */
export class RunGateError extends GateError {
  constructor(
    message: string,
    readonly outcome: RunOutcome,
  ) {
    super(message);
  }
}

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
async function completionWatch(api: ApiClient, ctx: Context, poll: boolean): Promise<WatchCompletion | undefined> {
  if (poll || ctx.env.VAP_WAIT_POLL === '1') return undefined;
  const { eventStreamWatch } = await import('./run-events.js');
  return eventStreamWatch(api);
}

/**
 * Waits for a run to finish (progress on stderr), then finishes it (see finishRun).
 * --timeout: exit 124 with the command that goes on waiting; Ctrl-C: exit 130, the run goes
 * on; an error of the API: exit 1. In each case the reports are still written, saying why
 * (so that a CI step that publishes them finds them, failing as the command did).
 */
export async function followRun(ctx: Context, api: ApiClient, ref: RunRef, s: FollowSettings, initial?: RunDetail, opts: { idPrinted?: boolean } = {}): Promise<RunOutcome> {
  const { detail, reads } = await waitForEnd(ctx, api, ref, s, initial);
  return finishRun(ctx, api, ref, detail, s, { ...opts, reads });
}

/**
 * Waits for a run to finish, with progress on stderr: its end and what was read beside it
 * (the results, and what the outcome needs when the event stream said it ended). --timeout,
 * Ctrl-C and an error of the API are thrown as followRun says, the reports written first.
 */
export async function waitForEnd(ctx: Context, api: ApiClient, ref: RunRef, s: FollowSettings, initial?: RunDetail): Promise<{ detail: RunDetail; reads: OutcomeReads }> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DOMException('wait timed out', 'TimeoutError')), s.timeout);
  const signal = AbortSignal.any([ctx.signal, deadline.signal]);
  const progress = await runProgress(ctx);
  let last = initial;
  let keysChecked = false;
  const checkKeys = (d: RunDetail) => {
    if (keysChecked || d.aggregates.criteria.length === 0) return;
    keysChecked = true;
    checkCriterionKeys(s.gates, d.aggregates.criteria.map((c) => c.criterionKey));
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
      watch: await completionWatch(api, ctx, s.poll),
      onProgress: (d) => {
        // The first answer is in: the report builders load while the run goes on.
        if (!last) preloadReports(s.reports, ctx.env);
        last = d;
        checkKeys(d);
        progress?.update(d.run);
      },
      // The stream said the run ended: what the gates and reports need besides the run and
      // its results (the suite, its runs, a baseline) is read beside them.
      onEnded: () => {
        reads = startOutcomeReads(ctx, api, ref, s, {}, { results: false });
      },
    }));
  } catch (err) {
    progress?.stop();
    const seen = last ? ` (last seen ${last.run.status}, ${progressText(last.run)})` : '';
    const resume = resumeCommand(ref, s);
    if (ctx.signal.aborted) {
      const message = `stopped waiting; run ${ref.runId} goes on${seen}`;
      await writeStopped(ctx, ref, s, last, { kind: 'interrupted', message, resume });
      throw new InterruptedError(`${message}. Resume waiting with: ${resume}`);
    }
    if (deadline.signal.aborted) {
      const what = `run ${ref.runId} had not finished after ${formatDuration(s.timeout)}${seen}; it goes on`;
      await writeStopped(ctx, ref, s, last, { kind: 'timeout', message: what, resume });
      if (inGithubActions(ctx.env) && !machineOutput(ctx) && !ctx.globals.quiet) {
        ctx.io.stdout.write(`${timeoutAnnotation(ref.runId, `${what}. Keep waiting with: ${resume}`)}\n`);
      }
      throw new WaitTimeoutError(`${what}. Keep waiting with: ${resume}`);
    }
    if (!(err instanceof UsageError)) await writeStopped(ctx, ref, s, last, { kind: 'error', message: `stopped waiting for run ${ref.runId}${seen}: ${(err as Error)?.message ?? String(err)}`, resume });
    throw err;
  } finally {
    clearTimeout(timer);
    progress?.stop();
  }
  return { detail, reads: { ...reads, ...(results ? { results: Promise.resolve(results) } : {}) } };
}

/** The reports of a run the wait gave up on: its last-seen state and why (a failure to write them is only a warning). */
async function writeStopped(ctx: Context, ref: RunRef, s: Pick<FollowSettings, 'reports' | 'marker'>, last: RunDetail | undefined, stop: RunStop): Promise<void> {
  const o: RunOutcome = { agentId: ref.agentId, evalId: ref.evalId, ...(s.marker ? { markerId: s.marker } : {}), detail: last ?? unseenRun(ref.runId), results: [], gates: [], stopped: stop };
  await writeReports(ctx, o, s.reports).catch((err: Error) => ctx.warn(err.message));
}

/**
 * A finished run: its results, its baseline and verdicts, the gates, the reports (JUnit,
 * JSON, Markdown, HTML, GitHub step summary), the summary on stdout, and the exit: 0
 * passed, 3 below a gate, 1 the run failed.
 */
export async function finishRun(
  ctx: Context,
  api: ApiClient,
  ref: RunRef,
  detail: RunDetail,
  s: Pick<FollowSettings, 'gates' | 'reports' | 'marker' | 'maxCalls'>,
  opts: { idPrinted?: boolean; reads?: OutcomeReads } = {},
): Promise<RunOutcome> {
  checkCriterionKeys(s.gates, detail.aggregates.criteria.map((c) => c.criterionKey));
  if (!FINISHED_RUN_STATUSES.has(detail.run.status)) {
    const err = new CliError(`run ${ref.runId} is still ${detail.run.status}`, ExitCode.FAILURE, 'add --wait to wait for it');
    await writeStopped(ctx, ref, s, detail, { kind: 'error', message: `run ${runLabel(detail.run)} is still ${detail.run.status}: add --wait to wait for it`, resume: resumeCommand(ref, s) });
    throw err;
  }
  let outcome: RunOutcome;
  try {
    outcome = await gatherOutcome(ctx, api, ref, detail, s, opts.reads);
  } catch (err) {
    if (!(err instanceof UsageError)) await writeStopped(ctx, ref, s, detail, { kind: 'error', message: `could not read run ${runLabel(detail.run)}: ${(err as Error)?.message ?? String(err)}` });
    throw err;
  }
  return completeOutcome(ctx, outcome, s, opts);
}

/** A finished outcome's end: the reports written, the summary printed, the exit (1 the run failed, 3 below a gate, else 0). */
export async function completeOutcome(ctx: Context, outcome: RunOutcome, s: Pick<FollowSettings, 'reports'>, opts: { idPrinted?: boolean } = {}): Promise<RunOutcome> {
  await writeReports(ctx, outcome, s.reports);
  const printed = await printOutcome(ctx, outcome, opts);
  await exitFor(ctx, outcome, printed);
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
 * Starts every read the outcome needs that `known` does not hold already, side by side
 * (`results: false`: not the results, read elsewhere). Started before the run is known to
 * have ended, they may go unused: none can then be an unhandled rejection (each is awaited,
 * and its error thrown, where it is used).
 */
export function startOutcomeReads(ctx: Context, api: ApiClient, ref: RunRef, s: Pick<FollowSettings, 'gates' | 'reports'>, known: OutcomeReads = {}, what: { results?: boolean } = {}): OutcomeReads {
  const needs = reportNeeds(s.reports, ctx.env);
  const spec = s.gates.baseline;
  const reads: OutcomeReads = {
    results: known.results ?? (what.results === false ? undefined : listRunResults(api, ref.agentId, ref.evalId, ref.runId, ctx.signal)),
    runs: known.runs ?? (needs.history || (spec !== undefined && spec.kind !== 'run' && !(spec.kind === 'live' && spec.suite)) ? listRuns(api, ref.agentId, ref.evalId, ctx.signal) : undefined),
    suite: known.suite ?? (needs.suite ? getSuite(api, ref.agentId, ref.evalId, ctx.signal).catch(() => undefined) : undefined),
    baseline:
      known.baseline ??
      (spec?.kind === 'run' && spec.runId !== ref.runId
        ? { run: readBaselineRun(api, ref, spec.runId, ctx.signal), results: listRunResults(api, ref.agentId, ref.evalId, spec.runId, ctx.signal) }
        : undefined),
  };
  for (const p of [reads.results, reads.runs, reads.baseline?.run, reads.baseline?.results]) p?.catch(() => undefined);
  return reads;
}

/** Reads what the gates and reports need, side by side (what was read already, or is being read, is not asked for again): results, baseline (and its results), suite, recent runs. */
export async function gatherOutcome(ctx: Context, api: ApiClient, ref: RunRef, detail: RunDetail, s: Pick<FollowSettings, 'gates' | 'reports' | 'marker' | 'maxCalls'>, known: OutcomeReads = {}): Promise<RunOutcome> {
  const needs = reportNeeds(s.reports, ctx.env);
  const spec = s.gates.baseline;
  const fresh = startOutcomeReads(ctx, api, ref, s, known);
  // Every request is out (the run's answer is in): the report builders compile while the rest arrives.
  preloadReports(s.reports, ctx.env);
  const [results, runs, suite] = await Promise.all([fresh.results, fresh.runs, fresh.suite]);
  const baseline = spec && detail.run.status === 'completed' ? await baselineOutcome(ctx, api, ref, detail, results!, runs) : undefined;
  const gates = detail.run.status === 'completed' ? evaluateGates(s.gates, detail, undefined, baseline, { results: results! }) : [];
  return { agentId: ref.agentId, evalId: ref.evalId, ...(s.marker ? { markerId: s.marker } : {}), detail, results: results!, gates, baseline, suite: suite ? { name: suite.name } : undefined, history: needs.history ? runs : undefined, ...(s.gates.minScore !== undefined ? { minScore: s.gates.minScore } : {}), ...(s.maxCalls !== undefined ? { maxCalls: s.maxCalls } : {}) };

  async function baselineOutcome(ctx: Context, api: ApiClient, ref: RunRef, d: RunDetail, res: RunResult[], list?: Run[]): Promise<BaselineOutcome> {
    const typed = baselineArg(spec!);
    let found: PooledBaseline;
    try {
      found = await resolvePooledBaseline(api, ref, spec!, d.run, ctx.signal, list, fresh.baseline, res);
    } catch (err) {
      // Checked before the wait; a baseline deleted since then is said, not fatal.
      if (err instanceof UsageError) found = { missing: err.message };
      else throw err;
    }
    if (found.missing !== undefined) {
      await ctx.warn(safe`no baseline: ${found.missing}; the verdicts are left out`);
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

/** Whether stdout carries data for a program (then it stays clean of annotations). */
export function machineOutput(ctx: Context): boolean {
  const g = ctx.globals;
  return Boolean(g.json || g.query || (g.output && g.output !== 'table'));
}

/** Prints the outcome; true when the summary a person reads (with the gates) went to stdout. */
async function printOutcome(ctx: Context, o: RunOutcome, opts: { idPrinted?: boolean }): Promise<boolean> {
  const write = (text: string) => new Promise<void>((resolve) => (ctx.io.stdout.write(text) ? resolve() : ctx.io.stdout.once('drain', resolve)));
  if (ctx.globals.quiet && !ctx.globals.query) {
    if (!opts.idPrinted) await write(`${safeText(o.detail.run.id)}\n`);
    return false;
  }
  if (machineOutput(ctx)) {
    if (ctx.globals.output === 'tsv' && !ctx.globals.query) await ctx.out.data(runSummaryTsv(o.detail, o.results, o.gates, o.baseline?.comparison));
    else await ctx.out.data(outcomeJson(o));
    return false;
  }
  const chalk = await ctx.stdoutStyle();
  await write(`${await renderRunSummary(o.detail, o.results, o.gates, chalk, o.baseline, ctx.tableFit())}\n`);
  if (inGithubActions(ctx.env)) for (const line of annotations(o)) await write(`${line}\n`);
  return true;
}

/** The exit: 1 when the run failed, 3 below a gate (each failed gate printed once: in the summary, or on stderr when stdout carries data), else 0. */
async function exitFor(ctx: Context, o: RunOutcome, gatesPrinted: boolean): Promise<void> {
  const run = o.detail.run;
  if (run.status === 'failed') {
    throw new CliError(safe`run #${run.runNumber} (${run.id}) failed${run.error ? `: ${safeText(run.error)}` : ''}`);
  }
  const failed = o.gates.filter((g) => !g.passed);
  if (failed.length) {
    if (!gatesPrinted) for (const g of failed) ctx.note(safe`✗ gate ${g.gate} failed: ${g.message}`);
    const after = o.adaptive ? `, after ${o.adaptive.calls} of at most ${o.adaptive.maxCalls} calls` : '';
    throw new RunGateError(safe`run #${run.runNumber} (${run.id}) completed below ${failed.length === 1 ? 'a gate' : `${failed.length} gates`}${after}`, o);
  }
  await ctx.success(safe`run #${run.runNumber} (${run.id}) passed ${o.gates.length === 1 ? 'its gate' : `all ${o.gates.length} gates`}`);
}
