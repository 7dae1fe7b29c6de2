import { round3 } from './text.js';
import type { ResultRecord, RunRecord } from './types.js';

/** What the API answers for runs and results (internal fields left out). */

export function runView(r: RunRecord): Record<string, unknown> {
  return {
    id: r.id,
    runNumber: r.runNumber,
    status: r.status,
    totalIterations: r.totalIterations,
    agentVersion: r.agentVersion,
    overallScore: r.overallScore,
    completedIterations: r.completedIterations,
    failedIterations: r.failedIterations,
    error: r.error,
    evalId: r.evalId,
    agentId: r.agentId,
    createdAt: r.createdAt,
    startedAt: r.startedAt,
    completedAt: r.completedAt,
  };
}

/** Per criterion of the run: mean and highest score over its completed results (null while none). */
export function aggregates(r: RunRecord, results: ResultRecord[]): { criteria: Array<Record<string, unknown>> } {
  const done = results.filter((x) => x.status === 'completed');
  return {
    criteria: r.criteria.map((c) => {
      const scores = done.map((x) => x.criterionScores.find((s) => s.criterionKey === c.key)?.score).filter((s): s is number => typeof s === 'number');
      return {
        criterionKey: c.key,
        averageScore: scores.length ? round3(scores.reduce((a, b) => a + b, 0) / scores.length) : null,
        maxScore: scores.length ? Math.max(...scores) : null,
        name: c.name,
        weight: c.weight,
      };
    }),
  };
}

/** A result as the API answers it; `agentVersion` is the version the run was made against (document 1, parts 1 and 9.2). */
export function resultView(x: ResultRecord, run: RunRecord): Record<string, unknown> {
  return {
    id: x.id,
    evalScenarioId: x.evalScenarioId,
    iterationNumber: x.iterationNumber,
    agentVersion: x.agentVersion ?? run.agentVersion,
    status: x.status,
    overallScore: x.overallScore,
    durationSeconds: x.durationSeconds,
    scenarioName: x.scenarioName,
    transcript: x.transcript.map((l) => ({ ...l })),
    criterionScores: x.criterionScores.map((c) => ({ ...c })),
    error: x.error,
  };
}
