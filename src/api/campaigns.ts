import type { ApiClient } from './client.js';
import { hasMoreByPages, type Page, type PageRequest } from './paginate.js';
import { apiPath } from './path.js';
import type { CallFilters, CallsSummary } from './calls.js';
import type { CampaignStatus } from '../spec/calls.js';

// Document 2: campaigns, their contacts, their queued calls and their runs.
// Every endpoint takes `x-api-key` and answers `{ data: {...} }` (see /work/notes/calls-contract.md).

export type CampaignDirection = 'outbound' | 'inbound';
export const CAMPAIGN_DIRECTIONS: readonly CampaignDirection[] = ['outbound', 'inbound'];

export interface Campaign {
  id: string;
  name: string;
  description: string;
  status: CampaignStatus;
  direction: CampaignDirection;
  type: 'standard' | 'api';
  contactListId: string | null;
  contactListName: string | null;
  totalContacts: number;
  pendingContacts: number;
  agentId: string;
  agent: { type: string } | null;
  workspaceId: string | null;
  provisionedPhoneNumberId: string | null;
  phoneNumber?: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  completedAt: string | null;
}

export interface CreateCampaignBody {
  name: string;
  description?: string;
  agentId: string;
  agent?: { type: string };
  workspaceId?: string;
  direction?: CampaignDirection;
  type?: 'api';
  contactListId?: string;
  provisionedPhoneNumberId?: string;
}

export type UpdateCampaignBody = Partial<Pick<CreateCampaignBody, 'name' | 'description' | 'agentId' | 'agent' | 'workspaceId'>>;

export interface CampaignContact {
  contactId: string;
  name: string;
  phoneNumber: string;
  status: 'pending' | 'queued' | 'called' | 'failed';
  addedAt: string;
  lastCallId: string | null;
}

/** A call as the campaign's listing and queue answer it (a superset of the spec's). */
export interface CampaignCall {
  id: string;
  campaignId: string | null;
  phoneNumber: string;
  calleeName: string | null;
  status: string;
  direction: string;
  duration: number;
  createdAt: string;
  endedAt: string | null;
  contactId: string | null;
  priority: number;
  scheduledFor: string | null;
  startedAt: string | null;
  failureReason: string | null;
  [k: string]: unknown;
}

export interface Run {
  id: string;
  startedAt: string;
  endedAt: string | null;
  totalCalls: number;
  completedCalls: number;
}

export const CAMPAIGNS_MAX_PAGE_SIZE = 100;
export const CAMPAIGN_CONTACTS_MAX_PAGE_SIZE = 100;
export const CAMPAIGN_CALLS_MAX_PAGE_SIZE = 100;
/** POST /campaigns/{id}/contacts takes 1..1000 ids. */
export const ADD_CONTACTS_MAX = 1000;

const auth = 'x-api-key' as const;

type Paged<K extends string, T> = { [key in K]: T[] } & { pagination?: { page?: number; pageSize?: number; total?: number; totalPages?: number } };

export interface CampaignFilters {
  status?: CampaignStatus;
  direction?: CampaignDirection;
  search?: string;
  workspaceId?: string;
}

export async function listCampaignsPage(api: ApiClient, req: PageRequest & CampaignFilters, signal?: AbortSignal): Promise<Page<Campaign>> {
  const res = await api.request<Paged<'campaigns', Campaign>>({
    method: 'GET',
    path: '/api/v1/campaigns',
    auth,
    query: { page: req.page, pageSize: req.pageSize, status: req.status, direction: req.direction, search: req.search, workspaceId: req.workspaceId },
    signal,
  });
  const items = res.data?.campaigns ?? [];
  return { items, hasMore: hasMoreByPages(req.page, req.pageSize, items.length, res.data?.pagination), total: res.data?.pagination?.total };
}

export async function createCampaign(api: ApiClient, body: CreateCampaignBody, signal?: AbortSignal): Promise<Campaign> {
  return (await api.request<Campaign>({ method: 'POST', path: '/api/v1/campaigns', auth, body, signal })).data;
}

export async function getCampaign(api: ApiClient, id: string, signal?: AbortSignal): Promise<Campaign> {
  return (await api.request<Campaign>({ method: 'GET', path: apiPath`/api/v1/campaigns/${id}`, auth, signal })).data;
}

export async function updateCampaign(api: ApiClient, id: string, body: UpdateCampaignBody, signal?: AbortSignal): Promise<Campaign> {
  return (await api.request<Campaign>({ method: 'PATCH', path: apiPath`/api/v1/campaigns/${id}`, auth, body, signal })).data;
}

export async function deleteCampaign(api: ApiClient, id: string, signal?: AbortSignal): Promise<{ id: string; deleted: boolean }> {
  return (await api.request<{ id: string; deleted: boolean }>({ method: 'DELETE', path: apiPath`/api/v1/campaigns/${id}`, auth, signal })).data;
}

export async function startCampaign(api: ApiClient, id: string, signal?: AbortSignal): Promise<Campaign> {
  return (await api.request<Campaign>({ method: 'POST', path: apiPath`/api/v1/campaigns/${id}/start`, auth, signal })).data;
}

export async function pauseCampaign(api: ApiClient, id: string, signal?: AbortSignal): Promise<Campaign> {
  return (await api.request<Campaign>({ method: 'POST', path: apiPath`/api/v1/campaigns/${id}/pause`, auth, signal })).data;
}

export async function triggerCampaignCall(
  api: ApiClient,
  id: string,
  body: { phoneNumber: string; calleeName?: string; scheduledFor?: string },
  signal?: AbortSignal,
): Promise<CampaignCall> {
  return (await api.request<CampaignCall>({ method: 'POST', path: apiPath`/api/v1/campaigns/${id}/trigger`, auth, body, signal })).data;
}

export async function listCampaignContactsPage(api: ApiClient, id: string, req: PageRequest, signal?: AbortSignal): Promise<Page<CampaignContact>> {
  const res = await api.request<Paged<'contacts', CampaignContact>>({
    method: 'GET',
    path: apiPath`/api/v1/campaigns/${id}/contacts`,
    auth,
    query: { page: req.page, pageSize: req.pageSize },
    signal,
  });
  const items = res.data?.contacts ?? [];
  return { items, hasMore: hasMoreByPages(req.page, req.pageSize, items.length, res.data?.pagination), total: res.data?.pagination?.total };
}

export async function addCampaignContacts(api: ApiClient, id: string, contactIds: string[], signal?: AbortSignal): Promise<{ added: number; skipped: number }> {
  return (
    await api.request<{ added: number; skipped: number }>({
      method: 'POST',
      path: apiPath`/api/v1/campaigns/${id}/contacts`,
      auth,
      body: { contactIds },
      signal,
    })
  ).data;
}

export async function removeCampaignContact(api: ApiClient, id: string, contactId: string, signal?: AbortSignal): Promise<{ removed: boolean }> {
  return (await api.request<{ removed: boolean }>({ method: 'DELETE', path: apiPath`/api/v1/campaigns/${id}/contacts/${contactId}`, auth, signal })).data;
}

/** The call filters of /campaigns/{id}/calls: those of GET /calls but the campaign. */
export type CampaignCallFilters = Omit<CallFilters, 'campaignId'>;

export async function listCampaignCallsPage(
  api: ApiClient,
  id: string,
  req: PageRequest & CampaignCallFilters,
  signal?: AbortSignal,
): Promise<Page<CampaignCall> & { summary?: CallsSummary }> {
  const { page, pageSize, cursor: _cursor, ...filters } = req;
  const res = await api.request<Paged<'calls', CampaignCall> & { summary?: CallsSummary }>({
    method: 'GET',
    path: apiPath`/api/v1/campaigns/${id}/calls`,
    auth,
    query: { page, pageSize, ...filters },
    signal,
  });
  const items = res.data?.calls ?? [];
  return { items, hasMore: hasMoreByPages(page, pageSize, items.length, res.data?.pagination), total: res.data?.pagination?.total, summary: res.data?.summary };
}

export interface QueueCallsBody {
  contactIds?: string[];
  queueAllPending?: true;
  priority?: number;
  scheduledFor?: string;
}

export async function queueCampaignCalls(
  api: ApiClient,
  id: string,
  body: QueueCallsBody,
  signal?: AbortSignal,
): Promise<{ calls: CampaignCall[]; queued: number }> {
  return (await api.request<{ calls: CampaignCall[]; queued: number }>({ method: 'POST', path: apiPath`/api/v1/campaigns/${id}/calls`, auth, body, signal }))
    .data;
}

export async function listRuns(api: ApiClient, id: string, signal?: AbortSignal): Promise<Run[]> {
  return (await api.request<{ runs: Run[] }>({ method: 'GET', path: apiPath`/api/v1/campaigns/${id}/runs`, auth, signal })).data?.runs ?? [];
}

export type { CallFilters, CallsSummary } from './calls.js';
