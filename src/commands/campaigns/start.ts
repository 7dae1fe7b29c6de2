import { Command } from 'commander';
import { startCampaign } from '../../api/campaigns.js';
import type { Context } from '../../context.js';
import { resolveCampaignId } from '../../ids/resolve.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { CAMPAIGN_FIELDS, machine } from './shared.js';

export function startCommand(makeContext: ContextFactory): Command {
  return new Command('start')
    .description('Start a draft or paused campaign (opens a run; queued calls begin to dial)')
    .argument('<campaignId>', 'the campaign id (or its start, or its name)')
    .addHelpText(
      'after',
      `
Examples:
  $ vap campaigns start 0b7c…
  $ vap campaigns calls queue 0b7c… --all-pending && vap campaigns start 0b7c…`,
    )
    .action(action(makeContext, (args, _opts, ctx) => run(args[0]!, ctx)));
}

export async function run(ref: string, ctx: Context): Promise<void> {
  const id = await resolveCampaignId(ctx, ref);
  const api = await ctx.api();
  const c = await startCampaign(api, id, ctx.signal);
  if (machine(ctx)) await ctx.out.item(c, { fields: CAMPAIGN_FIELDS });
  await ctx.success(`Started campaign ${c.name} (${c.id}): ${c.status}`);
}
