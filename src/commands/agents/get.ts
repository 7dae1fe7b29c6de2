import { Command } from 'commander';
import { getAgent } from '../../api/agents.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { AGENT_FIELDS } from './fields.js';

export function getCommand(makeContext: ContextFactory): Command {
  return new Command('get')
    .description('Show an agent as it stands now')
    .argument('<agentId>', 'the agent id')
    .addHelpText(
      'after',
      `
Examples:
  $ vap agents get ag_3k9x0c1m2p8q7r4t
  $ vap agents get ag_3k9x0c1m2p8q7r4t --json --query instructions`,
    )
    .action(action(makeContext, (args, _opts, ctx) => run(args[0]!, ctx)));
}

export async function run(agentId: string, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const agent = await getAgent(api, agentId, ctx.signal);
  await ctx.out.item(agent, { fields: AGENT_FIELDS });
}
