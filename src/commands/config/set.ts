import { Command } from 'commander';
import type { Context } from '../../context.js';
import { redactUrl } from '../../api/redact.js';
import { UsageError } from '../../errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { parseConfigKey, validateBaseUrl, validateProfileName } from './keys.js';

export function setCommand(makeContext: ContextFactory): Command {
  return new Command('set')
    .description('Change a setting of the active profile (or the default profile)')
    .argument('<key>', 'base_url or default_profile')
    .argument('<value>', 'the new value')
    .addHelpText(
      'after',
      `
Examples:
  $ vap config set base_url https://api.example.com
  $ vap config set base_url http://127.0.0.1:4010 --profile local
  $ vap config set default_profile local`,
    )
    .action(action(makeContext, (args, _opts, ctx) => run(args[0]!, args[1]!, ctx)));
}

export async function run(rawKey: string, value: string, ctx: Context): Promise<void> {
  const key = parseConfigKey(rawKey);
  if (key === 'api_key')
    throw new UsageError('the API key is not set with `vap config set`', 'run `vap auth login` (it checks the key and keeps it out of shell history)');
  if (key === 'profile')
    throw new UsageError(
      'the profile in effect is not a stored setting',
      'choose it with --profile or VAP_PROFILE, or store a default with `vap config set default_profile <name>`',
    );
  const creds = await ctx.credentials();
  const store = await ctx.config();
  store.assertWritable();
  if (key === 'base_url') {
    store.updateProfile(creds.profile, { baseUrl: validateBaseUrl(value) });
    await ctx.success(`base_url of profile "${creds.profile}" set to ${redactUrl(value)}`);
  } else {
    store.setDefaultProfile(validateProfileName(value));
    await ctx.success(`default profile set to "${value}"`);
  }
}
