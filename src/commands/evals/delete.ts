import { Command } from 'commander';
import { deleteSuite, getSuite } from '../../api/evals.js';
import type { Context } from '../../context.js';
import { safe } from '../../ui/safe-text.js';
import { action } from '../action.js';
import { confirmOrKeep } from '../confirm.js';
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
    // The prompt names the suite (read first); without a terminal it is a usage error naming --yes, and nothing is sent.
    const label = ctx.prompter.canPrompt
      ? safe`eval suite ${(await getSuite(await ctx.api(), agentId, evalId, ctx.signal)).name} (${evalId})`
      : `eval suite ${evalId}`;
    if (!(await confirmOrKeep(ctx, `Delete ${label} with its scenarios, runs and results? This cannot be undone.`, `nothing deleted: ${label} was kept`)))
      return;
  }
  const api = await ctx.api();
  const res = await deleteSuite(api, agentId, evalId);
  const g = ctx.globals;
  if (g.json || g.output || g.query || g.quiet) {
    await ctx.out.item(
      { id: evalId, deleted: res?.deleted ?? true },
      {
        fields: [
          { header: 'id', value: (r) => r.id },
          { header: 'deleted', value: (r) => r.deleted },
        ],
      },
    );
  }
  await ctx.success(`Deleted eval suite ${evalId}`);
}
