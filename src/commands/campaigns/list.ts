import { Command, Option } from 'commander';
import { CAMPAIGN_DIRECTIONS, CAMPAIGNS_MAX_PAGE_SIZE, listCampaignsPage, type CampaignFilters } from '../../api/campaigns.js';
import { paginate } from '../../api/paginate.js';
import type { Context } from '../../context.js';
import { rememberShown } from '../../ids/resolve.js';
import { action } from '../action.js';
import { addListingOptions, paginateOptions, type ListingOptions } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { CAMPAIGN_COLUMNS } from './shared.js';
import { CAMPAIGN_STATUSES } from '../../spec/calls.js';

interface ListOptions extends ListingOptions {
  status?: CampaignFilters['status'];
  direction?: CampaignFilters['direction'];
  search?: string;
  workspace?: string;
}

export function listCommand(makeContext: ContextFactory): Command {
  return addListingOptions(
    new Command('list')
      .alias('ls')
      .description('List campaigns, newest first')
      .addOption(new Option('--status <status>', 'only campaigns in this status').choices(CAMPAIGN_STATUSES))
      .addOption(new Option('--direction <direction>', 'outbound or inbound').choices(CAMPAIGN_DIRECTIONS))
      .option('--search <text>', 'match the name (case-insensitive)')
      .option('--workspace <workspaceId>', 'only campaigns of this workspace'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ vap campaigns list
  $ vap campaigns list --status active --direction outbound
  $ vap campaigns list --search renewal --all -o ndjson
  $ vap campaigns list --status draft -q | xargs -n1 vap campaigns start`,
    )
    .action(action<ListOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: ListOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const filters: CampaignFilters = { status: opts.status, direction: opts.direction, search: opts.search, workspaceId: opts.workspace };
  const items = paginate((req) => listCampaignsPage(api, { ...req, ...filters }, ctx.signal), paginateOptions(opts, CAMPAIGNS_MAX_PAGE_SIZE));
  const filtered = Boolean(opts.status || opts.direction || opts.search || opts.workspace);
  await ctx.out.list(
    rememberShown(ctx, 'campaign', items, (c) => [c.id]),
    { columns: CAMPAIGN_COLUMNS, empty: filtered ? 'No campaigns match.' : 'No campaigns yet. Create one with `vap campaigns create`.' },
  );
}
