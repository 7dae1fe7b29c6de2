import type { Run, RunDetail } from '../../api/evals.js';
import type { Context } from '../../context.js';
import { CliError, GateError, InterruptedError, WaitTimeoutError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { safe, safeText } from '../../ui/safe-text.js';
import { annotations, inGithubActions, timeoutAnnotation } from '../github.js';
import { outcomeJson, outcomeVerdict, waitStopText, type RunOutcome, type WaitStop } from '../outcome.js';
import { drawsInPlace } from '../../ui/accessible.js';
import { barProgress, LineProgress, type RunProgress } from '../progress.js';
import type { RunEnd } from '../run-gated.js';
import type { RunReporter } from '../run-reporter.js';
import { renderRunSummary, runSummaryTsv } from '../summary.js';

/**
 * How the verbs show a followed run (`vap evals run`, `evals runs get`, and the gates of
 * push, preview and promote): progress and notes on stderr, the summary (or JSON, TSV, the
 * id with -q) on stdout, GitHub annotations, and the exit as an error thrown.
 */

/** A finished run below a gate (exit 3), with its outcome: the gates that failed, the baseline verdicts. */
export class RunGateError extends GateError {
  constructor(
    message: string,
    readonly outcome: RunOutcome,
  ) {
    super(message);
  }
}

/** The run's reporter on a command's stderr: `quietIds`, -q prints a started run's id on stdout instead; `indent`, the runs and looks of --until-decided are indented under their suite. */
export function cliReporter(ctx: Context, opts: { indent?: boolean; quietIds?: boolean } = {}): RunReporter {
  const line = (text: string) => (opts.indent ? safe`  ${text}` : text);
  return {
    info: (text) => ctx.info(text),
    warn: (text) => ctx.warn(text),
    started(run, text) {
      if (opts.quietIds && ctx.globals.quiet) ctx.io.stdout.write(`${safeText(run.id)}\n`);
      else ctx.info(line(text));
    },
    look: (text) => ctx.info(line(text)),
    progress: () => runProgress(ctx),
  };
}

/** A live bar on a terminal's stderr, plain lines otherwise, nothing with -q. */
async function runProgress(ctx: Context): Promise<RunProgress | null> {
  if (ctx.globals.quiet) return null;
  if (!drawsInPlace(ctx)) return new LineProgress((line) => ctx.io.stderr.write(`${safeText(line)}\n`));
  return barProgress(ctx.io.stderr);
}

/** Whether stdout carries data for a program (then it stays clean of annotations). */
export function machineOutput(ctx: Context): boolean {
  const g = ctx.globals;
  return Boolean(g.json || g.query || (g.output && g.output !== 'table'));
}

/**
 * Shows how a run ended and ends as the command must: `show.started` shows a run not waited
 * for, `show.run` one read without gates or still going; `idPrinted`: -q printed the id.
 */
export async function renderRunEnd(
  ctx: Context,
  end: RunEnd,
  show: { started?(run: Run): Promise<void>; run?(detail: RunDetail): Promise<void> },
  opts: { idPrinted?: boolean } = {},
): Promise<void> {
  switch (end.kind) {
    case 'started':
      await show.started?.(end.run);
      ctx.info(`Wait for it (and gate on it) with: ${end.resume}`);
      return;
    case 'read':
      await show.run?.(end.detail);
      return;
    case 'running':
      await show.run?.(end.detail);
      await end.writeReports();
      throw new CliError(`run ${end.runId} is still ${end.detail.run.status}`, ExitCode.FAILURE, 'add --wait to wait for it');
    case 'stopped':
      throw stopError(ctx, end.stop);
    case 'ended':
      await showOutcome(ctx, end.outcome, opts);
  }
}

/** The error a stopped wait ends with (124 or 130); a timeout in GitHub Actions is also an annotation on stdout. */
export function stopError(ctx: Context, stop: WaitStop): Error {
  if (stop.kind === 'interrupted') return new InterruptedError(waitStopText(stop));
  if (inGithubActions(ctx.env) && !machineOutput(ctx) && !ctx.globals.quiet) ctx.io.stdout.write(`${timeoutAnnotation(stop.runId, waitStopText(stop))}\n`);
  return new WaitTimeoutError(waitStopText(stop));
}

/** A finished run: the summary printed, and the exit (1 the run failed, 3 below a gate, else 0). */
export async function showOutcome(ctx: Context, outcome: RunOutcome, opts: { idPrinted?: boolean } = {}): Promise<void> {
  const printed = await printOutcome(ctx, outcome, opts);
  await exitFor(ctx, outcome, printed);
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
  const verdict = outcomeVerdict(o);
  if (verdict.kind === 'failed') throw new CliError(verdict.message);
  if (verdict.kind === 'gates') {
    if (!gatesPrinted) for (const g of verdict.failed) ctx.note(safe`✗ gate ${g.gate} failed: ${g.message}`);
    throw new RunGateError(verdict.message, o);
  }
  await ctx.success(verdict.message);
}
