import { agentModelFor } from '../agents/model.js';
import { badRequest, notFound } from '../errors.js';
import type { ModuleEnv, Org } from '../types.js';
import { telephonyFor } from './model.js';
import type { SeedBatch } from './seed-batch.js';
import { topicFrom } from './script.js';
import type { CampaignRecord } from './types.js';

export const SEED_MAX = 200_000;

/**
 * POST /_emulator/calls/seed: `count` ended calls over the last 30 days, straight into the store
 * (no events, no timers), stored as the batch's parameters and regenerated on load; without a
 * campaignId, in the organization's "Seeded history" campaign.
 */
export function seedCalls(env: ModuleEnv, org: Org, raw: Record<string, unknown>): { inserted: number; campaignId: string; orgId: string; totalCalls: number } {
  const count = Number(raw.count);
  if (!Number.isInteger(count) || count < 1 || count > SEED_MAX) throw badRequest(`count must be an integer from 1 to ${SEED_MAX}`);
  if (raw.analysed !== undefined && typeof raw.analysed !== 'boolean') throw badRequest('analysed must be true or false');
  const analysed = raw.analysed !== false;
  const model = telephonyFor(env);
  const campaign = typeof raw.campaignId === 'string' && raw.campaignId ? model.campaign(org.id, raw.campaignId) : seededCampaign(env, org);
  if (!campaign) throw notFound('campaign', String(raw.campaignId));
  const agent = agentModelFor(env).find(org.id, campaign.agentId);
  const topic = topicFrom(agent?.config.instructions ?? '');
  const agentName = agent?.config.name ?? campaign.name;
  const engine = agent?.config.engine ?? 'realtime';
  const batch: SeedBatch = {
    id: String(model.seedBatches(org.id).size + 1),
    campaignId: campaign.id,
    direction: campaign.direction,
    agentId: campaign.agentId,
    agentVersion: agent?.currentVersion ?? null,
    agentName,
    engine,
    topic,
    count,
    endMs: env.clock.nowMs() - 3_600_000,
    analysed,
    streamKey: model.calls(org.id).length,
  };
  model.addSeedBatch(org.id, batch);
  return { inserted: count, campaignId: campaign.id, orgId: org.id, totalCalls: model.calls(org.id).length };
}
function seededCampaign(env: ModuleEnv, org: Org): CampaignRecord {
  const model = telephonyFor(env);
  for (const c of model.campaignMap(org.id).values())
    if (c.name === 'Seeded history' && c.status === 'completed' && c.contactListId === null && c.type === 'standard') return c;
  const at = env.clock.iso();
  const firstAgent = agentModelFor(env).first(org.id);
  const c: CampaignRecord = {
    id: env.ids.uuid('campaign'),
    name: 'Seeded history',
    description: 'Historical calls inserted by POST /_emulator/calls/seed',
    status: 'completed',
    direction: 'outbound',
    type: 'standard',
    contactListId: null,
    contactListName: null,
    agentId: firstAgent?.id ?? 'ag_seeded',
    agent: null,
    workspaceId: null,
    provisionedPhoneNumberId: null,
    phoneNumber: null,
    createdAt: at,
    updatedAt: at,
    startedAt: at,
    completedAt: at,
    currentRunId: null,
    nextInboundAt: null,
    inboundCount: 0,
    placedAny: true,
  };
  model.campaignMap(org.id).set(c.id, c);
  return c;
}
