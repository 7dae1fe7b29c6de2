import { Command } from 'commander';
import { updateCampaign, type UpdateCampaignBody } from '../../api/campaigns.js';
import type { Context } from '../../context.js';
import { resolveCampaignId } from '../../ids/resolve.js';
import { UsageError } from '../../errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { CAMPAIGN_FIELDS } from './shared.js';

interface UpdateOptions {
  name?: string;
  description?: string;
  agent?: string;
  agentType?: string;
  workspace?: string;
}

export function updateCommand(makeContext: ContextFactory): Command {
  return new Command('update')
    .description('Change a campaign’s name, description, agent or workspace (any status but completed)')
    .argument('<campaignId>', 'the campaign id (or its start, or its name)')
    .option('--name <name>', 'new name (1..200 characters)')
    .option('--description <text>', 'new description (up to 2000 characters; "" clears it)')
    .option('--agent <agentId>', 'another agent')
    .option('--agent-type <type>', 'the agent configuration type (agent.type)')
    .option('--workspace <workspaceId>', 'another workspace')
    .addHelpText(
      'after',
      `
The list, direction and phone number of a campaign are fixed once it exists.

Examples:
  $ vap campaigns update 0b7c… --name "Renewals (Dec)"
  $ vap campaigns update 0b7c… --agent ag_789 --description ""`,
    )
    .action(action<UpdateOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export function buildPatch(opts: UpdateOptions): UpdateCampaignBody {
  const body: UpdateCampaignBody = {};
  if (opts.name !== undefined) {
    const name = opts.name.trim();
    if (!name) throw new UsageError('--name must not be empty');
    if (name.length > 200) throw new UsageError(`--name is ${name.length} characters; at most 200 are allowed`);
    body.name = name;
  }
  if (opts.description !== undefined) {
    if (opts.description.length > 2000) throw new UsageError(`--description is ${opts.description.length} characters; at most 2000 are allowed`);
    body.description = opts.description;
  }
  if (opts.agent !== undefined) {
    if (!opts.agent.trim()) throw new UsageError('--agent must not be empty');
    body.agentId = opts.agent.trim();
  }
  if (opts.agentType !== undefined) body.agent = { type: opts.agentType };
  if (opts.workspace !== undefined) body.workspaceId = opts.workspace;
  if (Object.keys(body).length === 0) throw new UsageError('nothing to update', 'pass --name, --description, --agent, --agent-type or --workspace');
  return body;
}

export async function run(ref: string, opts: UpdateOptions, ctx: Context): Promise<void> {
  const body = buildPatch(opts);
  const id = await resolveCampaignId(ctx, ref);
  const api = await ctx.api();
  const campaign = await updateCampaign(api, id, body, ctx.signal);
  await ctx.out.item(campaign, { fields: CAMPAIGN_FIELDS });
  await ctx.success(`Updated campaign ${campaign.name} (${campaign.id})`);
}
