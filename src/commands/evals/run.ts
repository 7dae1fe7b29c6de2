import { Command, Option } from 'commander';
import { ApiError } from '../../api/errors.js';
import { getSuite, startRun, type Run } from '../../api/evals.js';
import { CliError, UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { Context, GlobalOptions } from '../../context.js';
import { baselineOption, checkBaseline, type BaselineSpec } from '../../evals/baseline.js';
import { followRun, resumeCommand, type FollowSettings } from '../../evals/follow.js';
import { checkCriterionKeys, countOption, criterionGateOption, scoreOption, type CriterionGate, type GateSpec } from '../../evals/gates.js';
import { checkReportTargets, reportOption, type ReportTarget } from '../../evals/reports.js';
import { action } from '../action.js';
import { safeText } from '../../ui/safe-text.js';
import { durationOption } from '../duration.js';
import type { ContextFactory } from '../types.js';
import { agentOption, resolveAgent } from './options.js';

/** The options shared by `run`, `runs get` and `runs diff`. */
export interface GateOptions {
  minScore?: number;
  minCriterion?: CriterionGate[];
  allowFailedIterations?: number;
  baseline?: BaselineSpec;
  failOnRegression?: boolean;
  minEffect?: number;
}

export interface WaitOptions extends GateOptions {
  wait?: boolean;
  timeout: number;
  report?: ReportTarget[];
  poll?: boolean;
}

export const DEFAULT_TIMEOUT_MS = 30 * 60_000;

/** --min-score, --min-criterion (repeatable), --allow-failed-iterations. */
export function addGateOptions(cmd: Command): Command {
  return cmd
    .option('--min-score <score>', 'exit 3 when the overall score is below this (0..1)', scoreOption('--min-score'))
    .option('--min-criterion <key=score>', 'exit 3 when this criterion averages below the score (repeatable)', criterionGateOption)
    .option('--allow-failed-iterations <n>', 'failed iterations that do not fail the gate (default 0: any failed iteration exits 3)', countOption('--allow-failed-iterations'));
}

/** --baseline, --fail-on-regression, --min-effect: the comparison with another run and its gate. */
export function addBaselineOptions(cmd: Command, what = 'the run'): Command {
  return cmd
    .option('--baseline <runId|previous|version:n|live>', `compare ${what} with a run: its id, previous (the newest completed run before it), version:<n> (the newest completed run on agent version n), or live (the live agent's newest completed run); a verdict per scenario and criterion`, baselineOption)
    .option('--fail-on-regression', 'exit 3 when a scenario or criterion regressed significantly against the baseline (default baseline: previous)')
    .option('--min-effect <score>', 'the smallest change a verdict counts as regressed or improved (default 0.05)', scoreOption('--min-effect'));
}

/** --wait, --timeout, --report (repeatable) and the hidden --poll. */
export function addWaitOptions(cmd: Command): Command {
  return addFollowOptions(cmd.option('--wait', 'follow the run until it ends, then print the scores and apply the gates'), {
    timeout: 'with --wait: give up after this long with exit 124; the run goes on',
    report: 'when the run ends (or the wait does), write junit=<path>, json=<path>, markdown=<path> (a pull-request comment) or html=<path> (repeatable)',
    poll: 'learn of the end by polling only, not from the event stream',
  });
}

/** How a command that follows runs to their end says so in its help: --timeout, --report and the hidden --poll. */
export interface FollowHelp {
  /** What --timeout does (its examples are added). */
  timeout: string;
  report: string;
  /** What --poll does (VAP_WAIT_POLL is added). */
  poll: string;
}

/** --timeout (default 30m), --report (repeatable) and the hidden --poll of a command that follows runs: evals run, push, promote and preview. */
export function addFollowOptions(cmd: Command, help: FollowHelp): Command {
  return cmd
    .addOption(new Option('--timeout <duration>', `${help.timeout} (30s, 10m, 1h)`).argParser(durationOption('--timeout', { min: 1 })).default(DEFAULT_TIMEOUT_MS, '30m'))
    .option('--report <kind=path>', help.report, reportOption)
    .addOption(new Option('--poll', `${help.poll} (also VAP_WAIT_POLL=1)`).hideHelp());
}

/** The gate, baseline and report flags given (what needs the run to be followed to be of any use). */
export function gateFlagsGiven(opts: GateOptions & { report?: unknown[] }): string[] {
  return [
    opts.minScore !== undefined && '--min-score',
    opts.minCriterion?.length && '--min-criterion',
    opts.allowFailedIterations !== undefined && '--allow-failed-iterations',
    opts.report?.length && '--report',
    opts.baseline && '--baseline',
    opts.failOnRegression && '--fail-on-regression',
    opts.minEffect !== undefined && '--min-effect',
  ].filter((x): x is string => typeof x === 'string');
}

export function gateSpec(opts: GateOptions & { maxDrop?: number }, defaults: { baseline?: boolean } = { baseline: true }): GateSpec {
  // --fail-on-regression alone compares with the previous run.
  const baseline = opts.baseline ?? (opts.failOnRegression && defaults.baseline ? ({ kind: 'previous' } as const) : undefined);
  return {
    minScore: opts.minScore,
    minCriteria: opts.minCriterion ?? [],
    allowFailedIterations: opts.allowFailedIterations ?? 0,
    maxDrop: opts.maxDrop,
    baseline,
    failOnRegression: opts.failOnRegression,
    minEffect: opts.minEffect,
  };
}

export function followSettings(opts: WaitOptions): FollowSettings {
  return { timeout: opts.timeout, gates: gateSpec(opts), reports: opts.report ?? [], poll: Boolean(opts.poll) };
}

export const GATES_HELP = `Gates (with --wait): exit 0 when the run completed and passed every gate,
3 when it completed below one (each failed gate is printed on stderr), 1 when the
run failed or the API did, 124 when --timeout ran out (the run goes on; the
command that keeps waiting is printed), 130 on Ctrl-C (the run goes on).
Any failed iteration fails the run's gate unless --allow-failed-iterations allows it.

Baseline: --baseline previous|version:<n>|<runId> compares the run with another,
per scenario and per criterion, over the iterations' scores (Welch's t-test, 95%
interval, minimum effect 0.05 or --min-effect): regressed, improved, no significant
change, or too few iterations. --fail-on-regression exits 3 on a significant
regression only.

Reports: --report junit=<path> writes a JUnit file (a suite per scenario, a case
per iteration with the transcript, and a "gates" suite), json=<path> the --json
document, markdown=<path> a pull-request comment (verdicts, gates, the worst
transcripts), html=<path> a self-contained page (charts, every transcript). They
are written also when the wait times out or the run fails, saying why. In GitHub
Actions, the Markdown report is appended to $GITHUB_STEP_SUMMARY, and failed
scenarios, gates, runs and timeouts are printed as ::error annotations (not with
--json, -o or -q, which keep stdout for data).`;

export function runCommand(makeContext: ContextFactory): Command {
  const cmd = new Command('run')
    .description('Start a run of a suite; with --wait, follow it and gate CI on its scores')
    .argument('<evalId>', 'the eval suite to run')
    .addOption(agentOption());
  addWaitOptions(addBaselineOptions(addGateOptions(cmd)))
    .addHelpText(
      'after',
      `
Without --wait the run id is printed (only the id with -q), with the command that
waits for it; the gates and --report need --wait. With --wait, progress goes to stderr and, when the run ends, a table
of scores per scenario and per criterion to stdout (--json: {run, aggregates,
results, gates}).

${GATES_HELP}

Examples:
  $ vap evals run ev_123 --agent ag_456
  $ vap evals run ev_123 --agent ag_456 --wait --min-score 0.8
  $ vap evals run ev_123 --agent ag_456 --wait --timeout 20m --min-score 0.75 \\
      --min-criterion goal_completion=0.8 --allow-failed-iterations 1 \\
      --report junit=reports/evals.xml --report json=reports/evals.json
  $ vap evals run ev_123 --agent ag_456 --wait --baseline previous --fail-on-regression \\
      --report markdown=reports/evals.md --report html=reports/evals.html
  $ RUN=$(vap evals run ev_123 --agent ag_456 -q) && vap evals runs get $RUN --eval ev_123 --agent ag_456 --wait`,
    )
    .action(action<WaitOptions & { agent?: string }>(makeContext, ([evalId], opts, ctx) => run(evalId!, opts, ctx)));
  return cmd;
}

export async function run(evalId: string, opts: WaitOptions & { agent?: string } & GlobalOptions, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  if (!opts.wait) {
    // Without --wait nothing is gated or reported: a CI job would pass without its gate.
    const needWait = gateFlagsGiven(opts).filter((f) => f !== '--min-effect');
    if (needWait.length) throw new UsageError(`${needWait.join(', ')} ${needWait.length === 1 ? 'needs' : 'need'} --wait (without it the run is only started, nothing is gated or written)`, 'add --wait, or gate later with `vap evals runs get <runId> --eval <evalId> --wait ...`');
  }
  const settings = followSettings(opts);
  // Before anything is started: every report can be written, the baseline exists, the criterion keys are the suite's.
  await checkReportTargets(settings.reports);
  const api = await ctx.api();
  if (settings.gates.minCriteria.length) {
    // The suite names its criteria: check the keys before starting anything.
    const suite = await getSuite(api, agentId, evalId, ctx.signal);
    checkCriterionKeys(settings.gates, (suite.scoringCriteria ?? []).map((c) => c.key));
  }
  if (settings.gates.baseline) await checkBaseline(api, { agentId, evalId }, settings.gates.baseline, undefined, ctx.signal);
  const started = await startRun(api, agentId, evalId).catch((err: unknown) => {
    if (err instanceof ApiError && err.code === 'no_enabled_scenarios') {
      throw new CliError(
        `suite ${evalId} has no enabled scenario to run`,
        ExitCode.FAILURE,
        `add one with \`vap evals scenarios add ${evalId} --agent ${agentId}\` or import real calls with \`vap evals import --agent ${agentId} --eval ${evalId}\``,
      );
    }
    throw err;
  });
  const ref = { agentId, evalId, runId: started.id };
  if (!opts.wait) {
    await printStarted(started, ctx);
    ctx.info(`Wait for it (and gate on it) with: ${resumeCommand(ref, settings)}`);
    return;
  }
  if (ctx.globals.quiet) ctx.io.stdout.write(`${safeText(started.id)}\n`);
  else ctx.info(`Started run #${started.runNumber} (${started.id}) of ${evalId}: ${started.totalIterations} iterations`);
  await followRun(ctx, api, ref, settings, undefined, { idPrinted: Boolean(ctx.globals.quiet) });
}

async function printStarted(r: Run, ctx: Context): Promise<void> {
  await ctx.out.item(r, {
    fields: [
      { header: 'id', value: (x) => x.id },
      { header: 'run', value: (x) => x.runNumber },
      { header: 'status', value: (x) => x.status },
      { header: 'iterations', value: (x) => x.totalIterations },
    ],
  });
}
