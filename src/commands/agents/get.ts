import { Command } from 'commander';
import { getAgent, getAgentTools } from '../../api/agents.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { AGENT_FIELDS } from './fields.js';

export function getCommand(makeContext: ContextFactory): Command {
  return new Command('get')
    .description('Show an agent as it stands now, with its voice and tools')
    .argument('<agentId>', 'the agent id')
    .addHelpText(
      'after',
      `
The tools are read beside the agent (the API keeps them apart); with --json they are the
agent's \`tools\` field, \`[{ id, name }]\`.

Examples:
  $ vap agents get ag_3k9x0c1m2p8q7r4t
  $ vap agents get ag_3k9x0c1m2p8q7r4t --json --query instructions
  $ vap agents get ag_3k9x0c1m2p8q7r4t --json --query 'tools[].name'`,
    )
    .action(action(makeContext, (args, _opts, ctx) => run(args[0]!, ctx)));
}

export async function run(agentId: string, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const [agent, tools] = await Promise.all([getAgent(api, agentId, ctx.signal), getAgentTools(api, agentId, ctx.signal)]);
  await ctx.out.item({ ...agent, tools }, { fields: AGENT_FIELDS });
}
