import { notFound } from '../errors.js';
import { OrderedIndex } from '../ordered-index.js';
import type { Collection } from '../store.js';
import type { ModuleEnv } from '../types.js';
import { generateBatch, type SeedBatch } from './seed-batch.js';
import type { AnalysisCore, CallRecord, CampaignContactRecord, CampaignRecord, RunRecord, RunView } from './types.js';

/**
 * The telephony state per organization: campaigns, contacts, runs and calls. Calls are also kept
 * in an in-memory index per organization so listings scan without copying and a large seed
 * inserts in one merge; analytics reads through it (src/emulator/README.md).
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

/** Facets of the calls listing (status; direction and status). */
const CALL_FACETS = { status: (c: CallRecord) => c.status, dirStatus: (c: CallRecord) => `${c.direction}|${c.status}` };

interface OrgCalls {
  all: OrderedIndex<CallRecord>;
  byCampaign: Map<string, OrderedIndex<CallRecord>>;
}

const noSource = (): CallRecord[] => [];

export class TelephonyModel {
  private readonly orgCalls = new Map<string, OrgCalls>();
  /** Seeded calls per organization: in memory only (their batches are stored). */
  private readonly seeded = new Map<string, Map<string, CallRecord>>();
  private readonly interned = new Map<string, AnalysisCore>();
  private readonly migrated = new Set<string>();

  constructor(readonly env: ModuleEnv) {}

  // ---- read access (analytics) ----

  /** Every campaign of the organization, in creation order. */
  campaigns(orgId: string): readonly CampaignRecord[] {
    return this.campaignMap(orgId).ordered(CAMPAIGN_FACETS).all();
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
    return this.callIndex(orgId).all();
  }

  /** The organization's calls with their listing facets (the calls listing). */
  callIndex(orgId: string): OrderedIndex<CallRecord> {
    return this.orgCallsOf(orgId).all;
  }

  /** The campaign's calls with their listing facets (kept as calls are added and change). */
  campaignCallIndex(orgId: string, campaignId: string): OrderedIndex<CallRecord> {
    const oc = this.orgCallsOf(orgId);
    let idx = oc.byCampaign.get(campaignId);
    if (!idx) {
      idx = new OrderedIndex<CallRecord>(noSource, CALL_FACETS);
      idx.reset([]);
      oc.byCampaign.set(campaignId, idx);
    }
    return idx;
  }

  /** The campaign's calls, oldest first (read-only). Calls are never removed. */
  callsOf(orgId: string, campaignId: string): readonly CallRecord[] {
    return this.campaignCallIndex(orgId, campaignId).all();
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
    const runs = [...this.runList(orgId, campaignId).values()];
    if (runs.length === 0) return [];
    const counts = new Map<string, { total: number; completed: number }>(runs.map((r) => [r.id, { total: 0, completed: 0 }]));
    for (const c of this.callsOf(orgId, campaignId)) {
      if (!c.runId) continue;
      const n = counts.get(c.runId);
      if (!n) continue;
      n.total++;
      if (c.status === 'completed') n.completed++;
    }
    return runs.reverse().map((r) => ({ ...r, totalCalls: counts.get(r.id)!.total, completedCalls: counts.get(r.id)!.completed }));
  }

  // ---- storage (telephony modules) ----

  /** The organization's campaigns (creation order); the listing's facets are in CAMPAIGN_FACETS. */
  campaignMap(orgId: string): Collection<CampaignRecord> {
    this.migrate(orgId);
    return this.env.store.collection<CampaignRecord>(orgId, COLLECTIONS.campaigns);
  }

  /** The campaign's contacts by contact id, in the order they were added (each a record: a status change writes one contact). */
  contactsOf(orgId: string, campaignId: string): Collection<CampaignContactRecord> {
    this.migrate(orgId);
    return this.env.store.collection<CampaignContactRecord>(orgId, `${COLLECTIONS.campaignContacts}:${campaignId}`);
  }

  /** The campaign's contacts with a facet per status (pages and the pending count). */
  contactIndex(orgId: string, campaignId: string): OrderedIndex<CampaignContactRecord> {
    return this.contactsOf(orgId, campaignId).ordered({ status: (c) => c.status });
  }

  /** How many of the campaign's contacts are pending. */
  pendingContacts(orgId: string, campaignId: string): number {
    return this.contactIndex(orgId, campaignId).count({ facet: 'status', values: ['pending'] });
  }

  dropCampaignState(orgId: string, campaignId: string): void {
    this.contactsOf(orgId, campaignId).clear();
    this.runList(orgId, campaignId).clear();
    this.campaignMap(orgId).delete(campaignId);
  }

  /** The campaign's runs by id, oldest first. */
  runList(orgId: string, campaignId: string): Collection<RunRecord> {
    this.migrate(orgId);
    return this.env.store.collection<RunRecord>(orgId, `${COLLECTIONS.runs}:${campaignId}`);
  }

  callMap(orgId: string): Collection<CallRecord> {
    return this.env.store.collection<CallRecord>(orgId, COLLECTIONS.calls);
  }

  /** Adds a new call (store + indexes). */
  addCall(orgId: string, call: CallRecord): void {
    this.callMap(orgId).set(call.id, call);
    const oc = this.orgCallsOf(orgId);
    oc.all.insert(call, compareCalls);
    this.campaignCallIndex(orgId, call.campaignId).insert(call, compareCalls);
  }

  /** A call changed in place: journaled, and moved between the listings' facets when its status changed. */
  callChanged(orgId: string, call: CallRecord): void {
    if (!call.seeded) this.callMap(orgId).touch(call.id);
    const oc = this.orgCalls.get(orgId);
    if (!oc) return;
    oc.all.update(call);
    oc.byCampaign.get(call.campaignId)?.update(call);
  }

  seedBatches(orgId: string): Collection<SeedBatch> {
    return this.env.store.collection<SeedBatch>(orgId, COLLECTIONS.seedBatches);
  }

  /** Stores a seed batch and adds its calls (one sort of the batch, one merge with each index). */
  addSeedBatch(orgId: string, batch: SeedBatch): void {
    const oc = this.orgCallsOf(orgId);
    this.seedBatches(orgId).set(batch.id, batch);
    const calls = this.generate(orgId, batch);
    this.mergeInto(oc, calls);
  }

  private mergeInto(oc: OrgCalls, calls: CallRecord[]): void {
    const sorted = [...calls].sort(compareCalls);
    oc.all.reset(merge(oc.all.all(), sorted));
    const byCampaign = new Map<string, CallRecord[]>();
    for (const c of sorted) {
      let l = byCampaign.get(c.campaignId);
      if (!l) byCampaign.set(c.campaignId, (l = []));
      l.push(c);
    }
    for (const [cid, list] of byCampaign) {
      let idx = oc.byCampaign.get(cid);
      if (!idx) {
        idx = new OrderedIndex<CallRecord>(noSource, CALL_FACETS);
        idx.reset([]);
        oc.byCampaign.set(cid, idx);
      }
      idx.reset(merge(idx.all(), list));
    }
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
    const calls = generateBatch(
      this.env.options.seed,
      orgId,
      batch,
      (a) => this.intern(a),
      (id) => stored.has(id) || seeded.has(id),
    );
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

  /** The organization's call indexes, built on first use (after a restart: the stored calls, plus the seeded batches regenerated in order). */
  private orgCallsOf(orgId: string): OrgCalls {
    let oc = this.orgCalls.get(orgId);
    if (!oc) {
      const all = new OrderedIndex<CallRecord>(noSource, CALL_FACETS);
      all.reset([]);
      oc = { all, byCampaign: new Map() };
      this.orgCalls.set(orgId, oc);
      this.mergeInto(oc, [...this.callMap(orgId).values()]);
      for (const b of this.seedBatches(orgId).values()) this.mergeInto(oc, this.generate(orgId, b));
    }
    return oc;
  }

  /**
   * State files of earlier versions kept a campaign's contacts and runs as one array per
   * campaign; they move to a collection per campaign (a record each) on first use.
   */
  private migrate(orgId: string): void {
    if (this.migrated.has(orgId)) return;
    this.migrated.add(orgId);
    const store = this.env.store;
    const oldContacts = store.collection<CampaignContactRecord[]>(orgId, COLLECTIONS.campaignContacts);
    for (const [cid, list] of oldContacts) {
      const c = store.collection<CampaignContactRecord>(orgId, `${COLLECTIONS.campaignContacts}:${cid}`);
      if (Array.isArray(list)) for (const x of list) c.set(x.contactId, x);
    }
    oldContacts.clear();
    const oldRuns = store.collection<RunRecord[]>(orgId, COLLECTIONS.runs);
    for (const [cid, list] of oldRuns) {
      const c = store.collection<RunRecord>(orgId, `${COLLECTIONS.runs}:${cid}`);
      if (Array.isArray(list)) for (const r of list) c.set(r.id, r);
    }
    oldRuns.clear();
  }
}

/** Facets of the campaigns listing: every combination of its filters (built when a query uses it). */
export const CAMPAIGN_FACETS = {
  s: (c: CampaignRecord) => c.status,
  d: (c: CampaignRecord) => c.direction,
  w: (c: CampaignRecord) => c.workspaceId ?? '',
  sd: (c: CampaignRecord) => `${c.status}|${c.direction}`,
  sw: (c: CampaignRecord) => `${c.status}|${c.workspaceId ?? ''}`,
  dw: (c: CampaignRecord) => `${c.direction}|${c.workspaceId ?? ''}`,
  sdw: (c: CampaignRecord) => `${c.status}|${c.direction}|${c.workspaceId ?? ''}`,
};

/** Merges sorted `batch` into sorted `idx` (a new array). */
function merge(idx: readonly CallRecord[], batch: readonly CallRecord[]): CallRecord[] {
  const merged: CallRecord[] = new Array(idx.length + batch.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < idx.length && j < batch.length) merged[k++] = compareCalls(idx[i]!, batch[j]!) <= 0 ? idx[i++]! : batch[j++]!;
  while (i < idx.length) merged[k++] = idx[i++]!;
  while (j < batch.length) merged[k++] = batch[j++]!;
  return merged;
}
