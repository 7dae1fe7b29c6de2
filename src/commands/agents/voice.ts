import { Command } from 'commander';
import { getAgentVoice, setAgentVoice, type AgentVoice } from '../../api/agents.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Column } from '../../ui/format.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { nonBlank } from './input.js';
import { resolveVoice, VOICE_LOOKUP } from './names.js';

export interface VoiceOptions {
  set?: string;
  language?: string;
}

const VOICE_FIELDS: Column<AgentVoice>[] = [
  { header: 'voiceId', value: (v) => v.voiceId },
  { header: 'name', value: (v) => v.name },
  { header: 'language', value: (v) => v.language },
];

export function voiceCommand(makeContext: ContextFactory): Command {
  return new Command('voice')
    .description("Show an agent's voice, or change it with --set (not for speech-to-speech agents, which use their model's voice)")
    .argument('<agentId>', 'the agent id')
    .option('--set <voice>', 'a voice of `vap voices list`, by id or by name')
    .option('--language <bcp47>', "the language to speak, for example es-ES (default: the voice's own); picks among voices of the same name")
    .addHelpText(
      'after',
      `
${VOICE_LOOKUP}

Examples:
  $ vap agents voice ag_3k9x0c1m2p8q7r4t
  $ vap voices list --language es
  $ vap agents voice ag_3k9x0c1m2p8q7r4t --set Lucía
  $ vap agents voice ag_3k9x0c1m2p8q7r4t --set lucia --language es-ES
  $ vap agents voice ag_3k9x0c1m2p8q7r4t --set voice_znruc1uit24f`,
    )
    .action(action<VoiceOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(agentId: string, opts: VoiceOptions, ctx: Context): Promise<void> {
  if (opts.language !== undefined && opts.set === undefined) {
    throw new UsageError('--language only goes with --set', 'pass --set <voice> --language <bcp47>');
  }
  const ref = nonBlank('--set', opts.set);
  const language = nonBlank('--language', opts.language);
  const api = await ctx.api();
  let voice: AgentVoice;
  if (ref === undefined) voice = await getAgentVoice(api, agentId, ctx.signal);
  else {
    // By id or by name (the voice listing is read first; nothing is changed until it is found).
    const chosen = await resolveVoice(api, ref, language, '--set', ctx.signal);
    voice = await setAgentVoice(api, agentId, { voiceId: chosen.id, ...(language ? { language } : {}) });
  }
  await ctx.out.item(voice, { id: (v) => v.voiceId, fields: VOICE_FIELDS });
  if (ref !== undefined) await ctx.success(`Agent ${agentId} now speaks with ${voice.name} (${voice.language})`);
}
