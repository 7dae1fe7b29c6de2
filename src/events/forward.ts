import { setTimeout as sleep } from 'node:timers/promises';
import type { StreamEvent } from '../api/sse.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from '../spec/signature.js';
import type { EventRecord } from './render.js';

/**
 * `webhooks listen`'s forwarder: each event of the organization stream is POSTed to a
 * local URL the way the platform delivers a webhook (the same body, the same headers,
 * signed with the local secret), and retried on failure with the same event id.
 */

export interface ForwardAttempt {
  eventId: string;
  type: string;
  attempt: number;
  /** The receiver's status; undefined when it gave no HTTP answer. */
  status?: number;
  /** The network error or timeout when there was no answer. */
  error?: string;
  ms: number;
  /** What happens next: done (2xx), retry (after `retryInMs`), refused (4xx, not retried), gave_up. */
  outcome: 'delivered' | 'retry' | 'refused' | 'gave_up';
  retryInMs?: number;
}

export interface ForwardOptions {
  url: string;
  secret: string;
  userAgent: string;
  signal: AbortSignal;
  /** Attempts per event before giving up on it (default 8, as the platform). */
  maxAttempts?: number;
  /** Per-attempt timeout (default 10 s, as the platform). */
  timeoutMs?: number;
  /** First retry delay (default 1 s), doubled per attempt up to maxDelayMs (default 30 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  onAttempt: (a: ForwardAttempt) => Promise<void> | void;
  now?: () => number;
}

/** The delivery body of document 1 ("Webhook delivery"): the event with its id. */
export function deliveryBody(event: StreamEvent, rec: EventRecord): string {
  const env = (event.data && typeof event.data === 'object' ? event.data : {}) as Record<string, unknown>;
  return JSON.stringify({
    id: event.id,
    type: rec.type,
    organizationId: env.organizationId ?? null,
    callId: rec.callId,
    occurredAt: env.occurredAt ?? null,
    data: rec.data,
  });
}

/** Retryable as the platform does: 408, 429, 5xx and no answer at all. */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** Forwards one event until the receiver takes it, refuses it, or the attempts run out. */
export async function forwardEvent(event: StreamEvent, rec: EventRecord, opts: ForwardOptions): Promise<ForwardAttempt> {
  const body = deliveryBody(event, rec);
  const max = opts.maxAttempts ?? 8;
  const base = opts.baseDelayMs ?? 1000;
  const cap = opts.maxDelayMs ?? 30_000;
  for (let attempt = 1; ; attempt++) {
    const started = Date.now();
    const t = Math.floor((opts.now?.() ?? Date.now()) / 1000);
    let status: number | undefined;
    let error: string | undefined;
    // One controller per attempt, linked to Ctrl-C and unlinked after (AbortSignal.any keeps
    // every signal it makes reachable on Node 20: a leak per forwarded event in a long listen).
    const attemptAbort = new AbortController();
    const timeoutMs = opts.timeoutMs ?? 10_000;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      attemptAbort.abort();
    }, timeoutMs);
    const onStop = () => attemptAbort.abort(opts.signal.reason);
    opts.signal.addEventListener('abort', onStop, { once: true });
    try {
      const res = await fetch(opts.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': opts.userAgent,
          [EVENT_ID_HEADER]: event.id,
          // Signed for each attempt, as the platform does: the timestamp is the attempt's.
          [SIGNATURE_HEADER]: signatureHeader(opts.secret, body, t),
        },
        body,
        redirect: 'manual',
        signal: attemptAbort.signal,
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch (err) {
      if (opts.signal.aborted) throw err;
      const e = err as Error & { cause?: { code?: string; message?: string } };
      error = timedOut ? `no answer within ${Math.round(timeoutMs / 1000)}s` : (e.cause?.code ?? e.cause?.message ?? e.message);
    } finally {
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onStop);
    }
    const ms = Date.now() - started;
    const common = { eventId: event.id, type: rec.type, attempt, status, error, ms };
    if (status !== undefined && status >= 200 && status < 300) {
      const a: ForwardAttempt = { ...common, outcome: 'delivered' };
      await opts.onAttempt(a);
      return a;
    }
    if (status !== undefined && !retryableStatus(status)) {
      const a: ForwardAttempt = { ...common, outcome: 'refused' };
      await opts.onAttempt(a);
      return a;
    }
    if (attempt >= max) {
      const a: ForwardAttempt = { ...common, outcome: 'gave_up' };
      await opts.onAttempt(a);
      return a;
    }
    const exp = Math.min(cap, base * 2 ** (attempt - 1));
    const retryInMs = Math.round(exp * (0.8 + Math.random() * 0.4));
    await opts.onAttempt({ ...common, outcome: 'retry', retryInMs });
    await sleep(retryInMs, undefined, { signal: opts.signal });
  }
}
