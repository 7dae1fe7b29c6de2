import { Command } from 'commander';
import { createSuite } from '../../api/evals.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import { collect } from '../collect.js';
import type { ContextFactory } from '../types.js';
import { SUITE_FIELDS } from './suite-fields.js';
import { MAX_ITERATIONS, parseCriteria, parseIterations, parseName, parseNoise } from './suite-input.js';
import { agentOption, resolveAgent } from './options.js';
import { NOISE_LEVELS, NOISE_TYPES } from '../../spec/evals.js';

interface CreateOptions {
  agent?: string;
  name: string;
  iterations?: string;
  criterion?: string[];
  noise?: string;
}

export function createCommand(makeContext: ContextFactory): Command {
  return new Command('create')
    .description('Create an eval suite for an agent (it starts as a draft, with no scenarios)')
    .addOption(agentOption())
    .requiredOption('--name <name>', 'the suite name')
    .option('--iterations <k>', `calls placed per scenario in each run, 1..${MAX_ITERATIONS} (default 1)`)
    .option('--criterion <key=weight[:name]>', 'a scoring criterion (repeatable; replaces the default four)', collect)
    .option('--noise <type:level>', `background sound under the tester's line: type ${NOISE_TYPES.join('|')}, level ${NOISE_LEVELS.join('|')}`)
    .addHelpText(
      'after',
      `
Without --criterion the suite scores goal_completion (0.4), instruction_adherence (0.3),
tone (0.2) and efficiency (0.1). Weights are normalised to sum 1.

Examples:
  $ vap evals create --agent ag_456 --name "Booking flows" --iterations 3
  $ vap evals create --agent ag_456 --name Billing --criterion resolution=3:"Issue resolved" --criterion tone=1
  $ VAP_AGENT=ag_456 vap evals create --name Noisy --noise cafe:medium -q`,
    )
    .action(action<CreateOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: CreateOptions, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const name = parseName(opts.name);
  const iterationsPerScenario = opts.iterations === undefined ? 1 : parseIterations(opts.iterations);
  const scoringCriteria = opts.criterion ? parseCriteria(opts.criterion) : undefined;
  const noise = opts.noise === undefined ? undefined : parseNoise(opts.noise);
  const api = await ctx.api();
  const created = await createSuite(api, agentId, {
    name,
    iterationsPerScenario,
    ...(scoringCriteria ? { scoringCriteria } : {}),
    ...(noise ? { noise } : {}),
  });
  await ctx.out.item(created, { fields: SUITE_FIELDS });
  await ctx.success(
    `Created suite ${created.name} (${created.id}), ${created.status}; add scenarios with \`vap evals scenarios add ${created.id} --agent ${agentId}\``,
  );
}
