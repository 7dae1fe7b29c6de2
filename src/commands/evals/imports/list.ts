import { Command } from 'commander';
import { listImports, type CallImport } from '../../../api/eval-imports.js';
import type { Context } from '../../../context.js';
import { withPolicy } from '../../../ui/columns.js';
import type { Column } from '../../../ui/format.js';
import { action } from '../../action.js';
import { wideOption } from '../../listing.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent, resolveEvalId } from '../options.js';
import { ratio, time } from '../../../ui/values.js';

export const IMPORT_COLUMNS: Column<CallImport>[] = withPolicy<CallImport>(
  [
    { header: 'id', value: (i) => i.id },
    { header: 'label', value: (i) => i.label },
    { header: 'status', value: (i) => i.status },
    { header: 'triaged', value: (i) => ratio(i.triagedCalls, i.totalCalls) },
    { header: 'source', value: (i) => i.source },
    { header: 'created', value: (i) => time(i.createdAt) },
  ],
  { keep: ['id', 'label', 'status'] },
);

interface Options {
  agent?: string;
  eval?: string;
}

export function listCommand(makeContext: ContextFactory): Command {
  return new Command('list')
    .alias('ls')
    .description("List a suite's imports, newest first: status (pending, triaging, triaged) and how many calls are triaged")
    .argument('[evalId]', 'the eval suite (or pass --eval)')
    .addOption(agentOption())
    .addOption(evalOption())
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
Examples:
  $ vap evals imports list ev_123 --agent ag_456
  $ vap evals imports list ev_123 --agent ag_456 --json --query "[?status!='triaged'].id"`,
    )
    .action(action<Options>(makeContext, (args, opts, ctx) => run(args[0], opts, ctx)));
}

export async function run(arg: string | undefined, opts: Options, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const evalId = resolveEvalId(arg, opts);
  const api = await ctx.api();
  const imports = await listImports(api, agentId, evalId, ctx.signal);
  await ctx.out.list(imports, {
    columns: IMPORT_COLUMNS,
    empty: `Suite ${evalId} has no imports yet. Start one with \`vap evals imports create ${evalId} --agent ${agentId} --source <id> --calls <ids>\` or \`vap evals import\`.`,
  });
}
