import { setTimeout as sleep } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';
import { AuthRequiredError } from '../errors.js';
import type { ApiClient } from './client.js';
import { ApiError } from './errors.js';
import { authSchemeFor } from '../spec/groups.js';
import { DEFAULT_HEARTBEAT_MS } from '../spec/event-types.js';

/**
 * A server-sent event stream (document 1) as an async iterable that reconnects by itself,
 * resuming after the last id and never yielding an id twice; a 401 or another 4xx ends it, the
 * rest is retried for as long as the caller wants (src/api/README.md).
 */

export interface StreamEvent<T = unknown> {
  /** The SSE id (the organization's event sequence number on this API). */
  id: string;
  /** The SSE event name: the event type. */
  type: string;
  /** The parsed JSON data object (the envelope); the raw text when it is not JSON. Parsed on first read. */
  readonly data: T;
  /** The data field as received (one line of JSON on this API). */
  raw: string;
}

/** An event whose JSON is parsed only when `data` is read (a --json tail passes `raw` on as is). */
class LazyEvent<T> implements StreamEvent<T> {
  private parsed?: { value: T };
  constructor(
    readonly id: string,
    readonly type: string,
    readonly raw: string,
  ) {}

  get data(): T {
    if (!this.parsed) {
      let value: unknown = this.raw;
      try {
        value = JSON.parse(this.raw);
      } catch {
        // Not JSON: handed on as text.
      }
      this.parsed = { value: value as T };
    }
    return this.parsed.value;
  }

  toJSON(): { id: string; type: string; data: T } {
    return { id: this.id, type: this.type, data: this.data };
  }
}

export type StreamState =
  /** A connection is open (the first, or a reconnection before its replay is known). */
  | { kind: 'opened'; reconnect: boolean; requestId?: string; heartbeatMs: number }
  /** The first connection has replayed what it was asked to and is live. */
  | { kind: 'live'; replayed: number }
  /** The connection was lost; another is attempted after `retryInMs`. */
  | { kind: 'dropped'; reason: string; retryInMs: number; attempt: number }
  /** A reconnection is live again: `afterMs` since the drop, `replayed` events caught up. */
  | { kind: 'reconnected'; afterMs: number; replayed: number; attempts: number };

export interface EventStreamOptions {
  /** The stream's path, e.g. `/api/v1/events` or apiPath`/api/v1/calls/${id}/events`. */
  path: string;
  /** Only these event types (the server checks the names; an unknown one is a 400). */
  types?: string[];
  /** Resume after this id. */
  lastEventId?: string;
  signal: AbortSignal;
  onState?: (state: StreamState) => void;
  /** Upper bound of the reconnection delay (default 30 s). */
  maxRetryDelayMs?: number;
  /** Overrides the server's heartbeat interval for the silence watchdog (tests). */
  heartbeatMs?: number;
}

const DEFAULT_RETRY_MS = 1_000;
const DEFAULT_MAX_RETRY_DELAY_MS = 30_000;
const SEEN_IDS_KEPT = 10_000;
const STREAM_HEADERS_TIMEOUT_MS = 10_000;

class Dropped extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** The event stream at `path`, reconnecting until the signal aborts or the consumer stops. */
export function openEventStream<T = unknown>(api: ApiClient, opts: EventStreamOptions): AsyncIterable<StreamEvent<T>> {
  return {
    async *[Symbol.asyncIterator]() {
      for await (const batch of streamBatches<T>(api, opts)) yield* batch;
    },
  };
}

/**
 * The same stream, as the batches of events parsed from each chunk received: a consumer that
 * handles a burst synchronously (a --json tail) pays one await per chunk, not one per event.
 */
export function openEventBatches<T = unknown>(api: ApiClient, opts: EventStreamOptions): AsyncIterable<StreamEvent<T>[]> {
  return { [Symbol.asyncIterator]: () => streamBatches<T>(api, opts)[Symbol.asyncIterator]() };
}

async function* streamBatches<T>(api: ApiClient, opts: EventStreamOptions): AsyncGenerator<StreamEvent<T>[]> {
  const dedup = new Dedup();
  let lastEventId = opts.lastEventId;
  let retryMs = DEFAULT_RETRY_MS;
  const maxDelay = opts.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  /** Consecutive connection attempts that failed (reset once a connection is live). */
  let failures = 0;
  let droppedAt: number | undefined;
  let reconnects = 0;
  let everOpened = false;

  for (;;) {
    if (opts.signal.aborted) throw opts.signal.reason;
    const conn = new AbortController();
    const signal = AbortSignal.any([opts.signal, conn.signal]);
    let reason: string;
    let healthy = false;
    try {
      let res;
      try {
        res = await api.stream({
          method: 'GET',
          path: opts.path,
          auth: authSchemeFor(opts.path),
          accept: 'text/event-stream',
          query: { types: opts.types?.length ? opts.types.join(',') : undefined, lastEventId },
          // The server answers a stream at once (errors before any byte); a connection whose
          // answer does not come is given up sooner than a JSON request's.
          timeoutMs: STREAM_HEADERS_TIMEOUT_MS,
          signal,
        });
      } catch (err) {
        if (opts.signal.aborted) throw err;
        if (err instanceof ApiError && !retryable(err.status)) {
          if (err.status === 401) {
            throw new AuthRequiredError(
              `the API refused the key: ${err.message} (HTTP 401${err.requestId ? `, request id ${err.requestId}` : ''})`,
              'run `vap auth login` with a valid key, or set VAP_API_KEY',
            );
          }
          throw err;
        }
        // The first connection's failure is the command's error (the client already retried it);
        // once a stream has been open, the stream keeps coming back.
        if (!everOpened) throw err;
        throw new Dropped(err instanceof ApiError ? `HTTP ${err.status}: ${err.message}` : (err as Error).message);
      }
      if (res.status !== 200 || !/text\/event-stream/i.test(res.contentType ?? '')) {
        (res.body as unknown as { destroy?: () => void }).destroy?.();
        throw new Dropped(`the server answered ${res.status} ${res.contentType ?? 'without a content type'}, not an event stream`);
      }
      everOpened = true;
      // A stream opened without an id says where it starts (x-resume-after): a drop before the
      // first event then resumes from there, and what came in between is not lost.
      if (lastEventId === undefined) {
        const after = headerText(res.headers['x-resume-after']);
        if (after && isDecimal(after)) lastEventId = after;
      }
      const heartbeatMs = opts.heartbeatMs ?? headerMs(res.headers['x-heartbeat-interval']) ?? DEFAULT_HEARTBEAT_MS;
      const reconnect = droppedAt !== undefined;
      opts.onState?.({ kind: 'opened', reconnect, requestId: res.requestId, heartbeatMs });

      // Parsed events wait here between a chunk and the consumer.
      const pending: StreamEvent<T>[] = [];
      let receivedOnThisConnection = 0;
      let liveReported = false;
      const reportLive = (replayed: number) => {
        if (liveReported) return;
        liveReported = true;
        healthy = true;
        failures = 0;
        if (droppedAt !== undefined) {
          reconnects++;
          opts.onState?.({ kind: 'reconnected', afterMs: Date.now() - droppedAt, replayed, attempts: reconnects });
          droppedAt = undefined;
        } else {
          opts.onState?.({ kind: 'live', replayed });
        }
      };
      const parser = createParser({
        onEvent(msg) {
          receivedOnThisConnection++;
          healthy = true;
          failures = 0;
          const id = msg.id ?? '';
          if (id && !dedup.fresh(id)) return;
          pending.push(new LazyEvent<T>(id, msg.event ?? 'message', msg.data));
        },
        onRetry(ms) {
          retryMs = ms;
        },
        onComment(comment) {
          const m = /^\s*replayed\s+(\d+)/.exec(comment);
          if (m) reportLive(Number(m[1]));
          // A heartbeat before any replay count: the server does not send one; count ourselves.
          else if (/^\s*heartbeat/.test(comment)) reportLive(receivedOnThisConnection);
        },
      });
      const decoder = new TextDecoder();
      const body = res.body[Symbol.asyncIterator]();
      let stale = false;
      try {
        for (;;) {
          // The watchdog runs only while waiting on the network, never while the consumer is busy.
          const timer = setTimeout(() => {
            stale = true;
            conn.abort();
          }, heartbeatMs * 2);
          let next: IteratorResult<Uint8Array>;
          try {
            next = await body.next();
          } catch (err) {
            if (opts.signal.aborted) throw err;
            throw new Dropped(stale ? `no data or heartbeat for ${seconds(heartbeatMs * 2)}` : describeNetworkError(err));
          } finally {
            clearTimeout(timer);
          }
          if (next.done) throw new Dropped('the server closed the stream');
          parser.feed(decoder.decode(next.value, { stream: true }));
          if (pending.length === 0) continue;
          const batch = pending.splice(0, pending.length);
          // Resume after the last one handed over (a consumer that stops mid-batch has stopped).
          for (let i = batch.length - 1; i >= 0; i--) {
            if (batch[i]!.id) {
              lastEventId = batch[i]!.id;
              break;
            }
          }
          yield batch;
        }
      } finally {
        conn.abort();
        await body.return?.().catch(() => undefined);
      }
    } catch (err) {
      if (!(err instanceof Dropped)) throw err;
      reason = err.reason;
    }
    if (opts.signal.aborted) throw opts.signal.reason;
    if (!healthy) failures++;
    droppedAt ??= Date.now();
    const delay = backoff(retryMs, healthy ? 0 : failures - 1, maxDelay);
    opts.onState?.({ kind: 'dropped', reason, retryInMs: delay, attempt: failures + 1 });
    await sleep(delay, undefined, { signal: opts.signal });
  }
}

/** Statuses worth another connection: timeouts, rate limits and server failures. */
function retryable(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * The delay before reconnecting after `failures` consecutive failed attempts: the server's
 * `retry:` doubled per failure, capped, then jittered down by up to a half (so that many
 * clients dropped at once do not come back at once).
 */
export function backoff(retryMs: number, failures: number, maxDelayMs: number, random = Math.random): number {
  const exp = Math.min(maxDelayMs, retryMs * 2 ** Math.min(failures, 30));
  return Math.round(exp * (0.5 + random() * 0.5));
}

function headerMs(v: string | string[] | undefined): number | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s || !/^\d+$/.test(s.trim())) return undefined;
  const ms = Number(s);
  return ms > 0 ? ms : undefined;
}

function headerText(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s?.trim() || undefined;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))}s`;
}

function describeNetworkError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  if (e?.code === 'UND_ERR_SOCKET' || e?.message === 'terminated') return 'the connection was reset';
  return e?.code ? `${e.message ?? 'connection error'} (${e.code})` : (e?.message ?? String(err));
}

/**
 * Remembers the ids already yielded. Decimal ids (this API's) are monotonic, so one number
 * is enough; any other id is kept in a bounded set, oldest forgotten first.
 */
class Dedup {
  private high = -1;
  private highBig = -1n;
  private readonly seen = new Set<string>();

  fresh(id: string): boolean {
    if (id.length <= 15 && isDecimal(id)) {
      // Safe integers: compared as numbers (the common case, and cheap).
      const n = Number(id);
      if (n <= this.high || n <= this.highBig) return false;
      this.high = n;
      return true;
    }
    if (id.length <= 30 && isDecimal(id)) {
      const n = BigInt(id);
      if (n <= this.highBig || n <= this.high) return false;
      this.highBig = n;
      return true;
    }
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    if (this.seen.size > SEEN_IDS_KEPT) this.seen.delete(this.seen.values().next().value as string);
    return true;
  }
}

/** Whether a non-empty id is all ASCII digits (a loop: cheaper than a regular expression per event). */
export function isDecimal(id: string): boolean {
  if (id.length === 0) return false;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}
