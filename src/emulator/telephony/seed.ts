import { agentModelFor } from '../agents/model.js';
import { badRequest, notFound } from '../errors.js';
import type { ModuleEnv, Org } from '../types.js';
import { analysisCore, costOf } from './analysis.js';
import { telephonyFor } from './model.js';
import { rngFor, uuidFrom } from './rng.js';
import { drawOutcome, drawPersona, drawSeconds, factsFor, topicFrom } from './script.js';
import { randomPerson } from './simulator.js';
import type { CallRecord, CampaignRecord } from './types.js';

export const SEED_MAX = 200_000;
const SPAN_MS = 30 * 86_400_000;

/**
 * POST /_emulator/calls/seed: inserts `count` ended historical calls (completed and
 * failed, analysed unless `analysed: false`) straight into the store, with no events
 * and no timers, spread over the 30 days before now. Without a campaignId they go
 * to the organization's "Seeded history" campaign (created completed, on first use).
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
  const seed = env.options.seed;
  const now = env.clock.nowMs();
  const end = now - 3_600_000;
  // Ids come from this batch's stream (deterministic for the seed), not from env.ids: one hash per call would cost seconds for 100k.
  const rng = rngFor(seed, org.id, campaign.id, 'seed', model.calls(org.id).length);
  const iso = (ms: number) => new Date(ms).toISOString();
  const existing = model.callMap(org.id);
  const calls: CallRecord[] = new Array(count);
  for (let i = 0; i < count; i++) {
    let id = uuidFrom(rng);
    while (existing.has(id)) id = uuidFrom(rng);
    const persona = drawPersona(rng);
    const outcome = drawOutcome(rng, campaign.direction);
    const seconds = drawSeconds(rng, outcome, persona);
    const person = randomPerson(rng);
    const created = Math.round(end - SPAN_MS + (SPAN_MS * (i + rng())) / count);
    const ringAt = created + 1000 + Math.floor(rng() * 1000);
    const connects = outcome === 'answered' || outcome === 'voicemail';
    const connectAt = connects ? ringAt + 3000 + Math.floor(rng() * 12_000) : null;
    const endAt = connectAt !== null ? connectAt + seconds * 1000 : ringAt + 15_000 + Math.floor(rng() * 15_000);
    const status = connects ? 'completed' : 'failed';
    const call: CallRecord = {
      id,
      campaignId: campaign.id,
      phoneNumber: person.phoneNumber,
      calleeName: person.name,
      status,
      direction: campaign.direction,
      duration: connects ? seconds : 0,
      createdAt: iso(created),
      endedAt: iso(endAt),
      contactId: null,
      priority: 5,
      scheduledFor: null,
      startedAt: iso(created),
      ringingAt: iso(ringAt),
      answeredAt: connectAt !== null ? iso(connectAt) : null,
      failureReason: connects ? null : outcome === 'busy' ? 'busy' : outcome === 'missed' ? 'missed' : 'no_answer',
      agentId: campaign.agentId,
      agentVersion: agent?.currentVersion ?? null,
      runId: null,
      cost: 0,
      persona,
      outcome,
      plannedSeconds: seconds,
      topic,
      agentName,
      engine,
      plan: { ringAt, connectAt, endAt },
      segmentsSent: 0,
      speakerSent: true,
      analyzedAt: analysed ? iso(endAt + 120_000) : null,
      analysis: null,
      seeded: true,
    };
    call.cost = costOf(call);
    if (analysed) call.analysis = model.intern(analysisCore(connects ? factsFor(seed, id, persona, outcome) : null));
    calls[i] = call;
  }
  model.addCalls(org.id, calls);
  env.store.markDirty();
  return { inserted: count, campaignId: campaign.id, orgId: org.id, totalCalls: model.calls(org.id).length };
}

function seededCampaign(env: ModuleEnv, org: Org): CampaignRecord {
  const model = telephonyFor(env);
  for (const c of model.campaignMap(org.id).values()) if (c.name === 'Seeded history' && c.status === 'completed' && c.contactListId === null && c.type === 'standard') return c;
  const at = env.clock.iso();
  const firstAgent = agentModelFor(env).list(org)[0];
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
