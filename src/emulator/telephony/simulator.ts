import { agentModelFor } from '../agents/model.js';
import { eventLogFor } from '../events/log.js';
import type { ModuleEnv } from '../types.js';
import { analysisCore, callFacts, costOf, summaryOf } from './analysis.js';
import { CAMPAIGN_FACETS, telephonyFor, type TelephonyModel } from './model.js';
import { contactsCollection, LISTS, type StoredContact, type StoredList } from '../contacts/model.js';
import { personOf, randomPerson } from './people.js';
import { intBetween, pick, rngFor } from './rng.js';
import { drawOutcome, drawPersona, drawSeconds, scriptFor, topicFrom, type Segment } from './script.js';
import type { CallRecord, CampaignRecord, Direction } from './types.js';
import type { CallStatus } from '../../spec/calls.js';

/**
 * The dialer and the call simulation in simulated time: one ticker moves each call through its
 * phases and picks queued calls to dial (src/emulator/README.md). Every phase's time is stored on
 * the call, so a restarted emulator resumes where it left off.
 */

export const MAX_IN_FLIGHT = 3;
export const SPEAKER_DELAY_MS = 5_000;
export const ANALYSIS_DELAY_MS = 120_000;

interface Live {
  orgId: string;
  call: CallRecord;
  segments?: Segment[];
}

const sims = new WeakMap<ModuleEnv, Simulator>();

export function simulatorFor(env: ModuleEnv): Simulator {
  let s = sims.get(env);
  if (!s) {
    s = new Simulator(env);
    sims.set(env, s);
  }
  return s;
}

export class Simulator {
  private readonly model: TelephonyModel;
  private readonly live = new Map<string, Live>();
  /** Queued calls per campaign id (campaign ids are UUIDs, unique across organizations). */
  private readonly queued = new Map<string, { orgId: string; calls: Set<CallRecord> }>();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;

  constructor(private readonly env: ModuleEnv) {
    this.model = telephonyFor(env);
  }

  /** Rebuilds the in-memory registries from the store and starts the ticker (onReady). */
  start(): void {
    for (const org of this.env.orgs) {
      for (const call of this.model.calls(org.id)) {
        if (call.seeded) continue;
        if (call.status === 'queued') this.enqueue(org.id, call);
        else if (
          call.status === 'initiated' ||
          call.status === 'ringing' ||
          call.status === 'in_progress' ||
          (call.status === 'completed' && (!call.analyzedAt || (call.answeredAt && !call.speakerSent)))
        ) {
          this.live.set(call.id, { orgId: org.id, call });
        }
      }
    }
    const every = Math.min(200, Math.max(10, this.env.clock.realDelay(1000)));
    this.timer = setInterval(() => this.tick(), every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  // ---- calls ----

  /** A new queued call (not yet in the store). */
  newCall(
    _orgId: string,
    campaign: CampaignRecord,
    p: { phoneNumber: string; calleeName: string; contactId: string | null; priority: number; scheduledFor: string | null; direction?: Direction },
  ): CallRecord {
    const id = this.env.ids.uuid('call');
    const seed = this.env.options.seed;
    const direction = p.direction ?? campaign.direction;
    const rng = rngFor(seed, id, 'plan');
    const persona = drawPersona(rng);
    const outcome = drawOutcome(rng, direction);
    return {
      id,
      campaignId: campaign.id,
      phoneNumber: p.phoneNumber,
      calleeName: p.calleeName,
      status: 'queued',
      direction,
      duration: 0,
      createdAt: this.env.clock.iso(),
      endedAt: null,
      contactId: p.contactId,
      priority: p.priority,
      scheduledFor: p.scheduledFor,
      startedAt: null,
      ringingAt: null,
      answeredAt: null,
      failureReason: null,
      agentId: campaign.agentId,
      agentVersion: null,
      runId: null,
      cost: 0,
      persona,
      outcome,
      plannedSeconds: drawSeconds(rng, outcome, persona),
      topic: '',
      agentName: '',
      engine: 'realtime',
      plan: null,
      segmentsSent: 0,
      speakerSent: false,
      analyzedAt: null,
      analysis: null,
    };
  }

  /** Stores a new queued call and hands it to the dialer. */
  queue(orgId: string, call: CallRecord): void {
    this.model.addCall(orgId, call);
    this.enqueue(orgId, call);
  }

  private enqueue(orgId: string, call: CallRecord): void {
    let q = this.queued.get(call.campaignId);
    if (!q) {
      q = { orgId, calls: new Set() };
      this.queued.set(call.campaignId, q);
    }
    q.calls.add(call);
  }

  /** queued → cancelled (the caller checked the status). */
  cancel(orgId: string, call: CallRecord): void {
    this.queued.get(call.campaignId)?.calls.delete(call);
    this.setStatus(orgId, call, 'cancelled');
    const contacts = this.model.contactsOf(orgId, call.campaignId);
    const contact = call.contactId ? contacts.get(call.contactId) : undefined;
    if (contact && contact.status === 'queued' && contact.lastCallId === call.id) {
      contact.status = 'pending';
      contacts.touch(contact.contactId);
    }
  }

  /** Queued calls of a campaign (any organization's campaign id is unique). */
  queuedOf(campaignId: string): CallRecord[] {
    return [...(this.queued.get(campaignId)?.calls ?? [])];
  }

  inFlightOf(campaignId: string): number {
    let n = 0;
    for (const l of this.live.values()) if (l.call.campaignId === campaignId && isActive(l.call.status)) n++;
    return n;
  }

  /** The transcript of a call (connected calls only; [] otherwise). */
  segmentsOf(call: CallRecord): Segment[] {
    if (!call.outcome || (call.outcome !== 'answered' && call.outcome !== 'voicemail') || !call.plan) return [];
    const l = this.live.get(call.id);
    if (l?.segments) return l.segments;
    const s = this.script(call);
    if (l) l.segments = s;
    return s;
  }

  private script(call: CallRecord): Segment[] {
    return scriptFor({
      seed: this.env.options.seed,
      callId: call.id,
      direction: call.direction,
      calleeName: call.calleeName,
      agentName: call.agentName,
      topic: call.topic,
      persona: call.persona,
      outcome: call.outcome!,
      seconds: call.plannedSeconds,
    }).segments;
  }

  // ---- the ticker ----

  tick(): void {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const now = this.env.clock.nowMs();
      // Every change is journaled where it is made (callChanged, touch).
      for (const l of this.live.values()) this.advance(l, now);
      for (const org of this.env.orgs) {
        const campaigns = this.model.campaignMap(org.id);
        for (const c of campaigns.ordered(CAMPAIGN_FACETS).page({ facet: 's', values: ['active'] }, 0, Number.MAX_SAFE_INTEGER, false)) {
          if (c.direction === 'inbound') {
            if (this.inbound(org.id, c, now)) campaigns.touch(c.id);
          } else this.pump(org.id, c, now);
        }
      }
    } catch (err) {
      this.env.options.log?.(`telephony tick failed: ${(err as Error).stack ?? String(err)}`);
    } finally {
      this.ticking = false;
    }
  }

  /** Starts queued calls of an active campaign while it has room. */
  private pump(orgId: string, campaign: CampaignRecord, now: number): boolean {
    const q = this.queued.get(campaign.id);
    let changed = false;
    if (q && q.calls.size > 0) {
      let room = MAX_IN_FLIGHT - this.inFlightOf(campaign.id);
      while (room > 0) {
        let best: CallRecord | undefined;
        // The queue is in the order the calls were queued (and rebuilt in the store's, which is
        // the same): of calls queued in the same millisecond, the first queued goes first.
        for (const c of q.calls) {
          if (c.scheduledFor && Date.parse(c.scheduledFor) > now) continue;
          if (!best || c.priority > best.priority || (c.priority === best.priority && c.createdAt < best.createdAt)) best = c;
        }
        if (!best) break;
        q.calls.delete(best);
        this.dial(orgId, campaign, best, now);
        room--;
        changed = true;
      }
    }
    if (this.maybeComplete(orgId, campaign)) changed = true;
    return changed;
  }

  /** An active standard outbound campaign completes once it placed a call and nothing is left to do. */
  maybeComplete(orgId: string, campaign: CampaignRecord): boolean {
    if (campaign.status !== 'active' || campaign.type !== 'standard' || campaign.direction !== 'outbound' || !campaign.placedAny) return false;
    if ((this.queued.get(campaign.id)?.calls.size ?? 0) > 0 || this.inFlightOf(campaign.id) > 0) return false;
    if (this.model.pendingContacts(orgId, campaign.id) > 0) return false;
    const now = this.env.clock.iso();
    const runs = this.model.runList(orgId, campaign.id);
    const run = campaign.currentRunId ? runs.get(campaign.currentRunId) : undefined;
    if (run) {
      run.endedAt = now;
      runs.touch(run.id);
    }
    campaign.currentRunId = null;
    campaign.status = 'completed';
    campaign.completedAt = now;
    campaign.updatedAt = now;
    this.model.campaignMap(orgId).touch(campaign.id);
    eventLogFor(this.env).append(orgId, {
      type: 'campaign.status.updated',
      callId: null,
      data: { campaignId: campaign.id, status: 'completed', previousStatus: 'active' },
    });
    return true;
  }

  /** queued → initiated: the call gets its agent, its run and its planned phases. */
  private dial(orgId: string, campaign: CampaignRecord, call: CallRecord, now: number): void {
    const agent = agentModelFor(this.env).find(orgId, campaign.agentId);
    call.agentVersion = agent?.currentVersion ?? null;
    call.agentName = agent?.config.name ?? campaign.name;
    call.engine = agent?.config.engine ?? 'realtime';
    call.topic = topicFrom(agent?.config.instructions ?? '');
    call.runId = campaign.currentRunId;
    call.startedAt = this.env.clock.iso(now);
    const rng = rngFor(this.env.options.seed, call.id, 'timing');
    const ringAt = now + intBetween(rng, 1000, 2000);
    const connects = call.outcome === 'answered' || call.outcome === 'voicemail';
    const connectAt = connects ? ringAt + intBetween(rng, 3000, 15_000) : null;
    const endAt = connectAt !== null ? connectAt + call.plannedSeconds * 1000 : ringAt + intBetween(rng, 15_000, 30_000);
    call.plan = { ringAt, connectAt, endAt };
    if (!campaign.placedAny) {
      campaign.placedAny = true;
      this.model.campaignMap(orgId).touch(campaign.id);
    }
    this.setStatus(orgId, call, 'initiated');
    this.live.set(call.id, { orgId, call });
  }

  /** An inbound campaign's next caller, when due. */
  private inbound(orgId: string, campaign: CampaignRecord, now: number): boolean {
    if (campaign.nextInboundAt === null) {
      campaign.nextInboundAt = now + this.inboundGap(campaign, now);
      return true;
    }
    let changed = false;
    for (let n = 0; n < 5 && campaign.nextInboundAt !== null && campaign.nextInboundAt <= now; n++) {
      const rng = rngFor(this.env.options.seed, campaign.id, 'inbound', campaign.inboundCount);
      campaign.inboundCount++;
      let person = randomPerson(rng);
      let contactId: string | null = null;
      // 60% of callers are contacts of the campaign (or else of its list), matched by number; the rest strangers.
      if (campaign.contactListId && rng() < 0.6) {
        const known = this.model.contactIndex(orgId, campaign.id).all();
        if (known.length > 0) {
          const c = pick(rng, known);
          person = { name: c.name, phoneNumber: c.phoneNumber };
          contactId = c.contactId;
        } else {
          const list = this.env.store.collection<StoredList>(orgId, LISTS).get(campaign.contactListId);
          const stored = this.env.store.collection<StoredContact>(orgId, contactsCollection(campaign.contactListId));
          if (list && stored.size > 0) {
            const c = stored.ordered().all()[Math.floor(rng() * stored.size)]!;
            const p = personOf(list, c);
            if (p.phoneNumber) {
              person = { name: p.name, phoneNumber: p.phoneNumber };
              contactId = c.id;
            }
          }
        }
      }
      const call = this.newCall(orgId, campaign, {
        phoneNumber: person.phoneNumber,
        calleeName: person.name,
        contactId,
        priority: 5,
        scheduledFor: null,
        direction: 'inbound',
      });
      call.status = 'initiated'; // inbound calls are never queued: the first status update has previousStatus null
      this.model.addCall(orgId, call);
      this.dial(orgId, campaign, call, now);
      campaign.nextInboundAt += this.inboundGap(campaign, campaign.nextInboundAt);
      changed = true;
    }
    if (campaign.nextInboundAt !== null && campaign.nextInboundAt <= now) campaign.nextInboundAt = now + this.inboundGap(campaign, now);
    return changed;
  }

  /** 40–120 s between callers during 09:00–18:00 UTC, 80–240 s otherwise. */
  private inboundGap(campaign: CampaignRecord, at: number): number {
    const rng = rngFor(this.env.options.seed, campaign.id, 'gap', campaign.inboundCount);
    const hour = new Date(at).getUTCHours();
    return hour >= 9 && hour < 18 ? intBetween(rng, 40_000, 120_000) : intBetween(rng, 80_000, 240_000);
  }

  /** Moves one call through the phases now due; true when something changed. */
  private advance(l: Live, now: number): boolean {
    const { orgId, call } = l;
    const plan = call.plan;
    if (!plan) {
      this.live.delete(call.id);
      return false;
    }
    let changed = false;
    if (call.status === 'initiated' && now >= plan.ringAt) {
      call.ringingAt = this.env.clock.iso(plan.ringAt);
      this.setStatus(orgId, call, 'ringing');
      changed = true;
    }
    if (call.status === 'ringing') {
      if (plan.connectAt !== null && now >= plan.connectAt) {
        call.answeredAt = this.env.clock.iso(plan.connectAt);
        this.setStatus(orgId, call, 'in_progress');
        this.emit(orgId, call, 'call.started', {
          status: 'in_progress',
          direction: call.direction,
          phoneNumber: call.phoneNumber,
          calleeName: call.calleeName,
          campaignId: call.campaignId,
          agentId: call.agentId,
          agentVersion: call.agentVersion,
        });
        changed = true;
      } else if (plan.connectAt === null && now >= plan.endAt) {
        call.failureReason = call.outcome === 'busy' ? 'busy' : call.outcome === 'missed' ? 'missed' : 'no_answer';
        this.end(orgId, call, 'failed', plan.endAt);
        changed = true;
      }
    }
    if (call.status === 'in_progress') {
      const segments = l.segments ?? (l.segments = this.script(call));
      const connectAt = plan.connectAt!;
      while (call.segmentsSent < segments.length && (now >= plan.endAt || connectAt + segments[call.segmentsSent]!.offsetSeconds * 1000 <= now)) {
        const s = segments[call.segmentsSent]!;
        const prev = segments[call.segmentsSent - 1];
        if (!prev || prev.role !== s.role) this.emit(orgId, call, 'call.voice.updated', { speaking: s.role }, true);
        this.emit(orgId, call, 'call.transcript.updated', { role: s.role, text: s.text, ordinal: s.ordinal, offsetSeconds: s.offsetSeconds }, true);
        call.segmentsSent++;
        changed = true;
      }
      if (now >= plan.endAt) {
        this.emit(orgId, call, 'call.voice.updated', { speaking: 'none' }, true);
        this.end(orgId, call, 'completed', plan.endAt);
        changed = true;
      }
    }
    if (call.status === 'failed') {
      // A call that never connected has no conversation: no analysis, nothing more to do.
      this.live.delete(call.id);
    } else if (call.status === 'completed') {
      if (call.answeredAt && !call.speakerSent && now >= plan.endAt + SPEAKER_DELAY_MS) {
        this.emit(orgId, call, 'intelligence.speaker.identified', this.speaker(orgId, call));
        call.speakerSent = true;
        changed = true;
      }
      if (!call.analyzedAt && now >= plan.endAt + ANALYSIS_DELAY_MS) {
        this.analyse(orgId, call);
        this.live.delete(call.id);
        changed = true;
      } else if (call.analyzedAt) this.live.delete(call.id);
    } else if (call.status === 'cancelled') this.live.delete(call.id);
    if (changed) this.model.callChanged(orgId, call);
    return changed;
  }

  private end(orgId: string, call: CallRecord, status: 'completed' | 'failed', endAt: number): void {
    call.endedAt = this.env.clock.iso(endAt);
    call.duration = status === 'completed' ? call.plannedSeconds : 0;
    call.cost = costOf({ status, duration: call.duration, startedAt: call.startedAt });
    this.setStatus(orgId, call, status);
    this.emit(orgId, call, 'call.ended', { status, durationSeconds: call.duration, engine: call.engine });
    // The campaign may have been deleted meanwhile (its calls live on).
    const campaign = this.model.campaignMap(orgId).get(call.campaignId);
    if (!campaign) return;
    const contacts = this.model.contactsOf(orgId, call.campaignId);
    const contact = call.contactId && call.direction === 'outbound' ? contacts.get(call.contactId) : undefined;
    if (contact && contact.lastCallId === call.id) {
      contact.status = status === 'completed' ? 'called' : 'failed';
      contacts.touch(contact.contactId);
    }
    this.maybeComplete(orgId, campaign);
  }

  /** Writes the analysis on a completed call and publishes call.analysis.completed. */
  analyse(orgId: string, call: CallRecord): void {
    const facts = callFacts(this.env.options.seed, call);
    call.analysis = this.model.intern(analysisCore(facts));
    call.analyzedAt = this.env.clock.iso();
    this.model.callChanged(orgId, call);
    const a = call.analysis;
    this.emit(orgId, call, 'call.analysis.completed', {
      summary: summaryOf(call, facts),
      overallSentiment: a.sentiment.overallSentiment,
      resolved: a.resolution.resolved,
      doNotCallRequested: a.doNotCall.requested,
      crisisDetected: a.crisis.detected,
      legalThreatened: a.legal.threatened,
      callbackRequested: a.callback.callbackRequested,
    });
  }

  private speaker(orgId: string, call: CallRecord): Record<string, unknown> {
    let before = 0;
    for (const c of this.model.calls(orgId))
      if (c.phoneNumber === call.phoneNumber && c.answeredAt && c.id !== call.id && c.createdAt <= call.createdAt) before++;
    if (call.outcome === 'voicemail') return { status: 'unknown', name: '', timesSpokenBefore: before, source: 'voice_match' };
    if (call.contactId) return { status: 'identified', name: call.calleeName, timesSpokenBefore: before, source: 'contact_list' };
    if (call.direction === 'inbound') return { status: 'identified', name: call.calleeName, timesSpokenBefore: before, source: 'self_introduction' };
    return { status: before > 0 ? 'identified' : 'unknown', name: before > 0 ? call.calleeName : '', timesSpokenBefore: before, source: 'voice_match' };
  }

  private setStatus(orgId: string, call: CallRecord, status: CallStatus): void {
    const previousStatus = call.status === status ? null : call.status;
    call.status = status;
    this.model.callChanged(orgId, call);
    this.emit(orgId, call, 'call.status.updated', { status, previousStatus });
  }

  private emit(orgId: string, call: CallRecord, type: string, data: Record<string, unknown>, streamOnly = false): void {
    eventLogFor(this.env).append(orgId, { type, callId: call.id, data, streamOnly });
  }
}

function isActive(s: CallStatus): boolean {
  return s === 'initiated' || s === 'ringing' || s === 'in_progress';
}
