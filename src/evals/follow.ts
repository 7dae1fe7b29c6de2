import { InvalidArgumentError } from 'commander';
import type { ApiClient } from '../api/client.js';
import { FINISHED_RUN_STATUSES, listRunResults, type RunDetail, type RunResult } from '../api/evals.js';
import type { Context } from '../context.js';
import { CliError, GateError, InterruptedError, WaitTimeoutError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { annotations, appendStepSummary, appendTimeoutSummary, inGithubActions, timeoutAnnotation } from './github.js';
import { checkCriterionKeys, evaluateGates, gateArgs, type GateSpec } from './gates.js';
import { outcomeJson, type RunOutcome } from './outcome.js';
import { formatDuration, runProgress } from './progress.js';
import { renderRunSummary, runSummaryTsv, progressText } from './summary.js';
import { waitForRun, type WatchCompletion } from './wait.js';
import { safeText } from '../ui/safe-text.js';

export interface ReportTarget {
  kind: 'junit' | 'json';
  path: string;
}

/** Commander parser for the repeatable `--report junit=path|json=path`. */
export function reportOption(v: string, previous: ReportTarget[] = []): ReportTarget[] {
  const m = /^(junit|json)=(.+)$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError('--report takes junit=<path> or json=<path> (repeat it for both).');
  return [...previous, { kind: m[1] as ReportTarget['kind'], path: m[2]! }];
}

export interface FollowSettings {
  timeout: number;
  gates: GateSpec;
  reports: ReportTarget[];
  /** Poll only (no event stream): `--poll` or VAP_WAIT_POLL=1. */
  poll: boolean;
}

export interface RunRef {
  agentId: string;
  evalId: string;
  runId: string;
}

/** The command that goes on waiting for a run with the same gates and reports. */
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
 * --timeout: exit 124 with the command that goes on waiting; Ctrl-C: exit 130, the run goes on.
 */
export async function followRun(ctx: Context, api: ApiClient, ref: RunRef, s: FollowSettings, initial?: RunDetail, opts: { idPrinted?: boolean } = {}): Promise<void> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DOMException('wait timed out', 'TimeoutError')), s.timeout);
  const signal = AbortSignal.any([ctx.signal, deadline.signal]);
  const progress = runProgress(ctx);
  let last = initial;
  let keysChecked = false;
  const checkKeys = (d: RunDetail) => {
    if (keysChecked || d.aggregates.criteria.length === 0) return;
    keysChecked = true;
    checkCriterionKeys(s.gates, d.aggregates.criteria.map((c) => c.criterionKey));
  };
  let detail: RunDetail;
  let results: RunResult[] | undefined;
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
        last = d;
        checkKeys(d);
        progress?.update(d.run);
      },
    }));
  } catch (err) {
    progress?.stop();
    const seen = last ? ` (last seen ${last.run.status}, ${progressText(last.run)})` : '';
    if (ctx.signal.aborted) {
      throw new InterruptedError(`stopped waiting; run ${ref.runId} goes on${seen}. Resume waiting with: ${resumeCommand(ref, s)}`);
    }
    if (deadline.signal.aborted) {
      const what = `run ${ref.runId} had not finished after ${formatDuration(s.timeout)}${seen}; it goes on`;
      await appendTimeoutSummary(ctx.env, ref.runId, what, resumeCommand(ref, s)).catch((e: Error) => ctx.warn(`could not append to $GITHUB_STEP_SUMMARY: ${e.message}`));
      if (inGithubActions(ctx.env) && !machineOutput(ctx) && !ctx.globals.quiet) {
        ctx.io.stdout.write(`${timeoutAnnotation(ref.runId, `${what}. Keep waiting with: ${resumeCommand(ref, s)}`)}\n`);
      }
      throw new WaitTimeoutError(`${what}. Keep waiting with: ${resumeCommand(ref, s)}`);
    }
    throw err;
  } finally {
    clearTimeout(timer);
    progress?.stop();
  }
  await finishRun(ctx, api, ref, detail, s, { ...opts, results });
}

/**
 * A finished run: its results, the gates, the reports (JUnit, JSON, GitHub step summary),
 * the summary on stdout, and the exit: 0 passed, 3 below a gate, 1 the run failed.
 */
export async function finishRun(ctx: Context, api: ApiClient, ref: RunRef, detail: RunDetail, s: Pick<FollowSettings, 'gates' | 'reports'>, opts: { idPrinted?: boolean; results?: RunResult[] } = {}): Promise<void> {
  if (!FINISHED_RUN_STATUSES.has(detail.run.status)) throw new CliError(`run ${ref.runId} is still ${detail.run.status}`, ExitCode.FAILURE, 'add --wait to wait for it');
  checkCriterionKeys(s.gates, detail.aggregates.criteria.map((c) => c.criterionKey));
  const results = opts.results ?? (await listRunResults(api, ref.agentId, ref.evalId, ref.runId, ctx.signal));
  const gates = detail.run.status === 'completed' ? evaluateGates(s.gates, detail) : [];
  const outcome: RunOutcome = { agentId: ref.agentId, evalId: ref.evalId, detail, results, gates };
  await writeReports(ctx, outcome, s.reports);
  await printOutcome(ctx, outcome, opts);
  await exitFor(ctx, outcome);
}

export async function writeReports(ctx: Context, o: RunOutcome, reports: ReportTarget[]): Promise<void> {
  for (const r of reports) {
    try {
      if (r.kind === 'junit') await (await import('./report-junit.js')).writeJunitReport(r.path, o);
      else await (await import('./report-json.js')).writeJsonReport(r.path, o);
    } catch (err) {
      throw new CliError(`could not write the ${r.kind} report to ${r.path}: ${(err as Error).message}`);
    }
  }
  await appendStepSummary(ctx.env, o).catch((err: Error) => ctx.warn(`could not append to $GITHUB_STEP_SUMMARY: ${err.message}`));
}

/** Whether stdout carries data for a program (then it stays clean of annotations). */
export function machineOutput(ctx: Context): boolean {
  const g = ctx.globals;
  return Boolean(g.json || g.query || (g.output && g.output !== 'table'));
}

async function printOutcome(ctx: Context, o: RunOutcome, opts: { idPrinted?: boolean }): Promise<void> {
  const write = (text: string) => new Promise<void>((resolve) => (ctx.io.stdout.write(text) ? resolve() : ctx.io.stdout.once('drain', resolve)));
  if (ctx.globals.quiet && !ctx.globals.query) {
    if (!opts.idPrinted) await write(`${safeText(o.detail.run.id)}\n`);
    return;
  }
  if (machineOutput(ctx)) {
    if (ctx.globals.output === 'tsv' && !ctx.globals.query) await ctx.out.data(runSummaryTsv(o.detail, o.results, o.gates));
    else await ctx.out.data(outcomeJson(o));
    return;
  }
  const chalk = await ctx.stdoutStyle();
  await write(`${await renderRunSummary(o.detail, o.results, o.gates, chalk)}\n`);
  if (inGithubActions(ctx.env)) for (const line of annotations(o)) await write(`${line}\n`);
}

async function exitFor(ctx: Context, o: RunOutcome): Promise<void> {
  const run = o.detail.run;
  if (run.status === 'failed') {
    throw new CliError(`run #${run.runNumber} (${run.id}) failed${run.error ? `: ${run.error}` : ''}`);
  }
  const failed = o.gates.filter((g) => !g.passed);
  if (failed.length) {
    for (const g of failed) ctx.io.stderr.write(`✗ ${safeText(`gate ${g.gate} failed: ${g.message}`)}\n`);
    throw new GateError(`run #${run.runNumber} (${run.id}) completed below ${failed.length === 1 ? 'a gate' : `${failed.length} gates`}`);
  }
  await ctx.success(`run #${run.runNumber} (${run.id}) passed ${o.gates.length === 1 ? 'its gate' : `all ${o.gates.length} gates`}`);
}
