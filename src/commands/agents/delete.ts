import { Command } from 'commander';
import { deleteAgent } from '../../api/agents.js';
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import { action } from '../action.js';
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
    // Without a terminal this is a usage error naming --yes; nothing is sent.
    const ok = await ctx.prompter.confirm(`Delete agent ${agentId}? This cannot be undone.`, { flag: '--yes', default: false });
    if (!ok) throw new CliError(`not deleted: agent ${agentId} was kept`);
  }
  const api = await ctx.api();
  const res = await deleteAgent(api, agentId);
  const g = ctx.globals;
  if (g.json || g.output || g.query || g.quiet) {
    await ctx.out.item({ id: agentId, deleted: res?.deleted ?? true }, { fields: [{ header: 'id', value: (r) => r.id }, { header: 'deleted', value: (r) => r.deleted }] });
  }
  await ctx.success(`Deleted agent ${agentId}`);
}
