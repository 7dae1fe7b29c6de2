import { Command } from 'commander';
import { rollbackAgent } from '../../api/agents.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import { positiveInt } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { nonBlank } from './input.js';

export interface RollbackOptions {
  version: number;
  reason: string;
}

export function rollbackCommand(makeContext: ContextFactory): Command {
  return new Command('rollback')
    .description('Go back to an earlier version; it is recorded as a new current version (history is kept)')
    .argument('<agentId>', 'the agent id')
    .requiredOption('--version <n>', 'the earlier version to restore', positiveInt('--version'))
    .requiredOption('--reason <text>', 'why (kept in the version history)')
    .addHelpText(
      'after',
      `
Prints the number of the new version.

Examples:
  $ vap agents rollback ag_3k9x0c1m2p8q7r4t --version 2 --reason "v3 mispronounced names"
  $ vap agents versions ag_3k9x0c1m2p8q7r4t          (to find the version to go back to)`,
    )
    .action(action<RollbackOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(agentId: string, opts: RollbackOptions, ctx: Context): Promise<void> {
  const reason = nonBlank('--reason', opts.reason)!;
  const api = await ctx.api();
  const res = await rollbackAgent(api, agentId, { version: opts.version, reason });
  const result = { agentId, version: res.version, rolledBackTo: opts.version };
  await ctx.out.item(result, {
    id: (r) => r.version,
    fields: [
      { header: 'version', value: (r) => r.version },
      { header: 'agent', value: (r) => r.agentId },
      { header: 'restored', value: (r) => r.rolledBackTo },
    ],
  });
  await ctx.success(`Rolled agent ${agentId} back to version ${opts.version}; the new current version is ${res.version}`);
}
