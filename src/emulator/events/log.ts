import type { Collection } from '../store.js';
import type { ModuleEnv } from '../types.js';

/**
 * The organization's event log, one monotonic id space per organization: the streams and the
 * webhook dispatcher all read it, so every consumer sees the same ids in the same order.
 * Retention and size limits: src/emulator/README.md.
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

/** The retained events of one organization in id order: appended at the end, pruned from the head. */
interface Window {
  events: LoggedEvent[];
  head: number;
}

export class EventLog {
  private readonly listeners = new Map<string, Set<EventListener>>();
  private readonly windows = new Map<string, Window>();

  constructor(private readonly env: ModuleEnv) {}

  /** Per organization, the events in order (the store's collection: persistence). */
  private events(orgId: string): Collection<LoggedEvent> {
    return this.env.store.collection<LoggedEvent>(orgId, EVENTS);
  }

  /** The same events in an array, for replays that start at an id (built from the store once). */
  private window(orgId: string): Window {
    let w = this.windows.get(orgId);
    if (!w) {
      w = { events: [...this.events(orgId).values()], head: 0 };
      this.windows.set(orgId, w);
    }
    return w;
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
    const w = this.window(orgId);
    events.set(event.id, event);
    w.events.push(event);
    this.prune(events, w);
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

  /** Events after `afterSeq` still retained, oldest first (found by binary search: a replay reads only what it sends). */
  since(orgId: string, afterSeq: number): LoggedEvent[] {
    const w = this.window(orgId);
    let lo = w.head;
    let hi = w.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (w.events[mid]!.seq <= afterSeq) lo = mid + 1;
      else hi = mid;
    }
    return w.events.slice(lo);
  }

  /** Whether some retained event is about the call. */
  hasCall(orgId: string, callId: string): boolean {
    const w = this.window(orgId);
    for (let i = w.head; i < w.events.length; i++) if (w.events[i]!.callId === callId) return true;
    return false;
  }

  /** The oldest retained sequence number (undefined when the log is empty). */
  oldestSeq(orgId: string): number | undefined {
    const w = this.window(orgId);
    return w.events[w.head]?.seq;
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

  private prune(events: Collection<LoggedEvent>, w: Window): void {
    const cutoff = this.env.clock.nowMs() - RETENTION_MS;
    while (w.head < w.events.length) {
      const e = w.events[w.head]!;
      if (w.events.length - w.head <= MAX_EVENTS && Date.parse(e.occurredAt) >= cutoff) break;
      events.delete(e.id);
      w.head++;
    }
    // The array drops its pruned head once it is half of it.
    if (w.head > 1024 && w.head * 2 > w.events.length) {
      w.events = w.events.slice(w.head);
      w.head = 0;
    }
  }
}
