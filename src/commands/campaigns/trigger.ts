import { Command } from 'commander';
import { triggerCampaignCall } from '../../api/campaigns.js';
import type { Context } from '../../context.js';
import { resolveCampaignId } from '../../ids/resolve.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { CALL_COLUMNS, campaignRefusal, e164, isoTime } from './shared.js';

interface TriggerOptions {
  phone?: string;
  name?: string;
  at?: string;
}

export function triggerCommand(makeContext: ContextFactory): Command {
  return new Command('trigger')
    .description('Queue one call on an active API campaign (priority 10)')
    .argument('<campaignId>', 'the API campaign: id, its start, or name')
    .requiredOption('--phone <e164>', 'the number to call, E.164 (+14155550123)', e164('--phone'))
    .option('--name <name>', 'the callee’s name')
    .option('--at <isoTime>', 'call at this time instead of now (ISO, with a zone)', isoTime('--at'))
    .addHelpText(
      'after',
      `
Examples:
  $ vap campaigns trigger 0b7c… --phone +14155550123 --name "Ada Lovelace"
  $ vap campaigns trigger 0b7c… --phone +14155550123 -q      (prints the call id)`,
    )
    .action(action<TriggerOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(ref: string, opts: TriggerOptions, ctx: Context): Promise<void> {
  const id = await resolveCampaignId(ctx, ref);
  const api = await ctx.api();
  const body: { phoneNumber: string; calleeName?: string; scheduledFor?: string } = { phoneNumber: opts.phone! };
  if (opts.name?.trim()) body.calleeName = opts.name.trim();
  if (opts.at) body.scheduledFor = opts.at;
  let call;
  try {
    call = await triggerCampaignCall(api, id, body, ctx.signal);
  } catch (err) {
    throw campaignRefusal(err, id);
  }
  await ctx.out.item(call, { fields: CALL_COLUMNS });
  await ctx.success(`Queued call ${call.id} to ${call.phoneNumber}; follow it with \`vap calls tail ${call.id}\``);
}
