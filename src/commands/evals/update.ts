import { Command, Option } from 'commander';
import { updateSuite, type SuiteChange } from '../../api/evals.js';
import { completes } from '../../completion/takes.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { action } from '../action.js';
import { collect } from '../collect.js';
import type { ContextFactory } from '../types.js';
import { MAX_ITERATIONS, parseCriteria, parseIterations, parseName, parseNoise } from './suite-input.js';
import { noiseText, SUITE_FIELDS } from './suite-fields.js';
import { agentOption, evalOption, resolveAgent, resolveEvalId } from './options.js';
import { NOISE_LEVELS, NOISE_TYPES } from '../../spec/evals.js';

interface UpdateOptions {
  agent?: string;
  eval?: string;
  status?: string;
  /** A string with --noise, false with --no-noise. */
  noise?: string | false;
  name?: string;
  iterations?: string;
  criterion?: string[];
  /** Set when both --noise and --no-noise were given (Commander keeps only the last). */
  noiseConflict?: boolean;
}

export function updateCommand(makeContext: ContextFactory): Command {
  // --noise and --no-noise share one value, so Commander would keep the last silently;
  // the option events tell that both were given.
  const given = new Set<string>();
  const cmd = new Command('update')
    .description('Change a suite: mark it ready, set or clear background noise, rename it, change iterations or criteria')
    .argument('[evalId]', 'the eval suite (or pass --eval)')
    .addOption(agentOption())
    .addOption(evalOption())
    .addOption(completes(new Option('--status <status>', 'ready (a draft suite becomes ready; it does not go back to draft)'), ['ready']))
    .option('--noise <type:level>', `background sound under the tester's line: type ${NOISE_TYPES.join('|')}, level ${NOISE_LEVELS.join('|')}`)
    .option('--no-noise', 'switch background noise off')
    .option('--name <name>', 'a new name')
    .option('--iterations <k>', `calls placed per scenario in each run, 1..${MAX_ITERATIONS}`)
    .option('--criterion <key=weight[:name]>', 'the scoring criteria, replacing the current ones (repeatable)', collect)
    .addHelpText(
      'after',
      `
Examples:
  $ vap evals update ev_123 --agent ag_456 --status ready
  $ vap evals update ev_123 --agent ag_456 --noise call_center:high
  $ vap evals update ev_123 --agent ag_456 --no-noise --iterations 5`,
    )
    .action(
      action<UpdateOptions>(makeContext, (args, opts, ctx) => {
        const both = given.has('noise') && given.has('no-noise');
        given.clear();
        return run(args[0], { ...opts, noiseConflict: both }, ctx);
      }),
    );
  cmd.on('option:noise', () => given.add('noise'));
  cmd.on('option:no-noise', () => given.add('no-noise'));
  return cmd;
}

export async function run(arg: string | undefined, opts: UpdateOptions, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const evalId = resolveEvalId(arg, opts);
  if (opts.noiseConflict)
    throw new UsageError('--noise and --no-noise contradict each other', 'pass --noise type:level to set the noise, or --no-noise to switch it off');
  const change: SuiteChange = {};
  if (opts.status !== undefined) {
    const status = opts.status.trim();
    if (status === 'draft') throw new UsageError('--status draft: a suite does not go back to draft', 'the only change of status is --status ready');
    if (status !== 'ready') throw new UsageError(`--status "${opts.status}" is not a status a suite can be set to`, 'use --status ready');
    change.status = 'ready';
  }
  if (opts.noise === false) change.noise = null;
  else if (opts.noise !== undefined) change.noise = parseNoise(opts.noise);
  if (opts.name !== undefined) change.name = parseName(opts.name);
  if (opts.iterations !== undefined) change.iterationsPerScenario = parseIterations(opts.iterations);
  if (opts.criterion) change.scoringCriteria = parseCriteria(opts.criterion);
  if (Object.keys(change).length === 0) {
    throw new UsageError('nothing to update', 'pass at least one of --status ready, --noise type:level, --no-noise, --name, --iterations, --criterion');
  }
  const api = await ctx.api();
  const res = await updateSuite(api, agentId, evalId, change);
  await ctx.out.item(res, { fields: SUITE_FIELDS });
  const said: string[] = [];
  if (change.status) said.push(`status ${res.status ?? change.status}`);
  if ('noise' in change) said.push(`noise ${noiseText(change.noise)}`);
  if (change.name) said.push(`name "${change.name}"`);
  if (change.iterationsPerScenario) said.push(`${change.iterationsPerScenario} iteration${change.iterationsPerScenario === 1 ? '' : 's'} per scenario`);
  if (change.scoringCriteria) said.push(`${change.scoringCriteria.length} criteria`);
  await ctx.success(`Updated suite ${res.id ?? evalId}: ${said.join(', ')}`);
}
