import { Command, Option } from 'commander';
import { createCampaign, type CreateCampaignBody } from '../../api/campaigns.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { CAMPAIGN_FIELDS, resolveAgent } from './shared.js';

interface CreateOptions {
  name?: string;
  description?: string;
  agent?: string;
  agentType?: string;
  direction?: 'outbound' | 'inbound';
  type?: 'standard' | 'api';
  contactList?: string;
  phoneNumberId?: string;
  workspace?: string;
}

export function createCommand(makeContext: ContextFactory): Command {
  return new Command('create')
    .description('Create a campaign (draft): outbound over a contact list, inbound on a phone number, or API-triggered')
    .option('--name <name>', 'campaign name (1..200 characters)')
    .option('--description <text>', 'what the campaign is for (up to 2000 characters)')
    .option('--agent <agentId>', 'the agent that makes or takes the calls (default: $VAP_AGENT)')
    .option('--agent-type <type>', 'the agent configuration type sent as agent.type')
    .addOption(new Option('--direction <direction>', 'outbound or inbound').choices(['outbound', 'inbound']).default('outbound'))
    .addOption(new Option('--type <type>', 'standard, or api (calls come from `vap campaigns trigger`)').choices(['standard', 'api']).default('standard'))
    .option('--contact-list <listId>', 'the contact list to call (outbound; optional for inbound: callers are matched against it)')
    .option('--phone-number-id <id>', 'the provisioned number that takes the calls (inbound only)')
    .option('--workspace <workspaceId>', 'the workspace the campaign belongs to')
    .addHelpText(
      'after',
      `
Kinds:
  outbound   --contact-list is required
  inbound    --direction inbound --phone-number-id pn_… (a provisioned number), --contact-list optional
  api        --type api, no contact list: each call comes from \`vap campaigns trigger\`

Examples:
  $ vap campaigns create --name "Renewals" --agent ag_123 --contact-list cl_456
  $ vap campaigns create --name "Front desk" --agent ag_123 --direction inbound --phone-number-id pn_1
  $ vap campaigns create --name "Web callbacks" --agent ag_123 --type api -q`,
    )
    .action(action<CreateOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

/** Checks the flags against the campaign kind; every refusal is a usage error with nothing sent. */
export function buildBody(opts: CreateOptions, ctx: Context): CreateCampaignBody {
  const name = opts.name?.trim();
  if (opts.name === undefined) throw new UsageError('missing --name <name>', 'name the campaign, e.g. --name "November renewals"');
  if (!name) throw new UsageError('--name must not be empty');
  if (name.length > 200) throw new UsageError(`--name is ${name.length} characters; at most 200 are allowed`);
  if (opts.description !== undefined && opts.description.length > 2000) {
    throw new UsageError(`--description is ${opts.description.length} characters; at most 2000 are allowed`);
  }
  const agentId = resolveAgent(opts, ctx);
  const direction = opts.direction ?? 'outbound';
  const type = opts.type ?? 'standard';
  const body: CreateCampaignBody = { name, agentId };
  if (opts.description !== undefined) body.description = opts.description;
  if (opts.agentType !== undefined) {
    if (!opts.agentType.trim()) throw new UsageError('--agent-type must not be empty');
    body.agent = { type: opts.agentType.trim() };
  }
  if (opts.workspace !== undefined) body.workspaceId = opts.workspace;

  if (type === 'api') {
    if (direction !== 'outbound') throw new UsageError('an API campaign is outbound', 'drop --direction inbound, or drop --type api for an inbound campaign');
    if (opts.contactList)
      throw new UsageError('an API campaign has no contact list', 'drop --contact-list: each call comes from `vap campaigns trigger --phone +1…`');
    if (opts.phoneNumberId) throw new UsageError('--phone-number-id is for inbound campaigns only', 'drop --phone-number-id');
    return { ...body, type: 'api', direction: 'outbound' };
  }
  if (direction === 'inbound') {
    if (!opts.phoneNumberId) {
      throw new UsageError('an inbound campaign needs --phone-number-id <id>', 'pass the provisioned number that takes the calls, e.g. --phone-number-id pn_…');
    }
    body.direction = 'inbound';
    body.provisionedPhoneNumberId = opts.phoneNumberId;
    if (opts.contactList) body.contactListId = opts.contactList;
    return body;
  }
  if (opts.phoneNumberId) throw new UsageError('--phone-number-id is for inbound campaigns only', 'add --direction inbound, or drop --phone-number-id');
  if (!opts.contactList) {
    throw new UsageError(
      'an outbound campaign needs --contact-list <listId>',
      'pass the list to call (see `vap contact-lists list`), or --type api for triggered calls',
    );
  }
  body.direction = 'outbound';
  body.contactListId = opts.contactList;
  return body;
}

export async function run(opts: CreateOptions, ctx: Context): Promise<void> {
  const body = buildBody(opts, ctx);
  const api = await ctx.api();
  const campaign = await createCampaign(api, body, ctx.signal);
  await ctx.out.item(campaign, { fields: CAMPAIGN_FIELDS });
  await ctx.success(
    `Created ${campaign.type === 'api' ? 'API' : campaign.direction} campaign ${campaign.name} (${campaign.id}) as a draft; start it with \`vap campaigns start ${campaign.id}\``,
  );
}
