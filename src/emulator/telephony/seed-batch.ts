import { analysisCore, costOf } from './analysis.js';
import { randomPerson } from './people.js';
import { rngFor, uuidFrom } from './rng.js';
import { drawOutcome, drawPersona, drawSeconds, factsFor } from './script.js';
import type { AnalysisCore, CallRecord, Direction } from './types.js';

/**
 * A batch of seeded historical calls is stored as its parameters only: its calls, which never
 * change, are a pure function of them and the emulator seed, regenerated on load, so that the
 * state file and its whole-state writes stay small.
 */
export interface SeedBatch {
  id: string;
  campaignId: string;
  direction: Direction;
  agentId: string;
  agentVersion: number | null;
  agentName: string;
  engine: string;
  topic: string;
  count: number;
  /** Calls are spread over the SPAN_MS before this (simulated ms). */
  endMs: number;
  analysed: boolean;
  /** Number of calls the organization had when the batch was made (part of the stream's key). */
  streamKey: number;
}

export const SPAN_MS = 30 * 86_400_000;

export function generateBatch(
  seed: number,
  orgId: string,
  b: SeedBatch,
  intern: (a: AnalysisCore) => AnalysisCore,
  taken: (id: string) => boolean,
): CallRecord[] {
  const rng = rngFor(seed, orgId, b.campaignId, 'seed', b.streamKey);
  const iso = (ms: number) => new Date(ms).toISOString();
  const calls: CallRecord[] = new Array(b.count);
  const fresh = new Set<string>();
  for (let i = 0; i < b.count; i++) {
    let id = uuidFrom(rng);
    while (taken(id) || fresh.has(id)) id = uuidFrom(rng);
    fresh.add(id);
    const persona = drawPersona(rng);
    const outcome = drawOutcome(rng, b.direction);
    const seconds = drawSeconds(rng, outcome, persona);
    const person = randomPerson(rng);
    const created = Math.round(b.endMs - SPAN_MS + (SPAN_MS * (i + rng())) / b.count);
    const ringAt = created + 1000 + Math.floor(rng() * 1000);
    const connects = outcome === 'answered' || outcome === 'voicemail';
    const connectAt = connects ? ringAt + 3000 + Math.floor(rng() * 12_000) : null;
    const endAt = connectAt !== null ? connectAt + seconds * 1000 : ringAt + 15_000 + Math.floor(rng() * 15_000);
    const status = connects ? 'completed' : 'failed';
    const call: CallRecord = {
      id,
      campaignId: b.campaignId,
      phoneNumber: person.phoneNumber,
      calleeName: person.name,
      status,
      direction: b.direction,
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
      agentId: b.agentId,
      agentVersion: b.agentVersion,
      runId: null,
      cost: 0,
      persona,
      outcome,
      plannedSeconds: seconds,
      topic: b.topic,
      agentName: b.agentName,
      engine: b.engine,
      plan: { ringAt, connectAt, endAt },
      segmentsSent: 0,
      speakerSent: true,
      // Only a call that connected is analysed.
      analyzedAt: b.analysed && connects ? iso(endAt + 120_000) : null,
      analysis: null,
      seeded: true,
    };
    call.cost = costOf(call);
    if (b.analysed && connects) call.analysis = intern(analysisCore(factsFor(seed, id, persona, outcome)));
    calls[i] = call;
  }
  return calls;
}
