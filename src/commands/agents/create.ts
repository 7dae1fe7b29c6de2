import { Command, Option } from 'commander';
import { createAgent, ENGINES, type Engine, type Variable } from '../../api/agents.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { collect, collectVariable, nonBlank, readInstructions, type InstructionsOptions } from './input.js';

export interface CreateOptions extends InstructionsOptions {
  name: string;
  engine: Engine;
  variable?: Variable[];
  description?: string;
  tag?: string[];
}

export function createCommand(makeContext: ContextFactory): Command {
  return new Command('create')
    .description('Create an agent from plain-language instructions (it starts at version 1)')
    .requiredOption('--name <name>', 'the agent name')
    .option('--instructions <text>', 'what the agent does, in plain language')
    .option('--instructions-file <file>', 'read the instructions from a file (- reads stdin)')
    .addOption(new Option('--engine <engine>', 'the product tier that runs the agent').choices(ENGINES).makeOptionMandatory())
    .option('--variable <name=description>', 'a variable the instructions use (repeatable)', collectVariable)
    .option('--description <text>', 'a description (matched by `agents list --search`)')
    .option('--tag <tag>', 'a tag (repeatable; matched by `agents list --search`)', collect)
    .addHelpText(
      'after',
      `
Examples:
  $ vap agents create --name Reception --engine realtime --instructions "Greet callers and book appointments"
  $ vap agents create --name Support --engine pipeline --instructions-file support.md \\
      --variable customer_name="the caller's first name" --variable plan="their subscription plan"
  $ cat prompt.txt | vap agents create --name Intake --engine speech-to-speech --instructions-file -
  $ id=$(vap agents create -q --name Reception --engine realtime --instructions "Greet callers")`,
    )
    .action(action<CreateOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: CreateOptions, ctx: Context): Promise<void> {
  const name = nonBlank('--name', opts.name)!;
  const description = opts.description;
  const tags = opts.tag?.map((t) => nonBlank('--tag', t)!);
  const instructions = (await readInstructions(opts, ctx, true))!;
  const api = await ctx.api();
  const created = await createAgent(api, {
    name,
    instructions,
    engine: opts.engine,
    variables: opts.variable ?? [],
    ...(description !== undefined ? { description } : {}),
    ...(tags ? { tags } : {}),
  });
  await ctx.out.item(created, {
    fields: [
      { header: 'id', value: (a) => a.id },
      { header: 'name', value: (a) => a.name },
      { header: 'engine', value: (a) => a.engine },
      { header: 'version', value: (a) => a.currentVersion },
    ],
  });
  await ctx.success(`Created agent ${created.name} (${created.id}) at version ${created.currentVersion}`);
}
