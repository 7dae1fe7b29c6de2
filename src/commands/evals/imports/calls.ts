import { Command, Option } from 'commander';
import { listTriagedCalls, type TriagedCall } from '../../../api/eval-imports.js';
import type { Context } from '../../../context.js';
import { withPolicy } from '../../../ui/columns.js';
import type { Column } from '../../../ui/format.js';
import { completes } from '../../../completion/takes.js';
import { action } from '../../action.js';
import { wideOption } from '../../listing.js';
import { safeText } from '../../../ui/safe-text.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent } from '../options.js';
import { resolveImportIds } from './common.js';
import { duration } from '../../../ui/values.js';
import { SCENARIO_CATEGORIES } from '../../../spec/evals.js';

export const CALL_COLUMNS: Column<TriagedCall>[] = withPolicy<TriagedCall>(
  [
    { header: 'id', value: (c) => c.id },
    { header: 'triage', value: (c) => c.triageStatus },
    { header: 'category', value: (c) => c.triage?.category ?? '' },
    { header: 'suggested scenario', value: (c) => c.triage?.suggestedScenario?.name ?? '' },
    { header: 'scenario', value: (c) => c.scenarioId ?? '' },
    { header: 'duration', value: (c) => duration(typeof c.durationSeconds === 'number' ? c.durationSeconds : null) },
    { header: 'summary', value: (c) => c.triage?.summary ?? '' },
  ],
  { keep: ['id', 'triage'] },
);

const WIDE_COLUMNS: Column<TriagedCall>[] = [
  ...CALL_COLUMNS,
  { header: 'persona', value: (c) => c.triage?.suggestedScenario?.persona ?? '' },
  { header: 'goal', value: (c) => c.triage?.suggestedScenario?.goal ?? '' },
];

interface Options {
  agent?: string;
  eval?: string;
  category?: string;
  triaged?: boolean;
  wide?: boolean;
}

export function callsCommand(makeContext: ContextFactory): Command {
  return new Command('calls')
    .description("List an import's calls (import order): triage status, category, summary, suggested scenario and the scenario made from it")
    .argument('<evalIdOrImportId>', '`<evalId> <importId>`, or `<importId> --eval <evalId>`')
    .argument('[importId]')
    .addOption(agentOption())
    .addOption(evalOption())
    .addOption(completes(new Option('--category <category>', 'only calls triaged into this category'), SCENARIO_CATEGORIES))
    .option('--triaged', 'only triaged calls')
    .addOption(wideOption("whole ids on a terminal, and the suggested scenario's persona and goal"))
    .addHelpText(
      'after',
      `
Examples:
  $ vap evals imports calls ev_123 imp_789 --agent ag_456
  $ vap evals imports calls imp_789 --eval ev_123 --agent ag_456 --category escalation --wide
  $ vap evals imports calls imp_789 --eval ev_123 --agent ag_456 --json --query "[?scenarioId==null].id"`,
    )
    .action(action<Options>(makeContext, (args, opts, ctx) => run(args, opts, ctx)));
}

export async function run(args: (string | undefined)[], opts: Options, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const { evalId, importId } = resolveImportIds(args, opts);
  const api = await ctx.api();
  const calls = await listTriagedCalls(api, agentId, evalId, importId, ctx.signal);
  const shown = calls.filter((c) => (!opts.triaged || c.triageStatus === 'triaged') && (opts.category === undefined || c.triage?.category === opts.category));
  const untriaged = calls.filter((c) => c.triageStatus !== 'triaged').length;
  await ctx.out.list(shown, {
    columns: opts.wide ? WIDE_COLUMNS : CALL_COLUMNS,
    empty: calls.length === 0 ? `Import ${importId} has no calls.` : 'No calls match.',
  });
  if (ctx.out.human && untriaged > 0) {
    ctx.io.stderr.write(
      `${safeText(`${untriaged} call${untriaged === 1 ? ' is' : 's are'} not triaged yet: vap evals imports triage ${importId} --eval ${evalId} --agent ${agentId}`)}\n`,
    );
  }
}
