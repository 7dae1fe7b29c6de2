import { metricsOf, type Tally } from './metrics.js';
import { round } from './rules.js';
import type { AnalyticsOverview } from '../../spec/analytics.js';

/**
 * GET /api/v1/analytics/overview, pure, from tallies: `org` over every call (a deleted campaign's
 * too, as the calls listing shows them) for counts and duration; one tally per existing campaign
 * for the averaged rates (campaigns with an analysed call) and the top campaign.
 */

export interface CampaignRef {
  id: string;
  name: string;
  status: string;
}

/** `campaigns` in creation order; `oldestCreatedAt` of every call (null without calls). */
export function overviewOf(
  campaigns: readonly CampaignRef[],
  tallyOf: (campaignId: string) => Tally,
  org: Tally,
  oldestCreatedAt: string | null,
  nowMs: number,
): AnalyticsOverview {
  let rated = 0;
  let humanSum = 0;
  let objectiveSum = 0;
  let top: { c: CampaignRef; t: Tally; rate: number } | null = null;
  for (const c of campaigns) {
    const t = tallyOf(c.id);
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
    totalCampaigns: campaigns.length,
    activeCampaigns: campaigns.filter((c) => c.status === 'active').length,
    totalCalls: org.total,
    totalCallDuration: org.duration,
    avgHumanContactRate: rated > 0 ? round(humanSum / rated, 4) : 0,
    avgObjectiveSuccessRate: rated > 0 ? round(objectiveSum / rated, 4) : 0,
    topPerformingCampaign: top ? { id: top.c.id, name: top.c.name, objectiveSuccessRate: metricsOf(top.t).successMetrics.objectiveSuccessRate } : null,
    period: { from: oldestCreatedAt ?? now, to: now },
  };
}
