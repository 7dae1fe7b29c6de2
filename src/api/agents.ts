import type { ApiClient } from './client.js';
import { hasMoreByPages, type Page, type PageRequest } from './paginate.js';
import { apiPath } from './path.js';
import type { Engine, Tool, Variable } from '../spec/agents.js';

export interface Agent {
  id: string;
  name: string;
  instructions?: string;
  engine?: Engine;
  modality?: string;
  voice?: { name: string; language: string } | null;
  currentVersion?: number;
  variables?: Variable[];
  description?: string;
  tags?: string[];
  createdAt?: string;
  updatedAt?: string;
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
  body: { name: string; instructions: string; engine: Engine; variables?: Variable[]; description?: string; tags?: string[] },
): Promise<{ id: string; name: string; engine: Engine; currentVersion: number }> {
  return (
    await api.request<{ id: string; name: string; engine: Engine; currentVersion: number }>({ method: 'POST', path: '/api/v1/agents', auth: 'bearer', body })
  ).data;
}

export async function getAgent(api: ApiClient, agentId: string, signal?: AbortSignal): Promise<Agent> {
  return (await api.request<Agent>({ method: 'GET', path: apiPath`/api/v1/agents/${agentId}`, auth: 'bearer', signal })).data;
}

export interface AgentChange {
  name?: string;
  instructions?: string;
  engine?: Engine;
  variables?: Variable[];
  description?: string;
  tags?: string[];
  /** Why (not in the spec's field list; the emulator keeps it on the version the change makes, as rollback does). */
  reason?: string;
}

/** PATCH: any subset of the agent's fields; a change to instructions makes a new version. */
export async function updateAgent(api: ApiClient, agentId: string, body: AgentChange): Promise<{ id: string; currentVersion: number }> {
  return (await api.request<{ id: string; currentVersion: number }>({ method: 'PATCH', path: apiPath`/api/v1/agents/${agentId}`, auth: 'bearer', body })).data;
}

export async function deleteAgent(api: ApiClient, agentId: string): Promise<{ deleted: boolean }> {
  return (await api.request<{ deleted: boolean }>({ method: 'DELETE', path: apiPath`/api/v1/agents/${agentId}`, auth: 'bearer' })).data;
}

export interface AgentVersion {
  versionNumber: number;
  changeType: string;
  changedByName: string;
  changedAt: string;
  isCurrent: boolean;
  /** Emulator extras (not in the spec): what changed, and for a rollback, where to and why. */
  changedFields?: string[];
  rolledBackTo?: number;
  reason?: string | null;
  /** Emulator extras (not in the spec): the version's instructions, voice and tools (what a rollback to it restores). */
  instructions?: string;
  voice?: AgentVoice | null;
  tools?: Tool[];
  [key: string]: unknown;
}

/** Versions: `limit` (default 50, up to 200) and `offset`; `{ versions, currentVersion, total }`, newest first. */
export const VERSIONS_MAX_PAGE_SIZE = 200;

export async function listVersionsPage(
  api: ApiClient,
  agentId: string,
  req: PageRequest,
  signal?: AbortSignal,
): Promise<Page<AgentVersion> & { currentVersion?: number }> {
  const offset = (req.page - 1) * req.pageSize;
  const res = await api.request<{ versions: AgentVersion[]; currentVersion: number; total: number }>({
    method: 'GET',
    path: apiPath`/api/v1/agents/${agentId}/versions`,
    auth: 'bearer',
    query: { limit: req.pageSize, offset },
    signal,
  });
  const items = res.data?.versions ?? [];
  const total = typeof res.data?.total === 'number' ? res.data.total : undefined;
  const hasMore = total !== undefined ? offset + items.length < total : items.length >= req.pageSize;
  return { items, hasMore, total, currentVersion: res.data?.currentVersion };
}

/** Records a new version restoring an earlier one; returns the new version's number. */
export async function rollbackAgent(api: ApiClient, agentId: string, body: { version: number; reason: string }): Promise<{ version: number }> {
  return (await api.request<{ version: number }>({ method: 'POST', path: apiPath`/api/v1/agents/${agentId}/rollback`, auth: 'bearer', body })).data;
}

export async function getAgentTools(api: ApiClient, agentId: string, signal?: AbortSignal): Promise<Tool[]> {
  return (await api.request<{ tools: Tool[] }>({ method: 'GET', path: apiPath`/api/v1/agents/${agentId}/tools`, auth: 'bearer', signal })).data?.tools ?? [];
}

/** Replaces the agent's whole tool list in one step. */
export async function setAgentTools(api: ApiClient, agentId: string, toolIds: string[]): Promise<Tool[]> {
  return (
    (await api.request<{ tools: Tool[] }>({ method: 'PUT', path: apiPath`/api/v1/agents/${agentId}/tools`, auth: 'bearer', body: { toolIds } })).data?.tools ??
    []
  );
}

export interface AgentVoice {
  voiceId: string;
  name: string;
  language: string;
}

export async function getAgentVoice(api: ApiClient, agentId: string, signal?: AbortSignal): Promise<AgentVoice> {
  return (await api.request<AgentVoice>({ method: 'GET', path: apiPath`/api/v1/agents/${agentId}/voice`, auth: 'bearer', signal })).data;
}

/** Refused by the service for speech-to-speech agents. */
export async function setAgentVoice(api: ApiClient, agentId: string, body: { voiceId: string; language?: string }): Promise<AgentVoice> {
  return (await api.request<AgentVoice>({ method: 'PUT', path: apiPath`/api/v1/agents/${agentId}/voice`, auth: 'bearer', body })).data;
}
