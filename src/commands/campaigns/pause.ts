import { Command } from 'commander';
import { pauseCampaign } from '../../api/campaigns.js';
import type { Context } from '../../context.js';
import { resolveCampaignId } from '../../ids/resolve.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { CAMPAIGN_FIELDS, machine } from './shared.js';

export function pauseCommand(makeContext: ContextFactory): Command {
  return new Command('pause')
    .description('Pause an active campaign (closes the run; calls in progress complete, queued calls wait)')
    .argument('<campaignId>', 'the campaign id (or its start, or its name)')
    .addHelpText(
      'after',
      `
Examples:
  $ vap campaigns pause 0b7c…
  $ vap campaigns pause 0b7c… --json --query status`,
    )
    .action(action(makeContext, (args, _opts, ctx) => run(args[0]!, ctx)));
}

export async function run(ref: string, ctx: Context): Promise<void> {
  const id = await resolveCampaignId(ctx, ref);
  const api = await ctx.api();
  const c = await pauseCampaign(api, id, ctx.signal);
  if (machine(ctx)) await ctx.out.item(c, { fields: CAMPAIGN_FIELDS });
  await ctx.success(`Paused campaign ${c.name} (${c.id}); calls in progress complete, queued calls wait for \`vap campaigns start ${c.id}\``);
}
