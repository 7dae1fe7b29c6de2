import { Command, InvalidArgumentError, Option } from 'commander';
import { CAMPAIGN_CALLS_MAX_PAGE_SIZE, listCampaignCallsPage, type CallFilters, type CallsSummary } from '../../../api/campaigns.js';
import { paginate } from '../../../api/paginate.js';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { action } from '../../action.js';
import { addListingOptions, paginateOptions, type ListingOptions } from '../../listing.js';
import type { ContextFactory } from '../../types.js';
import { parseDuration } from '../../duration.js';
import { CALL_COLUMNS } from '../shared.js';

export const CALL_STATUS_FILTERS = ['queued', 'in-progress', 'completed', 'failed', 'cancelled'] as const;

interface ListOptions extends ListingOptions {
  status?: string;
  direction?: string;
  from?: string;
  to?: string;
  minDuration?: number;
  maxDuration?: number;
  search?: string;
}

// The filters of `vap calls list` (same names and values), kept small here: --status also
// takes in_progress, durations take units (90, 90s, 2m).

function parseStatus(v: string): string {
  const s = v.trim().toLowerCase();
  if (s === 'in_progress' || s === 'in-progress') return 'in-progress';
  if ((CALL_STATUS_FILTERS as readonly string[]).includes(s)) return s;
  throw new InvalidArgumentError(`--status must be one of: ${CALL_STATUS_FILTERS.join(', ')} (in_progress also works); got "${v}".`);
}

function secondsOption(flag: string) {
  return (v: string): number => {
    const ms = parseDuration(v);
    if (ms === undefined || ms < 0 || ms % 1000 !== 0) throw new InvalidArgumentError(`${flag} takes whole seconds (90) or a duration (90s, 2m, 1m30s); got "${v}".`);
    return ms / 1000;
  };
}

/** A day (YYYY-MM-DD) or an ISO time. */
function dayOrTime(flag: string) {
  return (v: string): string => {
    if (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v)) return v;
    if (/^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v))) return v;
    throw new InvalidArgumentError(`${flag} must be a day (2026-11-01) or an ISO time (2026-11-01T09:00:00Z) (got "${v}").`);
  };
}

export function listCommand(makeContext: ContextFactory): Command {
  return addListingOptions(
    new Command('list')
      .alias('ls')
      .description('List a campaign’s calls, newest first, with a count by status')
      .argument('<campaignId>', 'the campaign id')
      .option('--status <status>', 'queued, in-progress (initiated, ringing or in progress; also in_progress), completed, failed or cancelled', parseStatus)
      .addOption(new Option('--direction <direction>', 'outbound or inbound').choices(['outbound', 'inbound']))
      .option('--from <date>', 'created on or after this day or time', dayOrTime('--from'))
      .option('--to <date>', 'created on or before this day (the whole day) or time', dayOrTime('--to'))
      .option('--min-duration <d>', 'at least this long (90, 90s, 2m)', secondsOption('--min-duration'))
      .option('--max-duration <d>', 'at most this long (90, 90s, 2m)', secondsOption('--max-duration'))
      .option('--search <text>', 'match the callee’s name or phone number'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ vap campaigns calls list 0b7c…
  $ vap campaigns calls list 0b7c… --status failed --from 2026-11-01 --to 2026-11-07
  $ vap campaigns calls list 0b7c… --status in-progress
  $ vap campaigns calls list 0b7c… --min-duration 1m --all -o ndjson`,
    )
    .action(action<ListOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export function callFilters(opts: ListOptions): CallFilters {
  if (opts.minDuration !== undefined && opts.maxDuration !== undefined && opts.minDuration > opts.maxDuration) {
    throw new UsageError(`--min-duration ${opts.minDuration} is above --max-duration ${opts.maxDuration}`);
  }
  if (opts.from && opts.to && opts.from.slice(0, 10) > opts.to.slice(0, 10)) throw new UsageError(`--from ${opts.from} is after --to ${opts.to}`);
  return {
    status: opts.status,
    direction: opts.direction,
    dateFrom: opts.from,
    dateTo: opts.to,
    minDuration: opts.minDuration,
    maxDuration: opts.maxDuration,
    search: opts.search,
  };
}

export async function run(id: string, opts: ListOptions, ctx: Context): Promise<void> {
  const filters = callFilters(opts);
  const api = await ctx.api();
  let summary: CallsSummary | undefined;
  const items = paginate(
    async (req) => {
      const page = await listCampaignCallsPage(api, id, { ...req, ...filters }, ctx.signal);
      summary ??= page.summary;
      return page;
    },
    paginateOptions(opts, CAMPAIGN_CALLS_MAX_PAGE_SIZE),
  );
  const n = await ctx.out.list(items, { columns: CALL_COLUMNS, empty: 'No calls match.' });
  if (ctx.out.human && summary && n > 0) {
    ctx.info(`${summary.total} calls: ${summary.completed} completed, ${summary.failed} failed, ${summary.active} in progress, ${summary.queued} queued`);
  }
}
