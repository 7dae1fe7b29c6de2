import type { RunResult } from '../api/evals.js';
import { passHatK } from './stats.js';

/**
 * pass^k: from every iteration of a scenario pooled, the estimate that all k of k repeated calls pass the score gate (completed,
 * overall score ≥ `--min-score` if given), k being the iterations a run makes of a scenario.
 */

export interface ScenarioPassRate {
  scenarioId: string;
  name: string;
  iterations: number;
  passed: number;
  /** passed / iterations. */
  share: number;
  /** The estimate that k repeated calls all pass; null with fewer than k iterations. */
  passK: number | null;
}

export interface PassRates {
  k: number;
  /** What passing means: `completed` or `score ≥ 0.8`. */
  rule: string;
  scenarios: ScenarioPassRate[];
  /** The mean over scenarios of pass^k (those with an estimate); null when none has one. */
  passK: number | null;
}

export function passRates(results: readonly RunResult[], minScore?: number): PassRates {
  const k = Math.max(1, ...results.map((r) => (Number.isSafeInteger(r.iterationNumber) ? r.iterationNumber : 1)));
  const by = new Map<string, ScenarioPassRate>();
  for (const r of results) {
    let s = by.get(r.evalScenarioId);
    if (!s)
      by.set(
        r.evalScenarioId,
        (s = { scenarioId: r.evalScenarioId, name: r.scenarioName || r.evalScenarioId, iterations: 0, passed: 0, share: 0, passK: null }),
      );
    s.iterations++;
    const score = typeof r.overallScore === 'number' && Number.isFinite(r.overallScore) ? r.overallScore : null;
    if (r.status === 'completed' && (minScore === undefined || (score !== null && score >= minScore))) s.passed++;
  }
  const scenarios = [...by.values()].map((s) => ({ ...s, share: s.iterations ? s.passed / s.iterations : 0, passK: passHatK(s.passed, s.iterations, k) }));
  const known = scenarios.map((s) => s.passK).filter((p): p is number => p !== null);
  return {
    k,
    rule: minScore === undefined ? 'completed' : `score ≥ ${minScore}`,
    scenarios,
    passK: known.length ? known.reduce((a, b) => a + b, 0) / known.length : null,
  };
}
