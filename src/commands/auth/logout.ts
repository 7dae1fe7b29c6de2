import { Command } from 'commander';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

export function logoutCommand(makeContext: ContextFactory): Command {
  return new Command('logout')
    .description('Remove the stored API key from the active profile')
    .addHelpText(
      'after',
      `
Examples:
  $ vap auth logout
  $ vap auth logout --profile staging`,
    )
    .action(action(makeContext, (_args, _opts, ctx) => run(ctx)));
}

export async function run(ctx: Context): Promise<void> {
  const creds = await ctx.credentials();
  const store = await ctx.config();
  store.assertWritable();
  const removed = store.removeProfileKey(creds.profile, 'apiKey');
  if (removed) await ctx.success(`Logged out of profile "${creds.profile}"; the stored key was removed`);
  else ctx.info(`Profile "${creds.profile}" has no stored key; nothing to do`);
  if (ctx.env.VAP_API_KEY) await ctx.warn('VAP_API_KEY is still set in this environment; unset it to stop using that key');
}
