import type { ApiClient } from './client.js';
import type { Delivery } from '../spec/event-types.js';
import { apiPath } from './path.js';

/** One entry of the catalog (GET /api/v1/events/types). */
export interface CatalogEntry {
  type: string;
  description: string;
  delivery: Delivery[];
}

/** The organization stream: every event type that is not stream-only. */
export const ORGANIZATION_STREAM_PATH = '/api/v1/events';

/** The stream of one call, stream-only types (transcript, voice) included. */
export function callStreamPath(callId: string): string {
  return apiPath`/api/v1/calls/${callId}/events`;
}

/** The live catalog of event types. */
export async function listEventTypes(api: ApiClient, signal?: AbortSignal): Promise<CatalogEntry[]> {
  const res = await api.request<{ events: CatalogEntry[] }>({ method: 'GET', path: '/api/v1/events/types', auth: 'bearer', signal });
  return res.data?.events ?? [];
}

/** Whether a type reaches only the call stream (a catalog entry without `webhook`). */
export function isStreamOnly(entry: CatalogEntry): boolean {
  return !entry.delivery.includes('webhook');
}
