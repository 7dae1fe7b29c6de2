import pLimit from 'p-limit';
import { AGENTS_MAX_PAGE_SIZE, getAgentTools, listAgentsPage } from '../api/agents.js';
import type { ApiClient } from '../api/client.js';
import { NotFoundError } from '../api/errors.js';

/**
 * The tools vap can see. The API has no tool listing, so they are read from the agents the key
 * can read: the first page of them (AGENTS_READ, as for a tool given by name), or every agent.
 * A tool no agent has is seen nowhere.
 */

/** How many agents are read by default: one listing page, as for a tool given by name. */
export const AGENTS_READ = AGENTS_MAX_PAGE_SIZE;
/** How many agents' tools are read at once. */
const CONCURRENCY = 4;

export interface SeenTool {
  id: string;
  name: string;
  /** How many of the agents read have it. */
  agentCount: number;
}

export interface SeenTools {
  /** By name, then id. */
  tools: SeenTool[];
  /** How many agents were read. */
  agentsRead: number;
  /** How many agents the organization has, when the listing says (more than were read unless `all`). */
  agentsTotal?: number;
  /** Whether every agent was read. */
  complete: boolean;
}

/** The tools of the agents the key can read: the first AGENTS_READ agents, or every one with `all`. */
export async function toolsOfAgents(api: ApiClient, opts: { all?: boolean; signal?: AbortSignal } = {}): Promise<SeenTools> {
  const agents: string[] = [];
  let total: number | undefined;
  let complete = false;
  for (let page = 1; ; page++) {
    const p = await listAgentsPage(api, { page, pageSize: AGENTS_MAX_PAGE_SIZE }, opts.signal);
    agents.push(...p.items.map((a) => a.id));
    total ??= p.total;
    if (!p.hasMore || p.items.length === 0) {
      complete = true;
      break;
    }
    if (!opts.all) break;
  }
  const byId = new Map<string, SeenTool>();
  const limit = pLimit(CONCURRENCY);
  await Promise.all(
    agents.map((id) =>
      limit(async () => {
        // An agent deleted since the listing has no tools to show.
        const tools = await getAgentTools(api, id, opts.signal).catch((err: unknown) => (err instanceof NotFoundError ? [] : Promise.reject(err)));
        for (const t of tools) {
          const seen = byId.get(t.id);
          if (seen) seen.agentCount++;
          else byId.set(t.id, { id: t.id, name: t.name, agentCount: 1 });
        }
      }),
    ),
  );
  const tools = [...byId.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  return { tools, agentsRead: agents.length, agentsTotal: total, complete };
}

/**
 * Where a tool's id is found when no agent has the tool: the product's tool page, and on
 * vap's emulator (a loopback base URL) its control path. For the messages of `tools list`
 * and of a tool given by a name no agent has.
 */
export function whereToolIdsAre(baseUrl: string): string {
  let local = false;
  try {
    const host = new URL(baseUrl).hostname;
    local = host === 'localhost' || host === '[::1]' || /^127\./.test(host);
  } catch {
    // not a URL: no emulator to name
  }
  return `from the product's tool page${local ? ` (on vap's emulator: \`curl ${baseUrl.replace(/\/+$/, '')}/_emulator/tools\`)` : ''}`;
}
