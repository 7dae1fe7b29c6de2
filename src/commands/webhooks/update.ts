import { Command, Option } from 'commander';
import { WEBHOOK_EVENT_TYPE_NAMES } from '../../spec/event-types.js';
import { completes } from '../../completion/takes.js';
import { updateWebhookEndpoint, type WebhookEndpointChange } from '../../api/webhooks.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { checkName, checkUrl, checkWebhookEventTypes, collectEvents, ENDPOINT_FIELDS, eventList } from './shared.js';

interface UpdateOptions {
  name?: string;
  url?: string;
  events?: string[];
}

export function updateCommand(makeContext: ContextFactory): Command {
  return new Command('update')
    .description('Change an endpoint: its URL, the event types it receives, its name (enable/disable have verbs of their own)')
    .argument('<endpointId>', 'the endpoint id')
    .option('--name <name>', 'a new name')
    .option('--url <url>', 'a new public http(s) URL')
    .addOption(
      completes(
        new Option('--events <types>', 'the event types, replacing the current ones: comma-separated (repeatable)').argParser(collectEvents),
        WEBHOOK_EVENT_TYPE_NAMES,
      ),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ vap webhooks update we_123 --url https://crm.example.com/hooks/v2
  $ vap webhooks update we_123 --events call.ended,intelligence.speaker.identified`,
    )
    .action(action<UpdateOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(id: string, opts: UpdateOptions, ctx: Context): Promise<void> {
  const change: WebhookEndpointChange = {};
  if (opts.name !== undefined) change.name = checkName(opts.name);
  if (opts.url !== undefined) change.url = checkUrl(opts.url);
  if (opts.events !== undefined) change.events = eventList(opts.events);
  if (Object.keys(change).length === 0) {
    throw new UsageError('nothing to update', 'pass at least one of --name, --url, --events (or use `vap webhooks enable|disable`)');
  }
  const api = await ctx.api();
  if (change.events) await checkWebhookEventTypes(api, change.events, ctx.signal);
  const res = await updateWebhookEndpoint(api, id, change);
  await ctx.out.item(res, { fields: ENDPOINT_FIELDS });
  await ctx.success(`Updated webhook endpoint ${res.id ?? id}`);
}
