import type { Run, RunDetail, RunResult } from '../api/evals.js';
import { safe, safeText } from '../ui/safe-text.js';
import type { GateResult } from './gates.js';
import { passRates, type PassRates } from './pass-rate.js';
import type { RunComparison, RunSide } from './verdict.js';

/** The baseline of a run: the comparison with it, or why there is none. */
export interface BaselineOutcome {
  /** `--baseline` as typed (`previous`, `version:3`, a run id); `runs diff` says the run A id. */
  spec: string;
  comparison?: RunComparison;
  /** The baseline run and its results (the HTML report's charts mark it). */
  side?: RunSide;
  /** Why there is no comparison (a first run has no previous one). */
  missing?: string;
}

/** Why a wait ended without a finished run: `--timeout` (124), Ctrl-C (130) or an error (1). */
export interface RunStop {
  kind: 'timeout' | 'interrupted' | 'error';
  message: string;
  /** The command that goes on waiting, with the same gates and reports. */
  resume?: string;
}

/** A wait that ended before the run did, which goes on: `--timeout` (exit 124) or Ctrl-C (130). */
export interface WaitStop {
  kind: 'timeout' | 'interrupted';
  runId: string;
  /** `run run_x had not finished after 5m (last seen running, 3/10); it goes on`. */
  message: string;
  resume: string;
}

/** What a stopped wait says: why, and the command that goes on waiting. */
export function waitStopText(stop: WaitStop): string {
  return `${stop.message}. ${stop.kind === 'timeout' ? 'Keep waiting' : 'Resume waiting'} with: ${stop.resume}`;
}

/** A finished (or last seen) run with its results and the gates evaluated on it. */
export interface RunOutcome {
  agentId: string;
  evalId: string;
  /** The suite id the Markdown report's marker names when not `evalId` (see FollowSettings.marker). */
  markerId?: string;
  detail: RunDetail;
  results: RunResult[];
  gates: GateResult[];
  baseline?: BaselineOutcome;
  /** The suite (its name, for the Markdown and HTML reports), when it was read. */
  suite?: { name?: string };
  /** The suite's runs, newest first (the HTML report's trend chart), when they were read. */
  history?: Run[];
  /** Set when the wait ended before the run did: the reports say so, and fail. */
  stopped?: RunStop;
  /** `--until-decided`: the runs pooled (their results are `results`), the calls and the budget, and why it stopped. */
  adaptive?: AdaptiveSummary;
  /** `--min-score`, when given: what passing an iteration means for pass^k. */
  minScore?: number;
  /** `--max-calls`, when given (an adaptive run's is in `adaptive`). */
  maxCalls?: number;
}

/** Why an adaptive run stopped. */
export type AdaptiveStop = 'decided' | 'budget' | 'no baseline' | 'run failed';

export interface AdaptiveSummary {
  /** The runs this command started, oldest first. */
  runs: Array<{ id: string; runNumber: number; status: string; calls: number }>;
  /** Completed runs of the same agent version from before the command, pooled with its own (no call spent). */
  earlier?: Array<{ id: string; runNumber: number; calls: number }>;
  /** Calls placed by this command. */
  calls: number;
  maxCalls: number;
  stop: AdaptiveStop;
  /** One line: `regressed after 100 of at most 300 calls`, `the next run of 50 calls would pass --max-calls 300`. */
  why: string;
}

export interface OutcomeJson {
  run: RunDetail['run'];
  aggregates: RunDetail['aggregates'];
  results: RunResult[];
  gates: GateResult[];
  baseline?: ({ spec: string } & RunComparison) | { spec: string; missing: string };
  /** Per scenario, the share of iterations that passed, and pass^k (over every result, pooled runs' too). */
  passRates: PassRates;
  adaptive?: AdaptiveSummary;
}

/** The `--json` / `--report json=` document: `{ run, aggregates, results, gates, passRates }`, plus `baseline` with --baseline and `adaptive` with --until-decided. */
export function outcomeJson(o: RunOutcome): OutcomeJson {
  const out: OutcomeJson = {
    run: o.detail.run,
    aggregates: o.detail.aggregates,
    results: o.results,
    gates: o.gates,
    passRates: passRates(o.results, o.minScore),
  };
  if (o.baseline)
    out.baseline = o.baseline.comparison
      ? { spec: o.baseline.spec, ...o.baseline.comparison }
      : { spec: o.baseline.spec, missing: o.baseline.missing ?? 'no baseline' };
  if (o.adaptive) out.adaptive = o.adaptive;
  return out;
}

/** How a finished run's command ends: passed (exit 0), the run failed (1), below a gate (3); the message is one safe line. */
export type OutcomeVerdict =
  | { kind: 'passed'; message: string }
  | { kind: 'failed'; message: string }
  | { kind: 'gates'; failed: GateResult[]; message: string };

export function outcomeVerdict(o: RunOutcome): OutcomeVerdict {
  const run = o.detail.run;
  if (run.status === 'failed') return { kind: 'failed', message: safe`run #${run.runNumber} (${run.id}) failed${run.error ? `: ${safeText(run.error)}` : ''}` };
  const failed = o.gates.filter((g) => !g.passed);
  if (failed.length) {
    const after = o.adaptive ? `, after ${o.adaptive.calls} of at most ${o.adaptive.maxCalls} calls` : '';
    return {
      kind: 'gates',
      failed,
      message: safe`run #${run.runNumber} (${run.id}) completed below ${failed.length === 1 ? 'a gate' : `${failed.length} gates`}${after}`,
    };
  }
  return { kind: 'passed', message: safe`run #${run.runNumber} (${run.id}) passed ${o.gates.length === 1 ? 'its gate' : `all ${o.gates.length} gates`}` };
}

/** Whether the run completed with every gate passed. */
export function passed(o: RunOutcome): boolean {
  return !o.stopped && o.detail.run.status === 'completed' && o.gates.every((g) => g.passed);
}

/** `#3 (run_x)`, or the id alone for a run never seen (its number unknown). */
export function runLabel(run: Pick<RunDetail['run'], 'id' | 'runNumber'>): string {
  return Number.isFinite(run.runNumber) && run.runNumber > 0 ? `#${run.runNumber} (${run.id})` : run.id;
}

/** A run that was never read (the wait ended before its first answer): only its id is known. */
export function unseenRun(runId: string): RunDetail {
  return { run: { id: runId, runNumber: 0, status: 'unknown', totalIterations: 0 }, aggregates: { criteria: [] } };
}
