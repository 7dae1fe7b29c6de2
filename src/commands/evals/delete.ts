import { Command } from 'commander';
import { deleteSuite } from '../../api/evals.js';
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { agentOption, evalOption, resolveAgent, resolveEvalId } from './options.js';

interface DeleteOptions {
  agent?: string;
  eval?: string;
}

export function deleteCommand(makeContext: ContextFactory): Command {
  return new Command('delete')
    .alias('rm')
    .description('Delete a suite with its scenarios, imports, runs and results; asks first on a terminal, needs --yes otherwise')
    .argument('[evalId]', 'the eval suite (or pass --eval)')
    .addOption(agentOption())
    .addOption(evalOption())
    .addHelpText(
      'after',
      `
Examples:
  $ vap evals delete ev_123 --agent ag_456
  $ vap evals delete ev_123 --agent ag_456 --yes       (in scripts and CI)`,
    )
    .action(action<DeleteOptions>(makeContext, (args, opts, ctx) => run(args[0], opts, ctx)));
}

export async function run(arg: string | undefined, opts: DeleteOptions, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const evalId = resolveEvalId(arg, opts);
  if (!ctx.globals.yes) {
    // Without a terminal this is a usage error naming --yes; nothing is sent.
    const ok = await ctx.prompter.confirm(`Delete eval suite ${evalId} with its scenarios, runs and results? This cannot be undone.`, { flag: '--yes', default: false });
    if (!ok) throw new CliError(`not deleted: suite ${evalId} was kept`);
  }
  const api = await ctx.api();
  const res = await deleteSuite(api, agentId, evalId);
  const g = ctx.globals;
  if (g.json || g.output || g.query || g.quiet) {
    await ctx.out.item({ id: evalId, deleted: res?.deleted ?? true }, { fields: [{ header: 'id', value: (r) => r.id }, { header: 'deleted', value: (r) => r.deleted }] });
  }
  await ctx.success(`Deleted eval suite ${evalId}`);
}
