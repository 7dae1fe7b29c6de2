import { Command } from 'commander';
import { CAMPAIGN_CONTACTS_MAX_PAGE_SIZE, listCampaignContactsPage } from '../../../api/campaigns.js';
import { paginate } from '../../../api/paginate.js';
import type { Context } from '../../../context.js';
import { rememberShown, resolveCampaignId } from '../../../ids/resolve.js';
import { action } from '../../action.js';
import { addListingOptions, paginateOptions, type ListingOptions } from '../../listing.js';
import type { ContextFactory } from '../../types.js';
import { CONTACT_COLUMNS } from '../shared.js';

export function listCommand(makeContext: ContextFactory): Command {
  return addListingOptions(
    new Command('list')
      .alias('ls')
      .description('List a campaign’s contacts and where each stands (pending, queued, called, failed)')
      .argument('<campaignId>', 'the campaign id (or its start, or its name)'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ vap campaigns contacts list 0b7c…
  $ vap campaigns contacts list 0b7c… --all --json --query "[?status=='pending'].contactId"`,
    )
    .action(action<ListingOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(ref: string, opts: ListingOptions, ctx: Context): Promise<void> {
  const id = await resolveCampaignId(ctx, ref);
  const api = await ctx.api();
  const items = paginate((req) => listCampaignContactsPage(api, id, req, ctx.signal), paginateOptions(opts, CAMPAIGN_CONTACTS_MAX_PAGE_SIZE));
  await ctx.out.list(
    rememberShown(ctx, 'call', items, (c) => [c.lastCallId]),
    {
      columns: CONTACT_COLUMNS,
      id: (c) => c.contactId,
      empty: `Campaign ${id} has no contacts yet. Add some with \`vap campaigns contacts add ${id} --contacts id,…\`.`,
    },
  );
}
