import { Command, Option } from 'commander';
import { createAgent, setAgentTools, setAgentVoice } from '../../api/agents.js';
import type { Context } from '../../context.js';
import { listOf } from '../../ui/format.js';
import { CliError, UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { action } from '../action.js';
import { collect } from '../collect.js';
import type { ContextFactory } from '../types.js';
import { collectVariable, nonBlank, readInstructions, type InstructionsOptions } from './input.js';
import { resolveTools, resolveVoice, TOOL_LOOKUP, VOICE_LOOKUP } from './names.js';
import { ENGINES, type Engine, type Tool, type Variable, type Voice } from '../../spec/agents.js';

export interface CreateOptions extends InstructionsOptions {
  name: string;
  engine: Engine;
  variable?: Variable[];
  description?: string;
  tag?: string[];
  voice?: string;
  language?: string;
  tool?: string[];
}

export function createCommand(makeContext: ContextFactory): Command {
  return new Command('create')
    .description('Create an agent from plain-language instructions, with a voice and tools if given')
    .requiredOption('--name <name>', 'the agent name')
    .option('--instructions <text>', 'what the agent does, in plain language')
    .option('--instructions-file <file>', 'read the instructions from a file (- reads stdin)')
    .addOption(new Option('--engine <engine>', 'the product tier that runs the agent').choices(ENGINES).makeOptionMandatory())
    .option('--variable <name=description>', 'a variable the instructions use (repeatable)', collectVariable)
    .option('--description <text>', 'a description (matched by `agents list --search`)')
    .option('--tag <tag>', 'a tag (repeatable; matched by `agents list --search`)', collect)
    .option('--voice <voice>', "its voice, by id or by name (not for speech-to-speech; default: the service's)")
    .option('--language <bcp47>', 'the language the voice speaks (with --voice; picks among voices of the same name)')
    .option('--tool <tool>', 'a tool, by id or by name (repeatable)', collect)
    .addHelpText(
      'after',
      `
The voice and the tools are set right after the agent is made (the API sets them with
their own requests, each a new version: an agent made with both is at version 3).
Names are looked up before anything is made: an unknown voice or tool name sends nothing.

${VOICE_LOOKUP}

${TOOL_LOOKUP}

Examples:
  $ vap agents create --name Reception --engine realtime --instructions "Greet callers and book appointments"
  $ vap agents create --name Recepción --engine realtime --instructions-file recepcion.md \\
      --voice Lucía --tool "Calendar booking" --tool "Transfer to human"
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
  const voiceRef = nonBlank('--voice', opts.voice);
  const language = nonBlank('--language', opts.language);
  const toolRefs = opts.tool?.map((t) => nonBlank('--tool', t)!);
  if (language !== undefined && voiceRef === undefined) throw new UsageError('--language only goes with --voice', 'pass --voice <voice> --language <bcp47>');
  if (voiceRef !== undefined && opts.engine === 'speech-to-speech') {
    throw new UsageError(
      '--voice does not go with --engine speech-to-speech',
      "a speech-to-speech agent speaks with its model's own voice; leave --voice out, or choose --engine realtime or pipeline",
    );
  }
  const instructions = (await readInstructions(opts, ctx, true))!;
  const api = await ctx.api();
  // Names first: an unknown one is refused before the agent is made.
  const [voice, tools] = await Promise.all([
    voiceRef === undefined ? undefined : resolveVoice(api, voiceRef, language, '--voice', ctx.signal),
    toolRefs === undefined ? undefined : resolveTools(api, toolRefs, { flag: '--tool', signal: ctx.signal }),
  ]);
  const created = await createAgent(api, {
    name,
    instructions,
    engine: opts.engine,
    variables: opts.variable ?? [],
    ...(description !== undefined ? { description } : {}),
    ...(tags ? { tags } : {}),
  });
  let version = created.currentVersion;
  let setVoice: { name: string; language: string } | undefined;
  let setTools: Tool[] | undefined;
  // Each step after the first names the agent made and the command that finishes the job.
  const unfinished = (what: string, err: unknown, fix: string) =>
    new CliError(
      `created agent ${created.name} (${created.id}) at version ${version}, but ${what} failed: ${(err as Error).message}`,
      ExitCode.FAILURE,
      `finish with \`${fix}\``,
    );
  if (voice) {
    try {
      setVoice = await setAgentVoice(api, created.id, { voiceId: voice.id, ...(language ? { language } : {}) });
      version++;
    } catch (err) {
      throw unfinished('setting its voice', err, `vap agents voice ${created.id} --set ${voice.id}${language ? ` --language ${language}` : ''}`);
    }
  }
  if (tools && tools.ids.length > 0) {
    try {
      setTools = await setAgentTools(api, created.id, tools.ids);
      version++;
    } catch (err) {
      throw unfinished('setting its tools', err, `vap agents tools ${created.id} --set ${tools.ids.join(',')}`);
    }
  }
  const result = {
    ...created,
    currentVersion: version,
    ...(setVoice ? { voice: { name: setVoice.name, language: setVoice.language } } : {}),
    ...(setTools ? { tools: setTools } : {}),
  };
  await ctx.out.item(result, {
    fields: [
      { header: 'id', value: (a) => a.id },
      { header: 'name', value: (a) => a.name },
      { header: 'engine', value: (a) => a.engine },
      { header: 'version', value: (a) => a.currentVersion },
      ...(setVoice ? [{ header: 'voice', value: () => voiceText(setVoice!) }] : []),
      ...(setTools ? [{ header: 'tools', value: () => listOf(setTools!.map((t) => t.name)) }] : []),
    ],
  });
  const extras = [setVoice ? `voice ${voiceText(setVoice)}` : '', setTools ? `${setTools.length} tool${setTools.length === 1 ? '' : 's'}` : ''].filter(Boolean);
  await ctx.success(`Created agent ${created.name} (${created.id}) at version ${version}${extras.length ? `, with ${extras.join(' and ')}` : ''}`);
}

function voiceText(v: Pick<Voice, 'name' | 'language'>): string {
  return `${v.name} (${v.language})`;
}
