import type { ApiClient } from './client.js';
import { hasMoreByPages, type Page, type PageRequest } from './paginate.js';
import { apiPath } from './path.js';

export type Engine = 'realtime' | 'pipeline' | 'speech-to-speech';
export const ENGINES: readonly Engine[] = ['realtime', 'pipeline', 'speech-to-speech'];

export interface Variable {
  name: string;
  description: string;
}

export interface Agent {
  id: string;
  name: string;
  instructions?: string;
  engine?: Engine;
  modality?: string;
  voice?: { name: string; language: string } | null;
  currentVersion?: number;
  variables?: Variable[];
  [key: string]: unknown;
}

/** Agent list: `page`/`pageSize` (up to 200), `{ agents }` with meta.pagination. */
export const AGENTS_MAX_PAGE_SIZE = 200;

export async function listAgentsPage(api: ApiClient, req: PageRequest & { search?: string }, signal?: AbortSignal): Promise<Page<Agent>> {
  const res = await api.request<{ agents: Agent[] }>({
    method: 'GET',
    path: '/api/v1/agents',
    auth: 'bearer',
    query: { search: req.search, page: req.page, pageSize: req.pageSize },
    signal,
  });
  const items = res.data?.agents ?? [];
  const p = res.pagination;
  const hasMore = p && 'nextCursor' in p ? p.nextCursor != null : hasMoreByPages(req.page, req.pageSize, items.length, p);
  return { items, hasMore, total: p?.total };
}

export async function createAgent(
  api: ApiClient,
  body: { name: string; instructions: string; engine: Engine; variables?: Variable[] },
): Promise<{ id: string; name: string; engine: Engine; currentVersion: number }> {
  return (await api.request<{ id: string; name: string; engine: Engine; currentVersion: number }>({ method: 'POST', path: '/api/v1/agents', auth: 'bearer', body })).data;
}

export async function getAgent(api: ApiClient, agentId: string): Promise<Agent> {
  return (await api.request<Agent>({ method: 'GET', path: apiPath`/api/v1/agents/${agentId}`, auth: 'bearer' })).data;
}
