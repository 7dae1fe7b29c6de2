import { Command } from 'commander';
import { getCampaign } from '../../api/campaigns.js';
import type { Context } from '../../context.js';
import { resolveCampaignId } from '../../ids/resolve.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { CAMPAIGN_FIELDS } from './shared.js';

export function getCommand(makeContext: ContextFactory): Command {
  return new Command('get')
    .description('Show a campaign')
    .argument('<campaignId>', 'the campaign id (or its start, or its name)')
    .addHelpText(
      'after',
      `
Examples:
  $ vap campaigns get 0b7c…
  $ vap campaigns get 0b7c… --json --query status`,
    )
    .action(action(makeContext, (args, _opts, ctx) => run(args[0]!, ctx)));
}

export async function run(ref: string, ctx: Context): Promise<void> {
  const id = await resolveCampaignId(ctx, ref);
  const api = await ctx.api();
  await ctx.out.item(await getCampaign(api, id, ctx.signal), { fields: CAMPAIGN_FIELDS });
}
