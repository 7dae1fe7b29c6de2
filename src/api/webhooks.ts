import type { ApiClient } from './client.js';
import type { Page, PageRequest } from './paginate.js';
import { apiPath } from './path.js';
import type { DeliveryStatus } from '../spec/webhooks.js';

// Document 1: webhook endpoints and their delivery log, under /api/v1/webhook-endpoints. The
// emulator's extras ("not shown" by the spec) are optional, so that a service that answers
// without them still works. Shared by the webhooks verbs and `webhooks listen`.

const auth = 'bearer' as const;
const ENDPOINTS = '/api/v1/webhook-endpoints';

export interface WebhookEndpoint {
  id: string;
  name: string;
  url: string;
  events: string[];
  /** The secret's leading characters (`whsec_` + 4 on the emulator); always returned. */
  secretPrefix: string;
  isEnabled: boolean;
  consecutiveFailures: number;
  lastSuccessAt: string | null;
  createdAt?: string;
  updatedAt?: string;
  [key: string]: unknown;
}

/** Create answers with the secret, once. */
export type CreatedWebhookEndpoint = Partial<WebhookEndpoint> & {
  id: string;
  name: string;
  url: string;
  events: string[];
  secret: string;
  secretPrefix: string;
};

export interface WebhookEndpointInput {
  name: string;
  url: string;
  events: string[];
}

export interface WebhookEndpointChange {
  url?: string;
  events?: string[];
  /** true clears `consecutiveFailures` (spec part 3) and resumes the queue. */
  isEnabled?: boolean;
  /** Beyond the spec's url/events/isEnabled; the emulator accepts it (README). */
  name?: string;
}

/** The deliveries listing's `limit` is at most 200 (spec part 8). */
export const DELIVERIES_MAX_LIMIT = 200;

/** One delivery of one event to one endpoint. Payloads are never returned. */
export interface WebhookDelivery {
  id: string;
  eventType: string;
  eventId: string;
  status: DeliveryStatus | string;
  attemptCount: number;
  /** The HTTP status of the last attempt that got an answer; null before any did. */
  responseStatus: number | null;
  createdAt: string;
  lastAttemptAt?: string | null;
  nextAttemptAt?: string | null;
  /** Why the last attempt failed (not in the spec). */
  error?: string | null;
  [key: string]: unknown;
}

const endpointPath = (id: string) => apiPath`/api/v1/webhook-endpoints/${id}`;

export async function listWebhookEndpoints(api: ApiClient, signal?: AbortSignal): Promise<WebhookEndpoint[]> {
  return (await api.request<{ endpoints: WebhookEndpoint[] }>({ method: 'GET', path: ENDPOINTS, auth, signal })).data?.endpoints ?? [];
}

export async function createWebhookEndpoint(api: ApiClient, body: WebhookEndpointInput): Promise<CreatedWebhookEndpoint> {
  return (await api.request<CreatedWebhookEndpoint>({ method: 'POST', path: ENDPOINTS, auth, body })).data;
}

export async function getWebhookEndpoint(api: ApiClient, id: string, signal?: AbortSignal): Promise<WebhookEndpoint> {
  return (await api.request<WebhookEndpoint>({ method: 'GET', path: endpointPath(id), auth, signal })).data;
}

/** PATCH: the spec promises `{ id, events }`; the emulator answers with the whole endpoint. */
export async function updateWebhookEndpoint(api: ApiClient, id: string, body: WebhookEndpointChange): Promise<Partial<WebhookEndpoint> & { id: string }> {
  return (await api.request<Partial<WebhookEndpoint> & { id: string }>({ method: 'PATCH', path: endpointPath(id), auth, body })).data;
}

/** A new secret, effective at once: the old one stops working immediately. */
export async function rotateWebhookSecret(api: ApiClient, id: string): Promise<{ id: string; secret: string; secretPrefix?: string }> {
  return (
    await api.request<{ id: string; secret: string; secretPrefix?: string }>({
      method: 'POST',
      path: apiPath`/api/v1/webhook-endpoints/${id}/rotate-secret`,
      auth,
    })
  ).data;
}

/** Removes the endpoint; its queued deliveries are abandoned. */
export async function deleteWebhookEndpoint(api: ApiClient, id: string): Promise<{ deleted: boolean }> {
  return (await api.request<{ deleted: boolean }>({ method: 'DELETE', path: endpointPath(id), auth })).data;
}

/**
 * One page of an endpoint's deliveries, newest first: `status` filter, `limit` (≤ 200),
 * and the opaque `cursor` of the previous page's `meta.pagination.nextCursor`.
 */
export async function listWebhookDeliveriesPage(
  api: ApiClient,
  endpointId: string,
  req: PageRequest & { status?: string },
  signal?: AbortSignal,
): Promise<Page<WebhookDelivery> & { nextCursor?: string | null }> {
  const res = await api.request<{ deliveries: WebhookDelivery[] }>({
    method: 'GET',
    path: apiPath`/api/v1/webhook-endpoints/${endpointId}/deliveries`,
    auth,
    query: { status: req.status, limit: Math.min(req.pageSize, DELIVERIES_MAX_LIMIT), cursor: req.cursor },
    signal,
  });
  const items = res.data?.deliveries ?? [];
  const nextCursor = res.pagination?.nextCursor ?? null;
  return { items, hasMore: nextCursor !== null && nextCursor !== '', nextCursor };
}
