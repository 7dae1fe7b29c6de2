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

/** The metrics groups of GET /api/v1/campaigns/{id}/analytics (and of a run's). */
export interface CampaignMetrics {
  callStats: { totalCalls: number; completedCalls: number; failedCalls: number; cancelledCalls: number; pendingCalls: number };
  successMetrics: { humanContactRate: number; objectiveSuccessRate: number; callbackRate: number };
  qualityMetrics: { avgSentimentScore: number; avgCallDuration: number };
  complianceMetrics: { doNotCallRate: number };
  costMetrics: { totalCost: number; avgCostPerCall: number };
}

/** GET /api/v1/campaigns/{id}/analytics/summary, without its meta. */
export interface AnalyticsSummaryFigures {
  totalCalls: number;
  completedCalls: number;
  humanContactRate: number;
  objectiveSuccessRate: number;
  avgSentimentScore: number;
}

/** GET /api/v1/campaigns/{id}/analytics/inbound, without its meta. */
export interface InboundFigures {
  totalInboundCalls: number;
  answeredCalls: number;
  missedCalls: number;
  avgWaitTime: number;
  avgHandleTime: number;
  peakHour: string | null;
  callsByHour: Record<string, number>;
}
