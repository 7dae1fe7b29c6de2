import { Command } from 'commander';
import { getWebhookEndpoint, updateWebhookEndpoint } from '../../api/webhooks.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { ENDPOINT_FIELDS } from './shared.js';

export function enableCommand(makeContext: ContextFactory): Command {
  return new Command('enable')
    .description('Switch an endpoint back on; this clears its consecutive failure count and resumes its queued deliveries')
    .argument('<endpointId>', 'the endpoint id')
    .addHelpText(
      'after',
      `
An endpoint that fails continuously is switched off by the service. Enabling it
clears the failure count; deliveries that were waiting are attempted again. Events
that happened while it was off were not queued for it.

Examples:
  $ vap webhooks enable we_123`,
    )
    .action(action(makeContext, (args, _opts, ctx) => run(args[0]!, ctx)));
}

export async function run(id: string, ctx: Context): Promise<void> {
  const api = await ctx.api();
  // Read first, to say what the failure count was.
  const before = await getWebhookEndpoint(api, id, ctx.signal);
  const res = await updateWebhookEndpoint(api, id, { isEnabled: true });
  await ctx.out.item(res, { fields: ENDPOINT_FIELDS });
  const failures = before.consecutiveFailures ?? 0;
  if (before.isEnabled) {
    await ctx.success(`Webhook endpoint ${id} was already enabled${failures ? `; its failure count (${failures}) was cleared` : ''}`);
  } else {
    await ctx.success(`Enabled webhook endpoint ${id}; its failure count (${failures}) was cleared and its queued deliveries resume`);
  }
}
