import { ApiError } from '../api/errors.js';
import { FINISHED_RUN_STATUSES, getRun, getSuite, type Run, type RunDetail, startRun } from '../api/evals.js';
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { safeText } from '../ui/safe-text.js';
import { budgetFrom, checkBudget, checkUntilDecided, estimateCalls, estimateText } from './adaptive.js';
import { checkBaseline, type SuiteRef } from './baseline.js';
import { completeOutcome, type FollowSettings, finishRun, followRun, resumeCommand, type RunRef, startOutcomeReads } from './follow.js';
import { checkCriterionKeys } from './gates.js';
import { lookReporter } from './look-text.js';
import { checkReportTargets } from './reports.js';
import { followSettings, type WaitOptions } from './settings.js';

/**
 * Starts a run of a suite (the budget, reports, criterion keys and baseline checked first)
 * and, with `wait`, follows it to its end and gates on it (src/evals/follow.ts: the summary,
 * the reports, the exit); `show.started` shows a run that is not waited for.
 */
export async function startAndGate(ctx: Context, ref: SuiteRef, opts: WaitOptions, show: { started(run: Run): Promise<void> }): Promise<void> {
  const { agentId, evalId } = ref;
  const maxCalls = budgetFrom(opts.maxCalls, ctx.env);
  const settings: FollowSettings = { ...followSettings(opts), ...(maxCalls !== undefined ? { maxCalls } : {}) };
  checkUntilDecided(opts.untilDecided, maxCalls, Boolean(settings.gates.baseline));
  // Before anything is started: every report can be written, the baseline exists, the criterion keys are the suite's, the budget holds.
  await checkReportTargets(settings.reports);
  const api = await ctx.api();
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
    await show.started(started);
    ctx.info(`Wait for it (and gate on it) with: ${resumeCommand(runRef, settings)}`);
    return;
  }
  if (ctx.globals.quiet) ctx.io.stdout.write(`${safeText(started.id)}\n`);
  else ctx.info(`Started run #${started.runNumber} (${started.id}) of ${evalId}: ${started.totalIterations} iterations`);
  if (!opts.untilDecided) {
    await followRun(ctx, api, runRef, settings, undefined, { idPrinted: Boolean(ctx.globals.quiet) });
    return;
  }
  const { runUntilDecided } = await import('./adaptive.js');
  const { outcome } = await runUntilDecided(ctx, api, ref, { ...settings, maxCalls: maxCalls! }, started, lookReporter((line) => ctx.info(line), ctx.globals.quiet ? (id) => ctx.io.stdout.write(`${safeText(id)}\n`) : undefined));
  await completeOutcome(ctx, outcome, settings, { idPrinted: Boolean(ctx.globals.quiet) });
}

/**
 * Reads a run and, when gated (or with `wait`), follows it to its end and gates on it as
 * startAndGate does; `show.run` shows a run read without gates, or one still going.
 */
export async function readAndGate(ctx: Context, ref: RunRef, opts: WaitOptions, show: { run(detail: RunDetail): Promise<void> }): Promise<void> {
  const { agentId, evalId, runId } = ref;
  const settings = followSettings(opts);
  // The report paths are checked (a refusal comes first) while the client is set up.
  const [checked, client] = await Promise.allSettled([checkReportTargets(settings.reports), ctx.api()]);
  if (checked.status === 'rejected') throw checked.reason;
  if (client.status === 'rejected') throw client.reason;
  const api = client.value;
  const gated =
    settings.gates.minScore !== undefined ||
    settings.gates.minCriteria.length > 0 ||
    opts.allowFailedIterations !== undefined ||
    settings.reports.length > 0 ||
    settings.gates.baseline !== undefined;
  const reading = getRun(api, agentId, evalId, runId, ctx.signal);
  // Gated without --wait: the run has most likely ended, so everything its gates and reports
  // need (its results, the suite, its runs, a baseline named by id) is asked for beside it,
  // in one round trip; the report builders load meanwhile. Unused (and dropped) when the
  // run is still going.
  const reads = gated && !opts.wait ? startOutcomeReads(ctx, api, ref, settings) : undefined;
  const detail = await reading;
  if (settings.gates.baseline) await checkBaseline(api, { agentId, evalId }, settings.gates.baseline, detail.run, ctx.signal, { runs: reads?.runs, baseline: reads?.baseline });
  if (opts.wait) {
    await followRun(ctx, api, ref, settings, detail);
    return;
  }
  if (gated) {
    checkCriterionKeys(settings.gates, detail.aggregates.criteria.map((c) => c.criterionKey));
    if (FINISHED_RUN_STATUSES.has(detail.run.status)) {
      await finishRun(ctx, api, ref, detail, settings, { reads });
      return;
    }
  }
  await show.run(detail);
  if (gated) await finishRun(ctx, api, ref, detail, settings); // still going: says to add --wait (exit 1)
}
