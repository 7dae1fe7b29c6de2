import type { ApiClient } from './client.js';
import { apiPath } from './path.js';
import type { Run } from './campaigns.js';
import type { AnalyticsMeta, AnalyticsOverview, AnalyticsSummaryFigures, CampaignMetrics, InboundFigures } from '../spec/analytics.js';

// Document 2, Analytics: per campaign (metrics, summary, realtime, inbound), per run,
// and the organization's overview. `x-api-key`, `{ data: {...} }`.

export interface CampaignAnalytics {
  campaign: { id: string; name: string; status: string };
  run?: Run;
  metrics: CampaignMetrics;
  meta?: AnalyticsMeta;
}

export interface AnalyticsSummary extends AnalyticsSummaryFigures {
  meta?: AnalyticsMeta;
}

export interface RealtimeAnalytics {
  activeCalls: number;
  queuedCalls: number;
  callsCompletedToday: number;
  currentCallRate: number;
  lastCallAt: string | null;
  meta?: AnalyticsMeta;
}

export interface InboundAnalytics extends InboundFigures {
  meta?: AnalyticsMeta;
}

export interface DateRange {
  /** YYYY-MM-DD */
  dateFrom?: string;
  /** YYYY-MM-DD */
  dateTo?: string;
}

const auth = 'x-api-key' as const;

export async function getCampaignAnalytics(api: ApiClient, id: string, range: DateRange = {}, signal?: AbortSignal): Promise<CampaignAnalytics> {
  return (await api.request<CampaignAnalytics>({ method: 'GET', path: apiPath`/api/v1/campaigns/${id}/analytics`, auth, query: { ...range }, signal })).data;
}

export async function getAnalyticsSummary(api: ApiClient, id: string, signal?: AbortSignal): Promise<AnalyticsSummary> {
  return (await api.request<AnalyticsSummary>({ method: 'GET', path: apiPath`/api/v1/campaigns/${id}/analytics/summary`, auth, signal })).data;
}

export async function getRealtimeAnalytics(api: ApiClient, id: string, signal?: AbortSignal): Promise<RealtimeAnalytics> {
  return (await api.request<RealtimeAnalytics>({ method: 'GET', path: apiPath`/api/v1/campaigns/${id}/analytics/realtime`, auth, signal })).data;
}

export async function getInboundAnalytics(api: ApiClient, id: string, signal?: AbortSignal): Promise<InboundAnalytics> {
  return (await api.request<InboundAnalytics>({ method: 'GET', path: apiPath`/api/v1/campaigns/${id}/analytics/inbound`, auth, signal })).data;
}

export async function getRunAnalytics(api: ApiClient, id: string, runId: string, range: DateRange = {}, signal?: AbortSignal): Promise<CampaignAnalytics> {
  return (
    await api.request<CampaignAnalytics>({ method: 'GET', path: apiPath`/api/v1/campaigns/${id}/runs/${runId}/analytics`, auth, query: { ...range }, signal })
  ).data;
}

export async function getAnalyticsOverview(api: ApiClient, signal?: AbortSignal): Promise<AnalyticsOverview> {
  return (await api.request<AnalyticsOverview>({ method: 'GET', path: '/api/v1/analytics/overview', auth, signal })).data;
}
