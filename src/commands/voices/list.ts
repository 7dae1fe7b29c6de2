import { Command } from 'commander';
import { listVoices } from '../../api/voices.js';
import type { Context } from '../../context.js';
import { withPolicy } from '../../ui/columns.js';
import type { Column } from '../../ui/format.js';
import { action } from '../action.js';
import { wideOption } from '../listing.js';
import type { ContextFactory } from '../types.js';
import type { Voice } from '../../spec/agents.js';

interface ListOptions {
  language?: string;
}

export const VOICE_COLUMNS: Column<Voice>[] = withPolicy<Voice>(
  [
    { header: 'id', value: (v) => v.id },
    { header: 'name', value: (v) => v.name },
    { header: 'language', value: (v) => v.language },
    { header: 'description', value: (v) => v.description },
  ],
  { keep: ['id', 'name', 'language'] },
);

export function listCommand(makeContext: ContextFactory): Command {
  return new Command('list')
    .alias('ls')
    .description('List the voices agents can speak with')
    .option('--language <code>', 'a BCP 47 tag (es-MX) or a bare language code (es: every Spanish voice)')
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
Examples:
  $ vap voices list
  $ vap voices list --language es
  $ vap voices list --language en-GB -q`,
    )
    .action(action<ListOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: ListOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const voices = await listVoices(api, { language: opts.language?.trim() || undefined }, ctx.signal);
  await ctx.out.list(voices, { columns: VOICE_COLUMNS, empty: opts.language ? `No voices speak "${opts.language}".` : 'No voices.' });
}
