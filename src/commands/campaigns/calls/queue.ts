import { Command } from 'commander';
import { queueCampaignCalls, type QueueCallsBody } from '../../../api/campaigns.js';
import type { Context } from '../../../context.js';
import { resolveCampaignId } from '../../../ids/resolve.js';
import { UsageError } from '../../../errors.js';
import { action } from '../../action.js';
import { collect } from '../../collect.js';
import { wideOption } from '../../listing.js';
import type { ContextFactory } from '../../types.js';
import { CALL_COLUMNS, campaignRefusal, contactIdsFrom, intRange, isoTime } from '../shared.js';

interface QueueOptions {
  contacts?: string[];
  file?: string;
  allPending?: boolean;
  priority?: number;
  at?: string;
}

/** The server refuses a schedule earlier than now − 1 minute; so do we, before sending. */
const PAST_TOLERANCE_MS = 60_000;

export function queueCommand(makeContext: ContextFactory): Command {
  return new Command('queue')
    .description('Queue calls to campaign contacts (they dial while the campaign is active)')
    .argument('<campaignId>', 'the campaign (outbound, standard): id, its start, or name')
    .option('--contacts <ids>', 'campaign contact ids, comma-separated (repeatable)', collect)
    .option('--file <path>', 'a file of contact ids, one a line (- reads stdin)')
    .option('--all-pending', 'every contact of the campaign still pending')
    .option('--priority <1..10>', 'higher dials first (default 5)', intRange('--priority', 1, 10))
    .option('--at <isoTime>', 'dial at or after this time (ISO, with a zone)', isoTime('--at'))
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
Give the contacts one way: --contacts/--file, or --all-pending. Contacts already
queued are skipped. A draft or paused campaign keeps the calls until it starts.

Examples:
  $ vap campaigns calls queue 0b7c… --all-pending
  $ vap campaigns calls queue 0b7c… --contacts ct_1,ct_2 --priority 9
  $ vap campaigns calls queue 0b7c… --all-pending --at 2026-11-24T09:00:00-05:00`,
    )
    .action(action<QueueOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function buildQueueBody(opts: QueueOptions, ctx: Context, now = Date.now()): Promise<QueueCallsBody> {
  const byIds = Boolean(opts.contacts?.length) || opts.file !== undefined;
  if (byIds && opts.allPending) throw new UsageError('give the contacts one way', 'pass --contacts/--file or --all-pending, not both');
  if (!byIds && !opts.allPending) throw new UsageError('no contacts to queue', 'pass --contacts id,id,…, --file ids.txt or --all-pending');
  const body: QueueCallsBody = {};
  if (opts.allPending) body.queueAllPending = true;
  else {
    const ids = await contactIdsFrom(opts, ctx);
    if (ids.length === 0) throw new UsageError('no contact ids found in --contacts / --file');
    body.contactIds = ids;
  }
  if (opts.priority !== undefined) body.priority = opts.priority;
  if (opts.at !== undefined) {
    if (Date.parse(opts.at) < now - PAST_TOLERANCE_MS)
      throw new UsageError(`--at ${opts.at} is in the past`, 'give a time from now on, or leave --at out to dial as soon as possible');
    body.scheduledFor = opts.at;
  }
  return body;
}

export async function run(ref: string, opts: QueueOptions, ctx: Context): Promise<void> {
  const body = await buildQueueBody(opts, ctx);
  const id = await resolveCampaignId(ctx, ref);
  const api = await ctx.api();
  const res = await queueCampaignCalls(api, id, body, ctx.signal).catch((err: unknown) => {
    throw campaignRefusal(err, id);
  });
  if (!ctx.out.human || res.calls.length > 0) await ctx.out.list(res.calls, { columns: CALL_COLUMNS, empty: '' });
  await ctx.success(
    `Queued ${res.queued} call${res.queued === 1 ? '' : 's'} on campaign ${id}${res.queued === 0 ? ' (every contact given is already queued or called)' : ''}`,
  );
}
