import type { ServerResponse } from 'node:http';
import { DEFAULT_HEARTBEAT_MS, EVENT_TYPES, eventTypeInfo } from '../../spec/event-types.js';
import { HttpError } from '../errors.js';
import type { ModuleEnv } from '../types.js';
import { eventLogFor, type LoggedEvent } from './log.js';

/**
 * Server-sent event streams over the event log: both streams share its id space, so an id seen on
 * one resumes the other. The hub never waits for a slow client; one too far behind is cut off and
 * resumes with Last-Event-ID (src/emulator/README.md).
 */

export const RETRY_MS = 1000;
/** A client this far behind (bytes queued on its socket) is disconnected. */
export const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export type CallExists = (orgId: string, callId: string) => boolean;

interface OpenStream {
  res: ServerResponse;
  /** Frames held while the streams are stalled. */
  held: string[];
  timer: NodeJS.Timeout | undefined;
  close(): void;
}

export class StreamHub {
  private readonly open = new Set<OpenStream>();
  private heartbeatMs = DEFAULT_HEARTBEAT_MS;
  private stalled = false;
  private dropTimer: NodeJS.Timeout | undefined;
  private readonly callChecks: CallExists[] = [];

  constructor(private readonly env: ModuleEnv) {}

  /** Lets a module (calls) declare that a call exists, so its stream opens before its first event. */
  declareCalls(check: CallExists): void {
    this.callChecks.push(check);
  }

  callExists(orgId: string, callId: string): boolean {
    if (this.callChecks.some((c) => c(orgId, callId))) return true;
    return eventLogFor(this.env).hasCall(orgId, callId);
  }

  get openCount(): number {
    return this.open.size;
  }

  get heartbeat(): number {
    return this.heartbeatMs;
  }

  setHeartbeat(ms: number): void {
    this.heartbeatMs = ms;
    for (const s of this.open) this.arm(s);
  }

  setStalled(on: boolean): void {
    this.stalled = on;
    if (!on) {
      for (const s of this.open) {
        const frames = s.held.splice(0);
        if (frames.length) this.write(s, frames.join(''));
        this.arm(s);
      }
    }
  }

  /** Drops every open stream now; with everyMs, again every everyMs (real) until stopDropping. */
  drop(everyMs?: number): void {
    this.stopDropping();
    this.dropAll();
    if (everyMs && everyMs > 0) {
      this.dropTimer = setInterval(() => this.dropAll(), everyMs);
      this.dropTimer.unref();
    }
  }

  stopDropping(): void {
    if (this.dropTimer) clearInterval(this.dropTimer);
    this.dropTimer = undefined;
  }

  private dropAll(): void {
    for (const s of [...this.open]) {
      s.close();
      s.res.destroy();
    }
  }

  closeAll(): void {
    this.stopDropping();
    for (const s of [...this.open]) {
      s.close();
      s.res.end();
      s.res.destroy();
    }
  }

  private arm(s: OpenStream): void {
    if (s.timer) clearInterval(s.timer);
    s.timer = setInterval(() => {
      if (!this.stalled) this.write(s, ': heartbeat\n\n');
    }, this.heartbeatMs);
    s.timer.unref();
  }

  private write(s: OpenStream, chunk: string): void {
    if (s.res.destroyed || s.res.writableEnded) return;
    if (s.res.writableLength > MAX_BUFFERED_BYTES) {
      s.close();
      s.res.destroy();
      return;
    }
    s.res.write(chunk);
  }

  /**
   * Starts a stream on a hijacked response. `filter` decides which events it carries,
   * `view` shapes the outer data object. Validation happened before (no byte sent yet).
   */
  start(opts: {
    res: ServerResponse;
    requestId: string;
    orgId: string;
    afterSeq: number | undefined;
    filter: (e: LoggedEvent) => boolean;
    view: (e: LoggedEvent) => Record<string, unknown>;
  }): void {
    const { res } = opts;
    const log = eventLogFor(this.env);
    let lastSent = opts.afterSeq ?? log.lastSeq(opts.orgId);
    let replaying = true;
    const pending: LoggedEvent[] = [];
    const frame = (e: LoggedEvent) => `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(opts.view(e))}\n\n`;
    const send = (e: LoggedEvent) => {
      if (e.seq <= lastSent || !opts.filter(e)) return;
      lastSent = e.seq;
      const f = frame(e);
      if (this.stalled) stream.held.push(f);
      else this.write(stream, f);
    };
    let closed = false;
    const stream: OpenStream = {
      res,
      held: [],
      timer: undefined,
      close: () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        if (stream.timer) clearInterval(stream.timer);
        stream.held.length = 0;
        this.open.delete(stream);
      },
    };
    // Subscribe first, so nothing appended during the replay is missed; buffer until it is done.
    // Events go out once they are on disk (at once without --data-dir): a client never sees an
    // id that a crash could hand out again.
    const store = this.env.store;
    const unsubscribe = log.subscribe(opts.orgId, (e) => {
      if (replaying) pending.push(e);
      else store.afterDurable(() => send(e));
    });
    this.open.add(stream);
    res.on('close', stream.close);
    res.on('error', stream.close);

    res.writeHead(200, {
      date: this.env.clock.httpDate(),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-request-id': opts.requestId,
      'x-heartbeat-interval': String(this.heartbeatMs),
      // Where this stream starts (the id it resumes after): a client that opened without an id
      // and is dropped before its first event can resume here instead of losing what came between.
      'x-resume-after': String(lastSent),
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    res.socket?.setTimeout(0);
    this.write(stream, `retry: ${RETRY_MS}\n\n`);
    store.afterDurable(() => {
      if (closed) return;
      let replayed = 0;
      if (opts.afterSeq !== undefined) {
        const chunks: string[] = [];
        for (const e of log.since(opts.orgId, opts.afterSeq)) {
          if (!opts.filter(e)) continue;
          lastSent = e.seq;
          chunks.push(frame(e));
          replayed++;
        }
        if (chunks.length) {
          if (this.stalled) stream.held.push(chunks.join(''));
          else this.write(stream, chunks.join(''));
        }
      }
      const comment = `: replayed ${replayed}\n\n`;
      if (this.stalled) stream.held.push(comment);
      else this.write(stream, comment);
      replaying = false;
      for (const e of pending.splice(0)) store.afterDurable(() => send(e));
    });
    this.arm(stream);
  }
}

const hubs = new WeakMap<ModuleEnv, StreamHub>();

/** The stream hub of an emulator (the calls module declares its calls here). */
export function streamHubFor(env: ModuleEnv): StreamHub {
  let hub = hubs.get(env);
  if (!hub) {
    hub = new StreamHub(env);
    hubs.set(env, hub);
  }
  return hub;
}

/** Parses `types` (comma-separated, blanks ignored): unknown → 400; stream-only on the org stream → 400. */
export function parseTypes(raw: string | undefined, orgStream: boolean): Set<string> | undefined {
  if (raw === undefined) return undefined;
  const names = raw
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (names.length === 0) return undefined;
  const known = EVENT_TYPES.map((t) => t.type);
  for (const n of names) {
    const info = eventTypeInfo(n);
    if (!info) {
      throw new HttpError(400, 'unknown_event_type', `types: unknown event type "${n}" (known: ${known.join(', ')})`, [
        { field: 'types', message: `unknown event type ${n}` },
      ]);
    }
    if (orgStream && info.streamOnly) {
      throw new HttpError(
        400,
        'stream_only_type',
        `types: "${n}" is carried by the call stream only (GET /api/v1/calls/{callId}/events), not the organization stream`,
        [{ field: 'types', message: `${n} is stream-only` }],
      );
    }
  }
  return new Set(names);
}

/** The resume point: `lastEventId` query wins over the Last-Event-ID header; a decimal integer ≥ 0. */
export function parseResume(query: string | undefined, header: string | string[] | undefined): number | undefined {
  const h = Array.isArray(header) ? header[0] : header;
  const raw = query !== undefined && query !== '' ? query : h;
  if (raw === undefined || raw === '') return undefined;
  const s = raw.trim();
  let ok = s.length > 0 && s.length <= 16;
  for (const ch of s) if (ch < '0' || ch > '9') ok = false;
  if (!ok) {
    throw new HttpError(400, 'validation_error', `lastEventId: "${raw}" is not an event id (a decimal integer of at least 0)`, [
      { field: 'lastEventId', message: 'not a decimal integer' },
    ]);
  }
  return Number(s);
}
