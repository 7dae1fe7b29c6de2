import type { ModuleEnv } from '../types.js';

/**
 * The organization's event log: every event the emulator publishes (eval runs that
 * end; later calls, transcripts and analyses) is appended here, in one monotonic id
 * space per organization. The streams replay from it and follow it live, and the
 * webhook dispatcher reads it, so every consumer sees the same ids in the same order.
 *
 * Events are kept for RETENTION_MS of simulated time and at most MAX_EVENTS per
 * organization (the oldest go first); they are persisted with the rest of the state.
 */

/** The envelope of document 1, part 2 ("Event envelope"). */
export interface EventEnvelope {
  type: string;
  organizationId: string;
  callId: string | null;
  occurredAt: string;
  data: Record<string, unknown>;
}

export interface LoggedEvent extends EventEnvelope {
  /** The SSE id: the decimal sequence number, monotonic per organization. */
  id: string;
  seq: number;
  /** Stream-only events (transcript segments...) never reach the organization stream or webhooks. */
  streamOnly: boolean;
  /** Real time (Date.now()) at append, for tests and benchmarks that measure latency. */
  realTimeMs: number;
}

export interface NewEvent {
  type: string;
  callId?: string | null;
  data: Record<string, unknown>;
  streamOnly?: boolean;
}

export type EventListener = (event: LoggedEvent) => void;

export const RETENTION_MS = 24 * 60 * 60 * 1000;
export const MAX_EVENTS = 200_000;

const EVENTS = 'events';
const SEQ = 'event-seq';

const logs = new WeakMap<ModuleEnv, EventLog>();

/** The event log of an emulator, shared by every route group. */
export function eventLogFor(env: ModuleEnv): EventLog {
  let log = logs.get(env);
  if (!log) {
    log = new EventLog(env);
    logs.set(env, log);
  }
  return log;
}

export class EventLog {
  private readonly listeners = new Map<string, Set<EventListener>>();

  constructor(private readonly env: ModuleEnv) {}

  /** Per organization, the events in order (the store's Map keeps insertion order). */
  private events(orgId: string): Map<string, LoggedEvent> {
    return this.env.store.collection<LoggedEvent>(orgId, EVENTS);
  }

  /** The last sequence number handed out in the organization (0 when none). */
  lastSeq(orgId: string): number {
    return this.env.store.collection<number>(orgId, SEQ).get('last') ?? 0;
  }

  /** Appends an event, stamps it with the next id and the simulated time, and tells the live listeners. */
  append(orgId: string, input: NewEvent): LoggedEvent {
    const seqs = this.env.store.collection<number>(orgId, SEQ);
    const seq = (seqs.get('last') ?? 0) + 1;
    seqs.set('last', seq);
    const event: LoggedEvent = {
      id: String(seq),
      seq,
      type: input.type,
      organizationId: orgId,
      callId: input.callId ?? null,
      occurredAt: this.env.clock.iso(),
      data: input.data,
      streamOnly: Boolean(input.streamOnly),
      realTimeMs: Date.now(),
    };
    const events = this.events(orgId);
    events.set(event.id, event);
    this.prune(events);
    this.env.store.markDirty();
    for (const fn of this.listeners.get(orgId) ?? []) {
      try {
        fn(event);
      } catch (err) {
        // A broken listener must not stop the publisher or the other listeners.
        this.env.options.log?.(`event listener failed: ${(err as Error).stack ?? String(err)}`);
      }
    }
    return event;
  }

  /** Events after `afterSeq` still retained, oldest first. */
  since(orgId: string, afterSeq: number): LoggedEvent[] {
    const out: LoggedEvent[] = [];
    for (const e of this.events(orgId).values()) if (e.seq > afterSeq) out.push(e);
    return out;
  }

  /** The oldest retained sequence number (undefined when the log is empty). */
  oldestSeq(orgId: string): number | undefined {
    for (const e of this.events(orgId).values()) return e.seq;
    return undefined;
  }

  /** Follows the organization's new events; returns the unsubscribe function. */
  subscribe(orgId: string, listener: EventListener): () => void {
    let set = this.listeners.get(orgId);
    if (!set) {
      set = new Set();
      this.listeners.set(orgId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /** Every retained event of every organization (or one), for the control path. */
  all(orgId?: string): LoggedEvent[] {
    const out: LoggedEvent[] = [];
    for (const [id, events] of this.env.store.allCollections<LoggedEvent>(EVENTS)) {
      if (orgId === undefined || id === orgId) out.push(...events.values());
    }
    return out;
  }

  private prune(events: Map<string, LoggedEvent>): void {
    const cutoff = this.env.clock.nowMs() - RETENTION_MS;
    for (const [id, e] of events) {
      if (events.size <= MAX_EVENTS && Date.parse(e.occurredAt) >= cutoff) break;
      events.delete(id);
    }
  }
}
