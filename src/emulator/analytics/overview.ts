import { metricsOf, tally, type Tally } from './metrics.js';
import { round, type CallFacts } from './rules.js';

/**
 * GET /api/v1/analytics/overview: the organization's campaigns and calls. Counts and
 * duration over every call of the organization (those of a deleted campaign too, as
 * the calls listing shows them); the averages of rates over the existing campaigns
 * that have at least one analysed call. Pure.
 */

export interface CampaignRef {
  id: string;
  name: string;
  status: string;
}

export interface Overview {
  totalCampaigns: number;
  activeCampaigns: number;
  totalCalls: number;
  totalCallDuration: number;
  avgHumanContactRate: number;
  avgObjectiveSuccessRate: number;
  topPerformingCampaign: { id: string; name: string; objectiveSuccessRate: number } | null;
  period: { from: string; to: string };
}

/**
 * `campaigns` in creation order; `callsOf(id)` the campaign's calls; `allCalls` every
 * call of the organization, oldest first.
 */
export function overviewOf(
  campaigns: readonly CampaignRef[],
  callsOf: (campaignId: string) => Iterable<CallFacts>,
  allCalls: readonly CallFacts[],
  nowMs: number,
): { overview: Overview; awaitingAnalysis: number } {
  let totalCalls = 0;
  let totalCallDuration = 0;
  let awaitingAnalysis = 0;
  let from: string | null = null;
  for (const c of allCalls) {
    totalCalls++;
    totalCallDuration += c.duration;
    if ((c.status === 'completed' || c.status === 'failed') && !c.analysis) awaitingAnalysis++;
    if (from === null || c.createdAt < from) from = c.createdAt;
  }
  let rated = 0;
  let humanSum = 0;
  let objectiveSum = 0;
  let top: { c: CampaignRef; t: Tally; rate: number } | null = null;
  for (const c of campaigns) {
    const t = tally(callsOf(c.id));
    if (t.analysed === 0) continue;
    const human = t.reachedHuman / t.analysed;
    const objective = t.objectiveMet / t.analysed;
    rated++;
    humanSum += human;
    objectiveSum += objective;
    // Highest objective success rate; ties go to the campaign with more calls, then to the older one.
    if (!top || objective > top.rate || (objective === top.rate && t.total > top.t.total)) top = { c, t, rate: objective };
  }
  const now = new Date(nowMs).toISOString();
  return {
    overview: {
      totalCampaigns: campaigns.length,
      activeCampaigns: campaigns.filter((c) => c.status === 'active').length,
      totalCalls,
      totalCallDuration,
      avgHumanContactRate: rated > 0 ? round(humanSum / rated, 4) : 0,
      avgObjectiveSuccessRate: rated > 0 ? round(objectiveSum / rated, 4) : 0,
      topPerformingCampaign: top ? { id: top.c.id, name: top.c.name, objectiveSuccessRate: metricsOf(top.t).successMetrics.objectiveSuccessRate } : null,
      period: { from: from ?? now, to: now },
    },
    awaitingAnalysis,
  };
}
