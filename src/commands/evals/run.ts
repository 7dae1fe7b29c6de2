import { Command } from 'commander';
import { ApiError } from '../../api/errors.js';
import { getSuite, startRun, type Run } from '../../api/evals.js';
import { CliError, UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { Context, GlobalOptions } from '../../context.js';
import { checkBaseline } from '../../evals/baseline.js';
import { budgetFrom, checkBudget, checkUntilDecided, estimateCalls, estimateText } from '../../evals/adaptive.js';
import { completeOutcome, followRun, resumeCommand, type FollowSettings } from '../../evals/follow.js';
import { lookReporter } from '../../evals/look-text.js';
import { checkCriterionKeys } from '../../evals/gates.js';
import { checkReportTargets } from '../../evals/reports.js';
import { followSettings, type WaitOptions } from '../../evals/settings.js';
import { action } from '../action.js';
import { safeText } from '../../ui/safe-text.js';
import { addBaselineOptions, addBudgetOptions, addGateOptions, addWaitOptions, GATES_HELP, gateFlagsGiven } from '../eval-options.js';
import type { ContextFactory } from '../types.js';
import { agentOption, resolveAgent } from './options.js';

export function runCommand(makeContext: ContextFactory): Command {
  const cmd = new Command('run')
    .description('Start a run of a suite; with --wait, follow it and gate CI on its scores')
    .argument('<evalId>', 'the eval suite to run')
    .addOption(agentOption());
  addBudgetOptions(addWaitOptions(addBaselineOptions(addGateOptions(cmd))))
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
  $ vap evals run ev_123 --agent ag_456 --wait --baseline previous --fail-on-regression \\
      --until-decided --max-calls 300
  $ RUN=$(vap evals run ev_123 --agent ag_456 -q) && vap evals runs get $RUN --eval ev_123 --agent ag_456 --wait`,
    )
    .action(action<WaitOptions & { agent?: string }>(makeContext, ([evalId], opts, ctx) => run(evalId!, opts, ctx)));
  return cmd;
}

export async function run(evalId: string, opts: WaitOptions & { agent?: string } & GlobalOptions, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  if (!opts.wait) {
    // Without --wait nothing is gated or reported: a CI job would pass without its gate.
    const needWait = gateFlagsGiven(opts).filter((f) => f !== '--min-effect' && f !== '--alpha');
    if (needWait.length) throw new UsageError(`${needWait.join(', ')} ${needWait.length === 1 ? 'needs' : 'need'} --wait (without it the run is only started, nothing is gated or written)`, 'add --wait, or gate later with `vap evals runs get <runId> --eval <evalId> --wait ...`');
  }
  const maxCalls = budgetFrom(opts.maxCalls, ctx.env);
  const settings: FollowSettings = { ...followSettings(opts), ...(maxCalls !== undefined ? { maxCalls } : {}) };
  checkUntilDecided(opts.untilDecided, maxCalls, Boolean(settings.gates.baseline));
  // Before anything is started: every report can be written, the baseline exists, the criterion keys are the suite's, the budget holds.
  await checkReportTargets(settings.reports);
  const api = await ctx.api();
  const ref = { agentId, evalId };
  const [estimate] = await Promise.all([
    estimateCalls(api, ref, ctx.signal),
    settings.gates.minCriteria.length
      ? getSuite(api, agentId, evalId, ctx.signal).then((suite) => checkCriterionKeys(settings.gates, (suite.scoringCriteria ?? []).map((c) => c.key)))
      : undefined,
    settings.gates.baseline ? checkBaseline(api, ref, settings.gates.baseline, undefined, ctx.signal) : undefined,
  ]);
  checkBudget(estimate.perRun, maxCalls, `a run of suite ${evalId}`);
  // A suite with no enabled scenario places nothing: starting it says so below.
  if (estimate.perRun > 0) ctx.info(`Calls: ${estimateText(estimate, { maxCalls, untilDecided: Boolean(opts.untilDecided) })}`);
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
  const runRef = { agentId, evalId, runId: started.id };
  if (!opts.wait) {
    await printStarted(started, ctx);
    ctx.info(`Wait for it (and gate on it) with: ${resumeCommand(runRef, settings)}`);
    return;
  }
  if (ctx.globals.quiet) ctx.io.stdout.write(`${safeText(started.id)}\n`);
  else ctx.info(`Started run #${started.runNumber} (${started.id}) of ${evalId}: ${started.totalIterations} iterations`);
  if (!opts.untilDecided) {
    await followRun(ctx, api, runRef, settings, undefined, { idPrinted: Boolean(ctx.globals.quiet) });
    return;
  }
  const { runUntilDecided } = await import('../../evals/adaptive.js');
  const { outcome } = await runUntilDecided(ctx, api, ref, { ...settings, maxCalls: maxCalls! }, started, lookReporter((line) => ctx.info(line), ctx.globals.quiet ? (id) => ctx.io.stdout.write(`${safeText(id)}\n`) : undefined));
  await completeOutcome(ctx, outcome, settings, { idPrinted: Boolean(ctx.globals.quiet) });
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
