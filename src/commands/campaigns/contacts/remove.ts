import { Command } from 'commander';
import { removeCampaignContact } from '../../../api/campaigns.js';
import type { Context } from '../../../context.js';
import { resolveCampaignId } from '../../../ids/resolve.js';
import { action } from '../../action.js';
import { safeText } from '../../../ui/safe-text.js';
import type { ContextFactory } from '../../types.js';

export function removeCommand(makeContext: ContextFactory): Command {
  return new Command('remove')
    .alias('rm')
    .description('Remove contacts from a campaign (a queued call of theirs is cancelled; the contact stays in its list)')
    .argument('<campaignId>', 'the campaign id (or its start, or its name)')
    .argument('<contactId...>', 'one or more contact ids')
    .addHelpText(
      'after',
      `
Examples:
  $ vap campaigns contacts remove 0b7c… ct_1
  $ vap campaigns contacts remove 0b7c… ct_1 ct_2 ct_3`,
    )
    .action(action(makeContext, ([id, ...contactIds], _opts, ctx) => run(id!, contactIds, ctx)));
}

export async function run(ref: string, contactIds: string[], ctx: Context): Promise<void> {
  const id = await resolveCampaignId(ctx, ref);
  const api = await ctx.api();
  for (const contactId of contactIds) {
    await removeCampaignContact(api, id, contactId, ctx.signal);
    if (ctx.globals.quiet) ctx.io.stdout.write(`${safeText(contactId)}\n`);
    await ctx.success(`Removed contact ${contactId} from campaign ${id}`);
  }
}
