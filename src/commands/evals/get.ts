import { Command } from 'commander';
import { getSuite } from '../../api/evals.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { agentOption, evalOption, resolveAgent, resolveEvalId } from './options.js';
import { SUITE_FIELDS } from './suite-fields.js';

interface GetOptions {
  agent?: string;
  eval?: string;
}

export function getCommand(makeContext: ContextFactory): Command {
  return new Command('get')
    .description('Show a suite: status, noise, scoring criteria with their weights, run count and latest score')
    .argument('[evalId]', 'the eval suite (or pass --eval)')
    .addOption(agentOption())
    .addOption(evalOption())
    .addHelpText(
      'after',
      `
Examples:
  $ vap evals get ev_123 --agent ag_456
  $ vap evals get ev_123 --agent ag_456 --json --query scoringCriteria`,
    )
    .action(action<GetOptions>(makeContext, (args, opts, ctx) => run(args[0], opts, ctx)));
}

export async function run(arg: string | undefined, opts: GetOptions, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const evalId = resolveEvalId(arg, opts);
  const api = await ctx.api();
  const suite = await getSuite(api, agentId, evalId, ctx.signal);
  await ctx.out.item(suite, { fields: SUITE_FIELDS });
}
