import { Command } from 'commander';
import { getWebhookEndpoint } from '../../api/webhooks.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { ENDPOINT_FIELDS } from './shared.js';

export function getCommand(makeContext: ContextFactory): Command {
  return new Command('get')
    .description('Show a webhook endpoint (the secret is never shown again after create and rotate-secret; its prefix is)')
    .argument('<endpointId>', 'the endpoint id')
    .addHelpText(
      'after',
      `
Examples:
  $ vap webhooks get we_123
  $ vap webhooks get we_123 --json --query consecutiveFailures`,
    )
    .action(action(makeContext, (args, _opts, ctx) => run(args[0]!, ctx)));
}

export async function run(id: string, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const endpoint = await getWebhookEndpoint(api, id, ctx.signal);
  await ctx.out.item(endpoint, { fields: ENDPOINT_FIELDS });
}
