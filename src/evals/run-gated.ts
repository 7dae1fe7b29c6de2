import type { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { FINISHED_RUN_STATUSES, getRun, getSuite, type Run, type RunDetail, startRun } from '../api/evals.js';
import { CliError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { budgetFrom, checkBudget, checkUntilDecided, estimateCalls, estimateText } from './adaptive.js';
import { checkBaseline, type SuiteRef } from './baseline.js';
import { type FollowSettings, finishRun, followRun, resumeCommand, type RunRef, RunStopped, startOutcomeReads, writeStopped } from './follow.js';
import { checkCriterionKeys } from './gates.js';
import { runLabel, type RunOutcome, type WaitStop } from './outcome.js';
import { checkReportTargets } from './reports.js';
import type { RunDeps } from './run-reporter.js';
import { followSettings, type WaitOptions } from './settings.js';

/** What startAndGate and readAndGate need: as RunDeps, the client made when first needed (after the report paths are checked). */
export type GateDeps = Omit<RunDeps, 'api'> & { api(): Promise<ApiClient> };

/** How a started or read run ended for the command. */
export type RunEnd =
  /** Not waited for: `resume` waits for it and gates on it. */
  | { kind: 'started'; run: Run; resume: string }
  /** Read without gates, shown as it is. */
  | { kind: 'read'; detail: RunDetail }
  /** Gated but still going without --wait (exit 1); `writeReports` says so, once the caller has shown the run. */
  | { kind: 'running'; runId: string; detail: RunDetail; writeReports(): Promise<void> }
  /** The wait ended first (--timeout, Ctrl-C); the run goes on. */
  | { kind: 'stopped'; stop: WaitStop }
  /** Finished, gated and reported: outcomeVerdict says how the command ends. */
  | { kind: 'ended'; outcome: RunOutcome };

/** How a read run ended (never `started`). */
export type ReadEnd = Exclude<RunEnd, { kind: 'started' }>;

/**
 * Starts a run of a suite (the budget, reports, criterion keys and baseline checked first)
 * and, with `wait`, follows it to its end and gates on it (src/evals/follow.ts: the
 * outcome, the reports).
 */
export async function startAndGate(deps: GateDeps, ref: SuiteRef, opts: WaitOptions): Promise<RunEnd> {
  const { agentId, evalId } = ref;
  const maxCalls = budgetFrom(opts.maxCalls, deps.env);
  const settings: FollowSettings = { ...followSettings(opts), ...(maxCalls !== undefined ? { maxCalls } : {}) };
  checkUntilDecided(opts.untilDecided, maxCalls, Boolean(settings.gates.baseline));
  // Before anything is started: every report can be written, the baseline exists, the criterion keys are the suite's, the budget holds.
  await checkReportTargets(settings.reports);
  const api = await deps.api();
  const [estimate] = await Promise.all([
    estimateCalls(api, ref, deps.signal),
    settings.gates.minCriteria.length
      ? getSuite(api, agentId, evalId, deps.signal).then((suite) =>
          checkCriterionKeys(
            settings.gates,
            (suite.scoringCriteria ?? []).map((c) => c.key),
          ),
        )
      : undefined,
    settings.gates.baseline ? checkBaseline(api, ref, settings.gates.baseline, undefined, deps.signal) : undefined,
  ]);
  checkBudget(estimate.perRun, maxCalls, `a run of suite ${evalId}`);
  // A suite with no enabled scenario places nothing: starting it says so below.
  if (estimate.perRun > 0) deps.reporter.info(`Calls: ${estimateText(estimate, { maxCalls, untilDecided: Boolean(opts.untilDecided) })}`);
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
  if (!opts.wait) return { kind: 'started', run: started, resume: resumeCommand(runRef, settings) };
  deps.reporter.started(started, `Started run #${started.runNumber} (${started.id}) of ${evalId}: ${started.totalIterations} iterations`);
  const d = { ...deps, api };
  return ended(async () => {
    if (!opts.untilDecided) return followRun(d, runRef, settings);
    const { runUntilDecided } = await import('./adaptive.js');
    return (await runUntilDecided(d, ref, { ...settings, maxCalls: maxCalls! }, started)).outcome;
  });
}

/**
 * Reads a run and, when gated (or with `wait`), follows it to its end and gates on it as
 * startAndGate does.
 */
export async function readAndGate(deps: GateDeps, ref: RunRef, opts: WaitOptions): Promise<ReadEnd> {
  const { agentId, evalId, runId } = ref;
  const settings = followSettings(opts);
  // The report paths are checked (a refusal comes first) while the client is set up.
  const [checked, client] = await Promise.allSettled([checkReportTargets(settings.reports), deps.api()]);
  if (checked.status === 'rejected') throw checked.reason;
  if (client.status === 'rejected') throw client.reason;
  const api = client.value;
  const d: RunDeps = { ...deps, api };
  const gated =
    settings.gates.minScore !== undefined ||
    settings.gates.minCriteria.length > 0 ||
    opts.allowFailedIterations !== undefined ||
    settings.reports.length > 0 ||
    settings.gates.baseline !== undefined;
  const reading = getRun(api, agentId, evalId, runId, deps.signal);
  // Gated without --wait, the run has most likely ended: what its gates and reports need is asked for beside it, in one
  // round trip, while the report builders load. Unused (and dropped) when the run is still going.
  const reads = gated && !opts.wait ? startOutcomeReads(d, ref, settings) : undefined;
  const detail = await reading;
  if (settings.gates.baseline)
    await checkBaseline(api, { agentId, evalId }, settings.gates.baseline, detail.run, deps.signal, { runs: reads?.runs, baseline: reads?.baseline });
  if (opts.wait) return ended(() => followRun(d, ref, settings, detail));
  if (!gated) return { kind: 'read', detail };
  checkCriterionKeys(
    settings.gates,
    detail.aggregates.criteria.map((c) => c.criterionKey),
  );
  if (FINISHED_RUN_STATUSES.has(detail.run.status)) return { kind: 'ended', outcome: await finishRun(d, ref, detail, settings, reads) };
  const stop = {
    kind: 'error' as const,
    message: `run ${runLabel(detail.run)} is still ${detail.run.status}: add --wait to wait for it`,
    resume: resumeCommand(ref, settings),
  };
  return { kind: 'running', runId, detail, writeReports: () => writeStopped(d, ref, settings, detail, stop) };
}

/** The outcome of a followed run, or the wait's stop. */
async function ended(follow: () => Promise<RunOutcome>): Promise<ReadEnd> {
  try {
    return { kind: 'ended', outcome: await follow() };
  } catch (err) {
    if (err instanceof RunStopped) return { kind: 'stopped', stop: err.stop };
    throw err;
  }
}
