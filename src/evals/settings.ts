import type { BaselineSpec } from './baseline.js';
import type { FollowSettings } from './follow.js';
import type { CriterionGate, FailedAllowance, GateSpec } from './gates.js';
import type { ReportTarget } from './reports.js';

/**
 * The gates, baseline, budget and wait a command was given (its options as Commander
 * parses them: src/commands/eval-options.ts), and the settings the follow and gates take.
 */

/** The options shared by `run`, `runs get` and `runs diff`. */
export interface GateOptions {
  minScore?: number;
  minCriterion?: CriterionGate[];
  allowFailedIterations?: FailedAllowance;
  minPassRate?: number;
  baseline?: BaselineSpec;
  failOnRegression?: boolean;
  minEffect?: number;
  alpha?: number;
}

/** `--until-decided`, `--max-calls`: how many runs, within what budget. */
export interface BudgetOptions {
  untilDecided?: boolean;
  maxCalls?: number;
}

export interface WaitOptions extends GateOptions, BudgetOptions {
  wait?: boolean;
  timeout: number;
  report?: ReportTarget[];
  poll?: boolean;
}

export const DEFAULT_TIMEOUT_MS = 30 * 60_000;

export function gateSpec(opts: GateOptions & { maxDrop?: number }, defaults: { baseline?: boolean } = { baseline: true }): GateSpec {
  // --fail-on-regression alone compares with the previous run.
  const baseline = opts.baseline ?? (opts.failOnRegression && defaults.baseline ? ({ kind: 'previous' } as const) : undefined);
  return {
    minScore: opts.minScore,
    minCriteria: opts.minCriterion ?? [],
    allowFailedIterations: opts.allowFailedIterations,
    minPassRate: opts.minPassRate,
    maxDrop: opts.maxDrop,
    baseline,
    failOnRegression: opts.failOnRegression,
    minEffect: opts.minEffect,
    alpha: opts.alpha,
  };
}

export function followSettings(opts: WaitOptions): FollowSettings {
  return { timeout: opts.timeout, gates: gateSpec(opts), reports: opts.report ?? [], poll: Boolean(opts.poll) };
}
