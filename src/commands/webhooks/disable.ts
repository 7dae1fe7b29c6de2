import { Command } from 'commander';
import { updateWebhookEndpoint } from '../../api/webhooks.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { ENDPOINT_FIELDS } from './shared.js';

export function disableCommand(makeContext: ContextFactory): Command {
  return new Command('disable')
    .description('Switch an endpoint off: nothing is delivered to it until `vap webhooks enable`')
    .argument('<endpointId>', 'the endpoint id')
    .addHelpText(
      'after',
      `
Examples:
  $ vap webhooks disable we_123`,
    )
    .action(action(makeContext, (args, _opts, ctx) => run(args[0]!, ctx)));
}

export async function run(id: string, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const res = await updateWebhookEndpoint(api, id, { isEnabled: false });
  await ctx.out.item(res, { fields: ENDPOINT_FIELDS });
  await ctx.success(`Disabled webhook endpoint ${id}; queued deliveries wait and new events are not delivered to it until \`vap webhooks enable ${id}\``);
}
