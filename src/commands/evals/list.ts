import { Command } from 'commander';
import { listSuites, type Suite } from '../../api/evals.js';
import type { Context } from '../../context.js';
import { withPolicy } from '../../ui/columns.js';
import type { Column } from '../../ui/format.js';
import { action } from '../action.js';
import { wideOption } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { noiseText } from './suite-fields.js';
import { agentOption, resolveAgent } from './options.js';
import { count, score } from '../../ui/values.js';

export const SUITE_COLUMNS: Column<Suite>[] = withPolicy<Suite>(
  [
    { header: 'id', value: (s) => s.id },
    { header: 'name', value: (s) => s.name },
    { header: 'status', value: (s) => s.status },
    { header: 'iterations', value: (s) => s.iterationsPerScenario },
    { header: 'scenarios', value: (s) => s.scenarioCount },
    { header: 'runs', value: (s) => count(s.runCount) },
    { header: 'latest score', value: (s) => score(s.latestRunScore) },
    { header: 'noise', value: (s) => noiseText(s.noise) },
  ],
  { keep: ['id', 'name', 'status'] },
);

interface ListOptions {
  agent?: string;
}

export function listCommand(makeContext: ContextFactory): Command {
  return new Command('list')
    .alias('ls')
    .description("List an agent's eval suites (in creation order)")
    .addOption(agentOption())
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
Examples:
  $ vap evals list --agent ag_456
  $ VAP_AGENT=ag_456 vap evals list -q
  $ vap evals list --agent ag_456 --json --query "[?status=='ready'].id"`,
    )
    .action(action<ListOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: ListOptions, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const api = await ctx.api();
  const suites = await listSuites(api, agentId, ctx.signal);
  await ctx.out.list(suites, {
    columns: SUITE_COLUMNS,
    empty: `No eval suites for agent ${agentId} yet. Create one with \`vap evals create --agent ${agentId} --name <name>\`.`,
  });
}
