import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withPolicy } from '../../ui/columns.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { settings, type Setting } from './settings.js';

export function listCommand(makeContext: ContextFactory): Command {
  return new Command('list')
    .alias('ls')
    .description('Show the settings in effect, and where each comes from')
    .addHelpText(
      'after',
      `
Examples:
  $ vap config list
  $ vap config list --profile staging --json`,
    )
    .action(action(makeContext, (_args, _opts, ctx) => run(ctx)));
}

export async function run(ctx: Context): Promise<void> {
  await ctx.out.list(await settings(ctx), {
    columns: withPolicy<Setting>(
      [
        { header: 'key', value: (s) => s.key },
        { header: 'value', value: (s) => s.value },
        { header: 'source', value: (s) => s.source },
      ],
      { keep: ['key', 'value'] },
    ),
    id: (s) => s.key,
  });
}
