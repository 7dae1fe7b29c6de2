import { Command } from 'commander';
import { CAMPAIGN_CALLS_MAX_PAGE_SIZE, listCampaignCallsPage, type CallsSummary } from '../../../api/campaigns.js';
import { paginate } from '../../../api/paginate.js';
import type { Context } from '../../../context.js';
import { rememberShown, resolveCampaignId } from '../../../ids/resolve.js';
import { summaryLine } from '../../../calls/format.js';
import { action } from '../../action.js';
import { addCallFilterOptions, callFilters, type CallFilterOptions } from '../../call-options.js';
import { addListingOptions, paginateOptions, type ListingOptions } from '../../listing.js';
import type { ContextFactory } from '../../types.js';
import { CALL_COLUMNS } from '../shared.js';

type ListOptions = ListingOptions & CallFilterOptions;

// The filters are those of `vap calls list` (same flags, same parsing), but --campaign.

export function listCommand(makeContext: ContextFactory): Command {
  return addListingOptions(
    addCallFilterOptions(
      new Command('list')
        .alias('ls')
        .description('List a campaign’s calls, newest first, with a count by status')
        .argument('<campaignId>', 'the campaign id (or its start, or its name)'),
      { campaign: false },
    ),
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

export async function run(ref: string, opts: ListOptions, ctx: Context): Promise<void> {
  const { campaignId: _campaign, ...filters } = callFilters(opts);
  const id = await resolveCampaignId(ctx, ref);
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
  const n = await ctx.out.list(
    rememberShown(ctx, 'call', items, (c) => [c.id]),
    { columns: CALL_COLUMNS, empty: 'No calls match.' },
  );
  // The counts cover every matching call; on stderr, on a terminal and piped alike (stdout stays data), as `vap calls list` does.
  if (summary && (n > 0 || summary.total > 0)) {
    const more = n < summary.total && !opts.all ? ` (showing ${n}; --all for every one)` : '';
    ctx.info(`${summaryLine(summary)}${more}`);
  }
}
