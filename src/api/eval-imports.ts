import type { ApiClient } from './client.js';
import { apiPath } from './path.js';

// Document 1, "Imports": real calls pulled into an eval suite, triaged in batches and
// turned into scenarios. All under /api/v1/agents/{agentId}/evals/{evalId}/imports.

const auth = 'bearer' as const;

/** The API's `sourceType` values. */
export type SourceType = 'campaign' | 'call_center';

export interface ImportSource {
  id: string;
  name: string;
  callCount: number;
}

export interface ImportSources {
  outboundCampaigns: ImportSource[];
  inboundCampaigns: ImportSource[];
  callCenters: ImportSource[];
}

export interface CandidateCall {
  id: string;
  direction: 'inbound' | 'outbound' | string;
  durationSeconds: number;
  sentiment: string;
  callerIntent: string;
  resolved: boolean;
  /** Not in the spec; the emulator adds when the call started and its first caller line (README). */
  startedAt?: string;
  preview?: string;
  [key: string]: unknown;
}

export interface CandidateFilter {
  sourceType: SourceType;
  sourceId: string;
  /** ISO dates (YYYY-MM-DD or a full timestamp). */
  from?: string;
  to?: string;
  minDuration?: number;
  direction?: 'inbound' | 'outbound';
  search?: string;
}

/** Candidate calls: `pageSize` default 25, up to 100. */
export const CANDIDATES_MAX_PAGE_SIZE = 100;
export const CANDIDATES_DEFAULT_PAGE_SIZE = 25;

export interface CallImport {
  id: string;
  source: string;
  label: string;
  status: 'pending' | 'triaging' | 'triaged' | string;
  totalCalls: number;
  triagedCalls: number;
  sourceType?: SourceType;
  sourceId?: string;
  createdAt?: string;
  [key: string]: unknown;
}

export interface TriageBatch {
  import: { id: string; triagedCalls: number; status?: string };
  processed: number;
  remaining: number;
}

export interface SuggestedScenario {
  name: string;
  /** Not in the spec; the emulator suggests them too (README). */
  persona?: string;
  goal?: string;
}

export interface TriagedCall {
  id: string;
  triageStatus: string;
  triage: { category: string; summary: string; suggestedScenario: SuggestedScenario } | null;
  scenarioId: string | null;
  [key: string]: unknown;
}

export interface ScenariosCreated {
  created: number;
  scenarioIds: string[];
  /** Not in the spec: how many calls were skipped because they already were scenarios. */
  skipped?: number;
}

const base = (agentId: string, evalId: string) => apiPath`/api/v1/agents/${agentId}/evals/${evalId}/imports`;

export async function listImportSources(api: ApiClient, agentId: string, evalId: string, signal?: AbortSignal): Promise<ImportSources> {
  const data = (await api.request<Partial<ImportSources>>({ method: 'GET', path: `${base(agentId, evalId)}/sources`, auth, signal })).data ?? {};
  return { outboundCampaigns: data.outboundCampaigns ?? [], inboundCampaigns: data.inboundCampaigns ?? [], callCenters: data.callCenters ?? [] };
}

export async function listCandidatesPage(
  api: ApiClient,
  agentId: string,
  evalId: string,
  filter: CandidateFilter,
  page: { page: number; pageSize: number },
  signal?: AbortSignal,
): Promise<{ calls: CandidateCall[]; total: number }> {
  const data = (
    await api.request<{ calls: CandidateCall[]; total: number }>({
      method: 'GET',
      path: `${base(agentId, evalId)}/candidates`,
      auth,
      query: { ...filter, page: page.page, pageSize: page.pageSize },
      signal,
    })
  ).data;
  return { calls: data?.calls ?? [], total: typeof data?.total === 'number' ? data.total : (data?.calls?.length ?? 0) };
}

export async function listImports(api: ApiClient, agentId: string, evalId: string, signal?: AbortSignal): Promise<CallImport[]> {
  return (await api.request<{ imports: CallImport[] }>({ method: 'GET', path: base(agentId, evalId), auth, signal })).data?.imports ?? [];
}

/** Imports calls of one source; ids of another source are rejected and nothing is imported. */
export async function createImport(
  api: ApiClient,
  agentId: string,
  evalId: string,
  body: { sourceType: SourceType; sourceId: string; callIds: string[] },
): Promise<{ id: string; status: string; totalCalls: number; triagedCalls: number } & Partial<CallImport>> {
  return (
    await api.request<{ id: string; status: string; totalCalls: number; triagedCalls: number }>({ method: 'POST', path: base(agentId, evalId), auth, body })
  ).data;
}

/** Triages the next batch; each batch commits, so calling again after a failure resumes. */
export async function triageBatch(
  api: ApiClient,
  agentId: string,
  evalId: string,
  importId: string,
  batchSize: number,
  signal?: AbortSignal,
): Promise<TriageBatch> {
  return (
    await api.request<TriageBatch>({
      method: 'POST',
      path: apiPath`/api/v1/agents/${agentId}/evals/${evalId}/imports/${importId}/triage`,
      auth,
      body: { batchSize },
      signal,
    })
  ).data;
}

export async function listTriagedCalls(api: ApiClient, agentId: string, evalId: string, importId: string, signal?: AbortSignal): Promise<TriagedCall[]> {
  return (
    (
      await api.request<{ calls: TriagedCall[] }>({
        method: 'GET',
        path: apiPath`/api/v1/agents/${agentId}/evals/${evalId}/imports/${importId}/scenarios`,
        auth,
        signal,
      })
    ).data?.calls ?? []
  );
}

/** Creates scenarios from triaged calls; calls already turned into scenarios are skipped. */
export async function createScenariosFromCalls(
  api: ApiClient,
  agentId: string,
  evalId: string,
  importId: string,
  callIds: string[],
): Promise<ScenariosCreated> {
  return (
    await api.request<ScenariosCreated>({
      method: 'POST',
      path: apiPath`/api/v1/agents/${agentId}/evals/${evalId}/imports/${importId}/scenarios`,
      auth,
      body: { callIds },
    })
  ).data;
}
