import { Command } from 'commander';
import { deleteRun, getRun, getSuite } from '../../../api/evals.js';
import type { Context } from '../../../context.js';
import { safe } from '../../../ui/safe-text.js';
import { action } from '../../action.js';
import { confirmOrKeep } from '../../confirm.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent, resolveRunIds } from '../options.js';

interface DeleteOptions {
  agent?: string;
  eval?: string;
}

export function deleteCommand(makeContext: ContextFactory): Command {
  return new Command('delete')
    .alias('rm')
    .description('Delete a run and its results (a run still going is stopped); asks first on a terminal, needs --yes otherwise')
    .argument('[evalId]', 'the eval suite (or pass --eval)')
    .argument('[runId]', 'the run')
    .addOption(agentOption())
    .addOption(evalOption())
    .addHelpText(
      'after',
      `
Examples:
  $ vap evals runs delete ev_123 run_789 --agent ag_456
  $ vap evals runs delete run_789 --eval ev_123 --agent ag_456 --yes       (in scripts and CI)`,
    )
    .action(action<DeleteOptions>(makeContext, (args, opts, ctx) => run(args, opts, ctx)));
}

export async function run(args: (string | undefined)[], opts: DeleteOptions, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const { evalId, runId } = resolveRunIds(args, opts);
  if (!ctx.globals.yes) {
    // The prompt names the run by its number and the suite by its name (both read first).
    let label = `run ${runId} of suite ${evalId}`;
    if (ctx.prompter.canPrompt) {
      const api = await ctx.api();
      const [{ run }, suite] = await Promise.all([getRun(api, agentId, evalId, runId, ctx.signal), getSuite(api, agentId, evalId, ctx.signal)]);
      label = safe`run #${run.runNumber} (${runId}, ${run.status}) of suite ${suite.name} (${evalId})`;
    }
    if (!(await confirmOrKeep(ctx, `Delete ${label} with its results? This cannot be undone.`, `nothing deleted: ${label} was kept`))) return;
  }
  const api = await ctx.api();
  const res = await deleteRun(api, agentId, evalId, runId);
  const g = ctx.globals;
  if (g.json || g.output || g.query || g.quiet) {
    await ctx.out.item(
      { id: runId, deleted: res?.deleted ?? true },
      {
        fields: [
          { header: 'id', value: (r) => r.id },
          { header: 'deleted', value: (r) => r.deleted },
        ],
      },
    );
  }
  await ctx.success(`Deleted run ${runId} of suite ${evalId}`);
}
