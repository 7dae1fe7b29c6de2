import { notFound } from '../errors.js';
import type { ModuleEnv } from '../types.js';
import { generateBatch, type SeedBatch } from './seed-batch.js';
import type { AnalysisCore, CallRecord, CampaignContactRecord, CampaignRecord, RunRecord, RunView } from './types.js';

/**
 * The telephony state of an emulator: campaigns, their contacts and runs, and calls,
 * per organization in env.store. Calls are also kept in an in-memory index per
 * organization (ascending by createdAt, then id) so listings scan without copying
 * and 100k seeded calls insert in one merge. The index is rebuilt from the store on
 * first use after a restart.
 *
 * Analytics reads through `campaigns`, `campaign`, `calls`, `runs` (never mutate
 * what they return).
 */

export const COLLECTIONS = {
  campaigns: 'campaigns',
  campaignContacts: 'campaign-contacts',
  runs: 'campaign-runs',
  calls: 'calls',
  seedBatches: 'call-seed-batches',
} as const;

const models = new WeakMap<ModuleEnv, TelephonyModel>();

export function telephonyFor(env: ModuleEnv): TelephonyModel {
  let m = models.get(env);
  if (!m) {
    m = new TelephonyModel(env);
    models.set(env, m);
  }
  return m;
}

/** createdAt ascending, then id ascending (listings walk it backwards: newest first). */
export function compareCalls(a: CallRecord, b: CallRecord): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export class TelephonyModel {
  private readonly sorted = new Map<string, CallRecord[]>();
  /** Seeded calls per organization: in memory only (their batches are stored). */
  private readonly seeded = new Map<string, Map<string, CallRecord>>();
  private readonly interned = new Map<string, AnalysisCore>();
  private readonly versions = new Map<string, number>();
  private readonly byCampaign = new Map<string, { version: number; map: Map<string, CallRecord[]> }>();

  private bump(orgId: string): void {
    this.versions.set(orgId, this.version(orgId) + 1);
  }

  constructor(readonly env: ModuleEnv) {}

  // ---- read access (analytics) ----

  /** Every campaign of the organization, in creation order. */
  campaigns(orgId: string): CampaignRecord[] {
    return [...this.campaignMap(orgId).values()];
  }

  /** The campaign, or the 404 HttpError (another tenant's id is not found either). */
  campaign(orgId: string, id: string): CampaignRecord {
    const c = this.campaignMap(orgId).get(id);
    if (!c) throw notFound('campaign', id);
    return c;
  }

  /**
   * Every call of the organization, oldest first (createdAt, then id): each with its
   * `analysis` (null until analysed), startedAt, answeredAt, endedAt and cost. The
   * array is the model's own index: read it, never change it.
   */
  calls(orgId: string): readonly CallRecord[] {
    return this.index(orgId);
  }

  /**
   * The campaign's calls, oldest first (read-only; built in one pass over the index
   * after calls were added, then reused). Calls are never removed.
   */
  callsOf(orgId: string, campaignId: string): readonly CallRecord[] {
    const v = this.version(orgId);
    let cached = this.byCampaign.get(orgId);
    if (!cached || cached.version !== v) {
      const map = new Map<string, CallRecord[]>();
      for (const c of this.index(orgId)) {
        let list = map.get(c.campaignId);
        if (!list) {
          list = [];
          map.set(c.campaignId, list);
        }
        list.push(c);
      }
      cached = { version: v, map };
      this.byCampaign.set(orgId, cached);
    }
    return cached.map.get(campaignId) ?? [];
  }

  /** Bumped whenever a call is added to the organization (records change in place otherwise). */
  version(orgId: string): number {
    return this.versions.get(orgId) ?? 0;
  }

  /** The call, or undefined (another tenant's id is undefined too). */
  findCall(orgId: string, id: string): CallRecord | undefined {
    return this.callMap(orgId).get(id) ?? this.seededMap(orgId).get(id);
  }

  call(orgId: string, id: string): CallRecord {
    const c = this.findCall(orgId, id);
    if (!c) throw notFound('call', id);
    return c;
  }

  /** The campaign's runs, newest first, with the counts of calls initiated during each. */
  runs(orgId: string, campaignId: string): RunView[] {
    const runs = this.runList(orgId, campaignId);
    if (runs.length === 0) return [];
    const counts = new Map<string, { total: number; completed: number }>(runs.map((r) => [r.id, { total: 0, completed: 0 }]));
    for (const c of this.callsOf(orgId, campaignId)) {
      if (!c.runId) continue;
      const n = counts.get(c.runId);
      if (!n) continue;
      n.total++;
      if (c.status === 'completed') n.completed++;
    }
    return [...runs].reverse().map((r) => ({ ...r, totalCalls: counts.get(r.id)!.total, completedCalls: counts.get(r.id)!.completed }));
  }

  // ---- storage (telephony modules) ----

  campaignMap(orgId: string): Map<string, CampaignRecord> {
    return this.env.store.collection<CampaignRecord>(orgId, COLLECTIONS.campaigns);
  }

  /** The campaign's contacts in the order they were added (created empty). */
  contactsOf(orgId: string, campaignId: string): CampaignContactRecord[] {
    const m = this.env.store.collection<CampaignContactRecord[]>(orgId, COLLECTIONS.campaignContacts);
    let list = m.get(campaignId);
    if (!list) {
      list = [];
      m.set(campaignId, list);
    }
    return list;
  }

  dropCampaignState(orgId: string, campaignId: string): void {
    this.env.store.collection(orgId, COLLECTIONS.campaignContacts).delete(campaignId);
    this.env.store.collection(orgId, COLLECTIONS.runs).delete(campaignId);
    this.campaignMap(orgId).delete(campaignId);
  }

  /** The campaign's runs, oldest first (the stored array). */
  runList(orgId: string, campaignId: string): RunRecord[] {
    const m = this.env.store.collection<RunRecord[]>(orgId, COLLECTIONS.runs);
    let list = m.get(campaignId);
    if (!list) {
      list = [];
      m.set(campaignId, list);
    }
    return list;
  }

  callMap(orgId: string): Map<string, CallRecord> {
    return this.env.store.collection<CallRecord>(orgId, COLLECTIONS.calls);
  }

  /** Adds a new call (store + index). */
  addCall(orgId: string, call: CallRecord): void {
    this.callMap(orgId).set(call.id, call);
    const idx = this.index(orgId);
    let i = idx.length;
    while (i > 0 && compareCalls(idx[i - 1]!, call) > 0) i--;
    idx.splice(i, 0, call);
    this.bump(orgId);
  }

  seedBatches(orgId: string): Map<string, SeedBatch> {
    return this.env.store.collection<SeedBatch>(orgId, COLLECTIONS.seedBatches);
  }

  /** Stores a seed batch and adds its calls (one sort of the batch, one merge with the index). */
  addSeedBatch(orgId: string, batch: SeedBatch): void {
    const idx = this.index(orgId);
    this.seedBatches(orgId).set(batch.id, batch);
    const calls = this.generate(orgId, batch);
    this.sorted.set(orgId, merge(idx, calls));
    this.bump(orgId);
  }

  private seededMap(orgId: string): Map<string, CallRecord> {
    let m = this.seeded.get(orgId);
    if (!m) {
      m = new Map();
      this.seeded.set(orgId, m);
    }
    return m;
  }

  private generate(orgId: string, batch: SeedBatch): CallRecord[] {
    const stored = this.callMap(orgId);
    const seeded = this.seededMap(orgId);
    const calls = generateBatch(this.env.options.seed, orgId, batch, (a) => this.intern(a), (id) => stored.has(id) || seeded.has(id));
    for (const c of calls) seeded.set(c.id, c);
    return calls;
  }

  /** One shared object per distinct set of analysis facts. */
  intern(core: AnalysisCore): AnalysisCore {
    const key = [
      core.sentiment.overallSentiment,
      core.humanContact.reachedHuman,
      core.humanContact.reachedVoicemail,
      core.humanContact.leftMessage,
      core.objectives.primary.status,
      core.callback.callbackRequested,
      core.doNotCall.requested,
      core.legal.threatened,
      core.crisis.detected,
      core.resolution.resolved,
    ].join('|');
    let c = this.interned.get(key);
    if (!c) {
      c = core;
      this.interned.set(key, c);
    }
    return c;
  }

  private index(orgId: string): CallRecord[] {
    let idx = this.sorted.get(orgId);
    if (!idx) {
      // First use (or after a restart): the stored calls, plus the seeded batches regenerated in order.
      idx = [...this.callMap(orgId).values()].sort(compareCalls);
      this.sorted.set(orgId, idx);
      for (const b of this.seedBatches(orgId).values()) {
        idx = merge(idx, this.generate(orgId, b));
        this.sorted.set(orgId, idx);
      }
    }
    return idx;
  }
}

function merge(idx: CallRecord[], calls: CallRecord[]): CallRecord[] {
  const batch = [...calls].sort(compareCalls);
  const merged: CallRecord[] = new Array(idx.length + batch.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < idx.length && j < batch.length) merged[k++] = compareCalls(idx[i]!, batch[j]!) <= 0 ? idx[i++]! : batch[j++]!;
  while (i < idx.length) merged[k++] = idx[i++]!;
  while (j < batch.length) merged[k++] = batch[j++]!;
  return merged;
}
