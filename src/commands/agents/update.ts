import { Command, Option } from 'commander';
import { updateAgent, type AgentChange } from '../../api/agents.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { action } from '../action.js';
import { collect } from '../collect.js';
import type { ContextFactory } from '../types.js';
import { collectVariable, nonBlank, readInstructions, type InstructionsOptions } from './input.js';
import { ENGINES, type Engine, type Variable } from '../../spec/agents.js';

export interface UpdateOptions extends InstructionsOptions {
  name?: string;
  engine?: Engine;
  variable?: Variable[];
  clearVariables?: boolean;
  description?: string;
  tag?: string[];
  clearTags?: boolean;
}

export function updateCommand(makeContext: ContextFactory): Command {
  return new Command('update')
    .description('Change an agent; a change of instructions regenerates the prompt as a new version')
    .argument('<agentId>', 'the agent id')
    .option('--name <name>', 'a new name')
    .option('--instructions <text>', 'new instructions')
    .option('--instructions-file <file>', 'read new instructions from a file (- reads stdin)')
    .option('--variable <name=description>', 'the variables, replacing the current ones (repeatable)', collectVariable)
    .option('--clear-variables', 'remove every variable')
    .option('--description <text>', 'a new description')
    .option('--tag <tag>', 'the tags, replacing the current ones (repeatable)', collect)
    .option('--clear-tags', 'remove every tag')
    .addOption(new Option('--engine <engine>', 'move the agent to another engine').choices(ENGINES))
    .addHelpText(
      'after',
      `
Examples:
  $ vap agents update ag_3k9x0c1m2p8q7r4t --instructions "Greet callers in Spanish first"
  $ vap agents update ag_3k9x0c1m2p8q7r4t --instructions-file prompt.md
  $ vap agents update ag_3k9x0c1m2p8q7r4t --name "Front desk" --tag reception --tag spanish
  $ vap agents update ag_3k9x0c1m2p8q7r4t --variable customer_name="the caller's first name"`,
    )
    .action(action<UpdateOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(agentId: string, opts: UpdateOptions, ctx: Context): Promise<void> {
  if (opts.variable && opts.clearVariables) throw new UsageError('--variable and --clear-variables cannot be used together');
  if (opts.tag && opts.clearTags) throw new UsageError('--tag and --clear-tags cannot be used together');
  const change: AgentChange = {};
  const name = nonBlank('--name', opts.name);
  if (name !== undefined) change.name = name;
  const instructions = await readInstructions(opts, ctx, false);
  if (instructions !== undefined) change.instructions = instructions;
  if (opts.engine) change.engine = opts.engine;
  if (opts.variable || opts.clearVariables) change.variables = opts.variable ?? [];
  if (opts.description !== undefined) change.description = opts.description;
  if (opts.tag || opts.clearTags) change.tags = (opts.tag ?? []).map((t) => nonBlank('--tag', t)!);
  if (Object.keys(change).length === 0) {
    throw new UsageError(
      'nothing to update',
      'pass at least one of --name, --instructions, --instructions-file, --variable, --clear-variables, --description, --tag, --clear-tags, --engine',
    );
  }
  const api = await ctx.api();
  const res = await updateAgent(api, agentId, change);
  await ctx.out.item(res, {
    fields: [
      { header: 'id', value: (r) => r.id },
      { header: 'version', value: (r) => r.currentVersion },
    ],
  });
  await ctx.success(`Updated agent ${res.id}; its current version is ${res.currentVersion}`);
}
