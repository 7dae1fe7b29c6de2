import { Command } from 'commander';
import { listImportSources } from '../../../api/eval-imports.js';
import type { Context } from '../../../context.js';
import { withPolicy } from '../../../ui/columns.js';
import type { Column } from '../../../ui/format.js';
import { action } from '../../action.js';
import { wideOption } from '../../listing.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent, resolveEvalId } from '../options.js';
import { count } from '../../../ui/values.js';

interface SourceRow {
  type: string;
  sourceType: string;
  id: string;
  name: string;
  callCount: number;
}

const COLUMNS: Column<SourceRow>[] = withPolicy<SourceRow>(
  [
    { header: 'type', value: (s) => s.type },
    { header: 'id', value: (s) => s.id },
    { header: 'name', value: (s) => s.name },
    { header: 'calls', value: (s) => count(s.callCount) },
  ],
  { keep: ['type', 'id', 'name'] },
);

interface Options {
  agent?: string;
  eval?: string;
}

export function sourcesCommand(makeContext: ContextFactory): Command {
  return new Command('sources')
    .description('List where real calls can be imported from: outbound and inbound campaigns, call centers')
    .argument('[evalId]', 'the eval suite (or pass --eval)')
    .addOption(agentOption())
    .addOption(evalOption())
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
One row per source: its type (outbound campaign, inbound campaign, call center), id,
name and number of past calls. Pass the id to \`candidates --source\`.

Examples:
  $ vap evals imports sources ev_123 --agent ag_456
  $ vap evals imports sources --eval ev_123 --json`,
    )
    .action(action<Options>(makeContext, (args, opts, ctx) => run(args[0], opts, ctx)));
}

export async function run(arg: string | undefined, opts: Options, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const evalId = resolveEvalId(arg, opts);
  const api = await ctx.api();
  const s = await listImportSources(api, agentId, evalId, ctx.signal);
  if (ctx.out.format === 'json' || ctx.globals.query) {
    // The API's grouping as is.
    await ctx.out.item(s, { fields: [] });
    return;
  }
  const rows: SourceRow[] = [
    ...s.outboundCampaigns.map((x) => ({ type: 'outbound campaign', sourceType: 'campaign', ...x })),
    ...s.inboundCampaigns.map((x) => ({ type: 'inbound campaign', sourceType: 'campaign', ...x })),
    ...s.callCenters.map((x) => ({ type: 'call center', sourceType: 'call_center', ...x })),
  ];
  await ctx.out.list(rows, { columns: COLUMNS, empty: 'No import sources: no campaign or call center has past calls.' });
}
