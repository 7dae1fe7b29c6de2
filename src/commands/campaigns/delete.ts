import { Command } from 'commander';
import { ConflictError } from '../../api/errors.js';
import { deleteCampaign, getCampaign, pauseCampaign, type Campaign } from '../../api/campaigns.js';
import type { Context } from '../../context.js';
import { resolveCampaignId } from '../../ids/resolve.js';
import { CliError } from '../../errors.js';
import { safe } from '../../ui/safe-text.js';
import { action } from '../action.js';
import { confirmOrKeep } from '../confirm.js';
import type { ContextFactory } from '../types.js';
import { machine } from './shared.js';

interface DeleteOptions {
  pause?: boolean;
}

export function deleteCommand(makeContext: ContextFactory): Command {
  return new Command('delete')
    .alias('rm')
    .description('Delete a campaign, its contacts and its queued calls (calls made stay in `vap calls list`); asks first on a terminal, needs --yes otherwise')
    .argument('<campaignId>', 'the campaign id (or its start, or its name)')
    .option('--pause', 'if the campaign is active, pause it first (an active campaign is never deleted)')
    .addHelpText(
      'after',
      `
An active campaign must be paused before it is deleted. On a terminal the command
offers to pause it; in scripts pass --pause (and --yes) to do both.

Examples:
  $ vap campaigns delete 0b7c…
  $ vap campaigns delete 0b7c… --yes              (in scripts and CI)
  $ vap campaigns delete 0b7c… --pause --yes      (pause an active campaign, then delete it)`,
    )
    .action(action<DeleteOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

function activeError(c: Pick<Campaign, 'id' | 'name'>): CliError {
  return new CliError(
    `campaign ${c.name} (${c.id}) is active: it must be paused before it is deleted`,
    undefined,
    `pause it with \`vap campaigns pause ${c.id}\`, or pass --pause to pause and delete it`,
  );
}

export async function run(ref: string, opts: DeleteOptions, ctx: Context): Promise<void> {
  const id = await resolveCampaignId(ctx, ref);
  const api = await ctx.api();
  const campaign = await getCampaign(api, id, ctx.signal);
  const yes = Boolean(ctx.globals.yes);
  let pauseFirst = false;
  if (campaign.status === 'active') {
    if (opts.pause) {
      pauseFirst = true;
      if (
        !yes &&
        !(await confirmOrKeep(
          ctx,
          safe`Campaign ${campaign.name} (${id}) is active. Pause it and delete it? This cannot be undone.`,
          safe`nothing deleted: campaign ${campaign.name} (${id}) was kept (still active)`,
        ))
      )
        return;
    } else if (ctx.prompter.canPrompt && !yes) {
      ctx.info(safe`Campaign ${campaign.name} (${id}) is active: it must be paused before it is deleted.`);
      if (
        !(await confirmOrKeep(
          ctx,
          'Pause it now and delete it? This cannot be undone.',
          safe`nothing deleted: campaign ${campaign.name} (${id}) was kept (still active)`,
          '--pause --yes',
        ))
      )
        return;
      pauseFirst = true;
    } else {
      throw activeError(campaign);
    }
  } else if (!yes) {
    // Without a terminal this is a usage error naming --yes; nothing is deleted.
    if (
      !(await confirmOrKeep(
        ctx,
        safe`Delete campaign ${campaign.name} (${id})? This cannot be undone.`,
        safe`nothing deleted: campaign ${campaign.name} (${id}) was kept`,
      ))
    )
      return;
  }
  if (pauseFirst) {
    await pauseCampaign(api, id, ctx.signal);
    await ctx.success(`Paused campaign ${campaign.name} (${id})`);
  }
  let res: { id: string; deleted: boolean };
  try {
    res = await deleteCampaign(api, id, ctx.signal);
  } catch (err) {
    // Started again by someone else between our check and the delete.
    if (err instanceof ConflictError && err.code === 'campaign_active') throw activeError(campaign);
    throw err;
  }
  if (machine(ctx)) {
    await ctx.out.item(
      { id, deleted: res?.deleted ?? true },
      {
        fields: [
          { header: 'id', value: (r) => r.id },
          { header: 'deleted', value: (r) => r.deleted },
        ],
      },
    );
  }
  await ctx.success(`Deleted campaign ${campaign.name} (${id})`);
}
