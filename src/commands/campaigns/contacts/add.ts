import { Command } from 'commander';
import { ADD_CONTACTS_MAX, addCampaignContacts } from '../../../api/campaigns.js';
import type { Context } from '../../../context.js';
import { resolveCampaignId } from '../../../ids/resolve.js';
import { UsageError } from '../../../errors.js';
import { action } from '../../action.js';
import { collect } from '../../collect.js';
import type { ContextFactory } from '../../types.js';
import { campaignRefusal, contactIdsFrom } from '../shared.js';

interface AddOptions {
  contacts?: string[];
  file?: string;
}

export function addCommand(makeContext: ContextFactory): Command {
  return new Command('add')
    .description('Add contacts of the campaign’s list to the campaign (already added ones are skipped)')
    .argument('<campaignId>', 'the campaign id (or its start, or its name)')
    .option('--contacts <ids>', 'contact ids, comma-separated (repeatable)', collect)
    .option('--file <path>', 'a file of contact ids, one a line (- reads stdin)')
    .addHelpText(
      'after',
      `
Contacts must belong to the campaign's contact list; if any does not, none is added.
More than ${ADD_CONTACTS_MAX} ids are sent ${ADD_CONTACTS_MAX} at a time.

Examples:
  $ vap campaigns contacts add 0b7c… --contacts ct_1,ct_2,ct_3
  $ vap contacts list cl_456 --all -q | vap campaigns contacts add 0b7c… --file -`,
    )
    .action(action<AddOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(ref: string, opts: AddOptions, ctx: Context): Promise<void> {
  if (!opts.contacts?.length && opts.file === undefined) throw new UsageError('no contacts given', 'pass --contacts id,id,… or --file ids.txt');
  const ids = await contactIdsFrom(opts, ctx);
  if (ids.length === 0) throw new UsageError('no contact ids found in --contacts / --file');
  const id = await resolveCampaignId(ctx, ref);
  const api = await ctx.api();
  let added = 0;
  let skipped = 0;
  for (let i = 0; i < ids.length; i += ADD_CONTACTS_MAX) {
    const res = await addCampaignContacts(api, id, ids.slice(i, i + ADD_CONTACTS_MAX), ctx.signal).catch((err: unknown) => {
      throw campaignRefusal(err, id);
    });
    added += res.added;
    skipped += res.skipped;
  }
  const result = { added, skipped };
  const g = ctx.globals;
  if (g.json || g.output || g.query) await ctx.out.data(result);
  await ctx.success(`Added ${added} contact${added === 1 ? '' : 's'} to campaign ${id}${skipped ? ` (${skipped} already there, skipped)` : ''}`);
}
