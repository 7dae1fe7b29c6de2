/** Wire types of analytics (document 2). */

export interface AnalyticsMeta {
  calculatedAt: string;
  isStale?: boolean;
}

/** GET /api/v1/analytics/overview. */
export interface AnalyticsOverview {
  totalCampaigns: number;
  activeCampaigns: number;
  totalCalls: number;
  totalCallDuration: number;
  avgHumanContactRate: number;
  avgObjectiveSuccessRate: number;
  topPerformingCampaign: { id: string; name: string; objectiveSuccessRate: number } | null;
  period: { from: string; to: string };
  meta?: AnalyticsMeta;
}
