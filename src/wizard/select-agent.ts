import { AGENTS_MAX_PAGE_SIZE, listAgentsPage, type Agent } from '../api/agents.js';
import type { ApiClient } from '../api/client.js';
import type { Context } from '../context.js';
import { CliError } from '../errors.js';

/** Step 1: the agent, from --agent / $VAP_AGENT, or chosen from the organization's agents. */
export async function selectAgent(given: string | undefined, api: () => Promise<ApiClient>, ctx: Context): Promise<string> {
  if (given) return given;
  const client = await api();
  const agents: Agent[] = [];
  for (let page = 1; page <= 10; page++) {
    const p = await listAgentsPage(client, { page, pageSize: AGENTS_MAX_PAGE_SIZE }, ctx.signal);
    agents.push(...p.items);
    if (!p.hasMore) break;
  }
  if (agents.length === 0) throw new CliError('this organization has no agents', undefined, 'create one with `vap agents create`');
  return ctx.prompter.select(
    'Agent',
    agents.map((a) => ({ name: `${a.name}  ${a.id}`, value: a.id })),
    { flag: '--agent <agentId>' },
  );
}
