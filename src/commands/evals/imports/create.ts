import { Command, Option } from 'commander';
import { createImport, type CallImport, type SourceType } from '../../../api/eval-imports.js';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { completes } from '../../../completion/takes.js';
import { action } from '../../action.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent, resolveEvalId } from '../options.js';
import { parseCallIds, parseSourceType, resolveSourceType } from './common.js';
import { IMPORT_FIELDS } from './shared.js';

interface Options {
  agent?: string;
  eval?: string;
  sourceType?: SourceType;
  source?: string;
  calls?: string[];
}

export function createCommand(makeContext: ContextFactory): Command {
  return new Command('create')
    .description('Import past calls of one source into the suite (status pending; triage them next)')
    .argument('[evalId]', 'the eval suite (or pass --eval)')
    .addOption(agentOption())
    .addOption(evalOption())
    .option('--source <id>', 'the campaign or call center the calls come from')
    .addOption(
      completes(new Option('--source-type <type>', 'campaign or call_center (default: call_center for cc_… ids, else campaign)').argParser(parseSourceType), [
        'campaign',
        'call_center',
      ]),
    )
    .option('--calls <ids>', 'call ids, separated by commas (repeatable; up to 500)', parseCallIds)
    .addHelpText(
      'after',
      `
Every call must belong to the source and must not be imported into the suite yet;
otherwise nothing is imported and the error names the calls.

Examples:
  $ vap evals imports create ev_123 --agent ag_456 --source cc_7h2k... --calls 0b6e...,9f12...
  $ vap evals imports create ev_123 --agent ag_456 --source 3f1e... --source-type campaign \\
      --calls "$(vap evals imports candidates ev_123 --agent ag_456 --source 3f1e... --search refund -q | paste -sd, -)"
  $ vap evals imports create ev_123 --agent ag_456 --source cc_7h2k... --calls 0b6e... -q   # prints the import id`,
    )
    .action(action<Options>(makeContext, (args, opts, ctx) => run(args[0], opts, ctx)));
}

export async function run(arg: string | undefined, opts: Options, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const evalId = resolveEvalId(arg, opts);
  const { sourceType, sourceId } = resolveSourceType(opts);
  const callIds = opts.calls ?? [];
  if (callIds.length === 0)
    throw new UsageError('missing --calls <id,...>', `list them with \`vap evals imports candidates ${evalId} --agent ${agentId} --source ${sourceId}\``);
  if (callIds.length > 500) throw new UsageError(`${callIds.length} calls given; an import takes at most 500`, 'split them over several imports');
  const api = await ctx.api();
  const imp = (await createImport(api, agentId, evalId, { sourceType, sourceId, callIds })) as CallImport;
  await ctx.out.item(imp, { fields: IMPORT_FIELDS });
  await ctx.success(
    `Imported ${imp.totalCalls} call${imp.totalCalls === 1 ? '' : 's'} as ${imp.id}; triage them with \`vap evals imports triage ${imp.id} --eval ${evalId} --agent ${agentId}\``,
  );
}
