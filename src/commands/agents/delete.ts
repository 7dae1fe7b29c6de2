import { Command } from 'commander';
import { deleteAgent, getAgent } from '../../api/agents.js';
import type { Context } from '../../context.js';
import { safe } from '../../ui/safe-text.js';
import { action } from '../action.js';
import { confirmOrKeep } from '../confirm.js';
import type { ContextFactory } from '../types.js';

export function deleteCommand(makeContext: ContextFactory): Command {
  return new Command('delete')
    .alias('rm')
    .description('Delete an agent (calls already made are unaffected); asks first on a terminal, needs --yes otherwise')
    .argument('<agentId>', 'the agent id')
    .addHelpText(
      'after',
      `
Examples:
  $ vap agents delete ag_3k9x0c1m2p8q7r4t
  $ vap agents delete ag_3k9x0c1m2p8q7r4t --yes       (in scripts and CI)`,
    )
    .action(action(makeContext, (args, _opts, ctx) => run(args[0]!, ctx)));
}

export async function run(agentId: string, ctx: Context): Promise<void> {
  if (!ctx.globals.yes) {
    // The prompt names the agent (read first); without a terminal it is a usage error naming --yes, and nothing is sent.
    const label = ctx.prompter.canPrompt ? safe`agent ${(await getAgent(await ctx.api(), agentId, ctx.signal)).name} (${agentId})` : `agent ${agentId}`;
    if (!(await confirmOrKeep(ctx, `Delete ${label}? This cannot be undone.`, `nothing deleted: ${label} was kept`))) return;
  }
  const api = await ctx.api();
  const res = await deleteAgent(api, agentId);
  const g = ctx.globals;
  if (g.json || g.output || g.query || g.quiet) {
    await ctx.out.item(
      { id: agentId, deleted: res?.deleted ?? true },
      {
        fields: [
          { header: 'id', value: (r) => r.id },
          { header: 'deleted', value: (r) => r.deleted },
        ],
      },
    );
  }
  await ctx.success(`Deleted agent ${agentId}`);
}
