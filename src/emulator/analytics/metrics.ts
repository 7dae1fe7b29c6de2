import type { AnalyticsSummaryFigures, CampaignMetrics } from '../../spec/analytics.js';
import { avgSeconds, costMills, dollars, isActive, isEnded, rate, round, sentimentScore, type CallFacts } from './rules.js';

/**
 * Campaign (and run) metrics: one pass over the calls gives a Tally of counts and
 * sums; the response figures are read from it. Pure.
 */

export interface Tally {
  total: number;
  completed: number;
  failed: number;
  cancelled: number;
  queued: number;
  active: number;
  /** Ended calls (completed + failed): the cost average's denominator. */
  ended: number;
  /** Completed calls still waiting for their analysis (the figures are stale). */
  awaitingAnalysis: number;
  analysed: number;
  reachedHuman: number;
  objectiveMet: number;
  callbackRequested: number;
  doNotCall: number;
  sentimentSum: number;
  /** Seconds, over completed calls. */
  completedDuration: number;
  /** Seconds, over every call (only ended calls have a duration). */
  duration: number;
  costMills: number;
}

export function emptyTally(): Tally {
  return {
    total: 0,
    completed: 0,
    failed: 0,
    cancelled: 0,
    queued: 0,
    active: 0,
    ended: 0,
    awaitingAnalysis: 0,
    analysed: 0,
    reachedHuman: 0,
    objectiveMet: 0,
    callbackRequested: 0,
    doNotCall: 0,
    sentimentSum: 0,
    completedDuration: 0,
    duration: 0,
    costMills: 0,
  };
}

/** Adds one call to the tally. */
export function count(t: Tally, c: CallFacts): void {
  t.total++;
  t.duration += c.duration;
  const s = c.status;
  if (s === 'completed') {
    t.completed++;
    t.completedDuration += c.duration;
  } else if (s === 'failed') t.failed++;
  else if (s === 'cancelled') t.cancelled++;
  else if (s === 'queued') t.queued++;
  else if (isActive(s)) t.active++;
  if (isEnded(s)) {
    t.ended++;
    t.costMills += costMills(c);
  }
  // Only a completed call was a conversation: it alone is analysed, and the rates are over
  // analysed calls (a failed call that never connected has no analysis and is in no denominator).
  if (s !== 'completed') return;
  const a = c.analysis;
  if (!a) t.awaitingAnalysis++;
  else {
    t.analysed++;
    if (a.humanContact.reachedHuman) t.reachedHuman++;
    if (a.objectives.primary?.status === 'True') t.objectiveMet++;
    if (a.callback.callbackRequested) t.callbackRequested++;
    if (a.doNotCall.requested) t.doNotCall++;
    t.sentimentSum += sentimentScore(a.sentiment.overallSentiment);
  }
}

/** Adds tally b into a. */
export function addTally(a: Tally, b: Tally): void {
  for (const k of Object.keys(b) as Array<keyof Tally>) a[k] += b[k];
}

export function tally(calls: Iterable<CallFacts>, keep?: (c: CallFacts) => boolean): Tally {
  const t = emptyTally();
  for (const c of calls) if (!keep || keep(c)) count(t, c);
  return t;
}

/** The spec's metrics groups. Rates over analysed (completed) calls (0 when none), 4 decimals; costs 2 decimals; avgCallDuration over completed calls, 2 decimals. */
export function metricsOf(t: Tally): CampaignMetrics {
  return {
    callStats: { totalCalls: t.total, completedCalls: t.completed, failedCalls: t.failed, cancelledCalls: t.cancelled, pendingCalls: t.queued + t.active },
    successMetrics: {
      humanContactRate: rate(t.reachedHuman, t.analysed),
      objectiveSuccessRate: rate(t.objectiveMet, t.analysed),
      callbackRate: rate(t.callbackRequested, t.analysed),
    },
    qualityMetrics: { avgSentimentScore: rate(t.sentimentSum, t.analysed), avgCallDuration: avgSeconds(t.completedDuration, t.completed) },
    complianceMetrics: { doNotCallRate: rate(t.doNotCall, t.analysed) },
    costMetrics: { totalCost: dollars(t.costMills), avgCostPerCall: t.ended > 0 ? round(t.costMills / 1000 / t.ended, 2) : 0 },
  };
}

/** GET …/analytics/summary: the five headline figures of the same computation. */
export function summaryOf(t: Tally): AnalyticsSummaryFigures {
  const m = metricsOf(t);
  return {
    totalCalls: t.total,
    completedCalls: t.completed,
    humanContactRate: m.successMetrics.humanContactRate,
    objectiveSuccessRate: m.successMetrics.objectiveSuccessRate,
    avgSentimentScore: m.qualityMetrics.avgSentimentScore,
  };
}

/** Stale while some completed call of the set awaits its analysis. */
export const isStale = (t: Tally): boolean => t.awaitingAnalysis > 0;
