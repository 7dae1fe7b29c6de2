import { Command } from 'commander';
import { listWebhookEndpoints } from '../../api/webhooks.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import { wideOption } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { ENDPOINT_COLUMNS } from './shared.js';

export function listCommand(makeContext: ContextFactory): Command {
  return new Command('list')
    .alias('ls')
    .description('List webhook endpoints: URL, subscribed events, enabled, consecutive failures, last success')
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
Examples:
  $ vap webhooks list
  $ vap webhooks list --json --query "[?!isEnabled].id"`,
    )
    .action(action(makeContext, (_args, _opts, ctx) => run(ctx)));
}

export async function run(ctx: Context): Promise<void> {
  const api = await ctx.api();
  const endpoints = await listWebhookEndpoints(api, ctx.signal);
  await ctx.out.list(endpoints, {
    columns: ENDPOINT_COLUMNS,
    empty: 'No webhook endpoints yet. Create one with `vap webhooks create --name n --url https://… --events call.ended`.',
  });
}
