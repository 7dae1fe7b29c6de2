import { Command } from 'commander';
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import { action } from '../action.js';
import { safeText } from '../../ui/safe-text.js';
import type { ContextFactory } from '../types.js';
import { CONFIG_KEYS, parseConfigKey } from './keys.js';
import { settings } from './settings.js';

export function getCommand(makeContext: ContextFactory): Command {
  return new Command('get')
    .description('Print one setting of the active profile')
    .argument('<key>', `one of: ${Object.keys(CONFIG_KEYS).join(', ')}`)
    .addHelpText(
      'after',
      `
Examples:
  $ vap config get base_url
  $ vap config get base_url --profile staging`,
    )
    .action(action(makeContext, (args, _opts, ctx) => run(args[0]!, ctx)));
}

export async function run(rawKey: string, ctx: Context): Promise<void> {
  const key = parseConfigKey(rawKey);
  const found = (await settings(ctx)).find((s) => s.key === key);
  if (!found || found.value === '') throw new CliError(`${key} is not set`);
  if (ctx.globals.json || ctx.globals.output === 'json') await ctx.out.data({ key, value: found.value, source: found.source });
  else ctx.io.stdout.write(`${safeText(found.value)}\n`);
}
