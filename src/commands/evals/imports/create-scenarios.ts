import { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { createScenarios } from '../../../evals/imports/create-scenarios.js';
import { action } from '../../action.js';
import { wideOption } from '../../listing.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent } from '../options.js';
import { parseCallIds, resolveImportIds } from './common.js';

interface Options {
  agent?: string;
  eval?: string;
  calls?: string[];
  all?: boolean;
}

export function createScenariosCommand(makeContext: ContextFactory): Command {
  return new Command('create-scenarios')
    .description('Turn triaged calls of an import into scenarios of the suite (calls already turned into scenarios are skipped)')
    .argument('<evalIdOrImportId>', '`<evalId> <importId>`, or `<importId> --eval <evalId>`')
    .argument('[importId]')
    .addOption(agentOption())
    .addOption(evalOption())
    .option('--calls <ids>', 'triaged call ids, separated by commas (repeatable)', parseCallIds)
    .option('--all', 'every triaged call of the import')
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
Each scenario takes the suggested name, persona and goal, and the triage's category;
it is enabled and marked auto-generated. Stdout gets the new scenario ids (one a line,
or --json for { created, skipped, scenarioIds }); stderr says how many were created
and how many skipped.

Examples:
  $ vap evals imports create-scenarios ev_123 imp_789 --agent ag_456 --all
  $ vap evals imports create-scenarios imp_789 --eval ev_123 --agent ag_456 --calls 0b6e...,9f12...`,
    )
    .action(action<Options>(makeContext, (args, opts, ctx) => run(args, opts, ctx)));
}

export async function run(args: (string | undefined)[], opts: Options, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const { evalId, importId } = resolveImportIds(args, opts);
  if (opts.all && opts.calls) throw new UsageError('--calls and --all both given', 'pass one of them');
  if (!opts.all && !opts.calls)
    throw new UsageError(
      'missing --calls <id,...> or --all',
      `see the triaged calls with \`vap evals imports calls ${importId} --eval ${evalId} --agent ${agentId}\``,
    );
  const api = await ctx.api();
  const res = await createScenarios(api, { agentId, evalId, importId, callIds: opts.all ? 'all' : opts.calls!, signal: ctx.signal });
  if (ctx.out.format === 'json' || ctx.out.format === 'ndjson' || ctx.globals.query) {
    await ctx.out.item(res, { fields: [] });
  } else {
    await ctx.out.list(
      res.scenarioIds.map((id) => ({ id })),
      { columns: [{ header: 'scenario', value: (r) => r.id }], empty: 'No new scenario.' },
    );
  }
  const skipped = res.skipped > 0 ? `, skipped ${res.skipped} already turned into scenarios` : '';
  await ctx.success(
    `Created ${res.created} scenario${res.created === 1 ? '' : 's'}${skipped}; see them with \`vap evals scenarios list ${evalId} --agent ${agentId}\``,
  );
}
