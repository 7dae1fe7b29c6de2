import { Command, Option } from 'commander';
import { paginate } from '../../api/paginate.js';
import { DELIVERIES_MAX_LIMIT, listWebhookDeliveriesPage, type WebhookDelivery } from '../../api/webhooks.js';
import { completes } from '../../completion/takes.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withPolicy } from '../../ui/columns.js';
import type { Column } from '../../ui/format.js';
import { action } from '../action.js';
import { wideOption } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { count, time } from '../../ui/values.js';
import { DELIVERY_STATUSES } from '../../spec/webhooks.js';

export const DELIVERY_COLUMNS: Column<WebhookDelivery>[] = withPolicy<WebhookDelivery>(
  [
    { header: 'id', value: (d) => d.id },
    // An event type is a name (`vap events types`), read whole: cut only when nothing else can give way.
    { header: 'event', value: (d) => d.eventType, flex: false },
    { header: 'event id', value: (d) => d.eventId },
    { header: 'status', value: (d) => d.status },
    { header: 'attempts', value: (d) => count(d.attemptCount) },
    { header: 'response', value: (d) => d.responseStatus ?? '' },
    { header: 'created', value: (d) => time(d.createdAt) },
    { header: 'last attempt', value: (d) => time(d.lastAttemptAt) },
    { header: 'next attempt', value: (d) => time(d.nextAttemptAt) },
    { header: 'error', value: (d) => d.error ?? '' },
  ],
  { keep: ['id', 'event', 'status'] },
);

const DEFAULT_LIMIT = 30;

interface DeliveriesOptions {
  status?: string;
  limit?: string;
  all?: boolean;
}

export function deliveriesCommand(makeContext: ContextFactory): Command {
  return new Command('deliveries')
    .description("An endpoint's delivery log, newest first: status, attempts, the last response status (payloads are never returned)")
    .argument('<endpointId>', 'the endpoint id')
    .addOption(completes(new Option('--status <status>', DELIVERY_STATUSES.join(' | ')), DELIVERY_STATUSES))
    .option('--limit <n>', `how many deliveries, 1..${DELIVERIES_MAX_LIMIT} (default ${DEFAULT_LIMIT}); with --all, the page size`)
    .option('--all', 'follow the cursor through every page, streaming rows as they arrive')
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
Statuses: pending (waiting for an attempt or a retry), in_flight, succeeded (2xx),
failed (refused: a 4xx other than 408/429; not retried), dead_lettered (retries ran out).

Examples:
  $ vap webhooks deliveries we_123
  $ vap webhooks deliveries we_123 --status dead_lettered --limit 200
  $ vap webhooks deliveries we_123 --all -o ndjson > deliveries.ndjson`,
    )
    .action(action<DeliveriesOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(id: string, opts: DeliveriesOptions, ctx: Context): Promise<void> {
  if (opts.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(opts.status)) {
    throw new UsageError(`--status "${opts.status}" is not a delivery status`, `use one of ${DELIVERY_STATUSES.join(', ')}`);
  }
  let limit: number | undefined;
  if (opts.limit !== undefined) {
    limit = Number(opts.limit);
    if (!/^\d+$/.test(opts.limit.trim()) || limit < 1 || limit > DELIVERIES_MAX_LIMIT) {
      throw new UsageError(`--limit "${opts.limit}" is out of range`, `use 1..${DELIVERIES_MAX_LIMIT}, or --all to follow every page`);
    }
  }
  const api = await ctx.api();
  const items = paginate((req) => listWebhookDeliveriesPage(api, id, { ...req, status: opts.status }, ctx.signal), {
    all: Boolean(opts.all),
    limit: opts.all ? undefined : (limit ?? DEFAULT_LIMIT),
    maxPageSize: opts.all ? (limit ?? DELIVERIES_MAX_LIMIT) : DELIVERIES_MAX_LIMIT,
  });
  await ctx.out.list(items, { columns: DELIVERY_COLUMNS, empty: opts.status ? `No ${opts.status} deliveries for ${id}.` : `No deliveries for ${id} yet.` });
}
