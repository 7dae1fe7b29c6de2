import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { eventTypeInfo, EVENT_TYPES } from '../../spec/event-types.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from '../../spec/signature.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../spec/webhooks.js';
import { checkUrl, guardedLookup, UrlRefused } from '../contacts/url-guard.js';
import { badRequest, HttpError, notFound, unprocessable } from '../errors.js';
import { eventLogFor, type LoggedEvent } from '../events/log.js';
import type { Collection } from '../store.js';
import type { ModuleEnv, Org } from '../types.js';

/**
 * Webhook endpoints and their deliveries (document 1, parts 2–5): one delivery per non-stream-only
 * event of the log and enabled endpoint subscribed to it; attempts signed (src/spec/signature.ts),
 * retried with backoff in simulated time, the payload kept encrypted at rest.
 */

/**
 * Waits before each retry (simulated time), counted from when the failed attempt began:
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (Svix's schedule), then 24 h and 24 h, so that a
 * delivery is tried for a little over three days, as Stripe does in live mode.
 */
export const RETRY_WAITS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, 86_400_000, 86_400_000] as const;
export const MAX_ATTEMPTS = RETRY_WAITS_MS.length + 1;
/** An endpoint with failed attempts and no success for this long (simulated) is switched off (Svix: 5 days). */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
export const JITTER = 0.1;
/** What `secretPrefix` shows: the recognisable prefix, none of the secret part. */
export const SECRET_PREFIX = 'whsec_';
export const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_EVENTS_PER_ENDPOINT = 50;

const ENDPOINTS = 'webhook-endpoints';
const DELIVERIES = 'webhook-deliveries';

export interface EndpointRecord {
  id: string;
  name: string;
  url: string;
  events: string[];
  secret: string;
  secretPrefix: string;
  isEnabled: boolean;
  consecutiveFailures: number;
  lastSuccessAt: string | null;
  /** Internal: when the current run of failures began (null after a success or a re-enable). */
  failingSince?: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryRecord {
  id: string;
  endpointId: string;
  eventType: string;
  eventId: string;
  status: DeliveryStatus;
  attemptCount: number;
  responseStatus: number | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  error: string | null;
  /** AES-256-GCM: base64 iv, tag and ciphertext of the JSON body. Never returned. */
  payload: { iv: string; tag: string; data: string };
  /** Order of creation (listing newest first). */
  n: number;
}

export function endpointView(e: EndpointRecord): Record<string, unknown> {
  return {
    id: e.id,
    name: e.name,
    url: e.url,
    events: [...e.events],
    // State files of earlier versions stored 10 characters here; only the prefix is shown.
    secretPrefix: SECRET_PREFIX,
    isEnabled: e.isEnabled,
    consecutiveFailures: e.consecutiveFailures,
    lastSuccessAt: e.lastSuccessAt,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

export function deliveryView(d: DeliveryRecord): Record<string, unknown> {
  return {
    id: d.id,
    eventType: d.eventType,
    eventId: d.eventId,
    status: d.status,
    attemptCount: d.attemptCount,
    responseStatus: d.responseStatus,
    createdAt: d.createdAt,
    lastAttemptAt: d.lastAttemptAt,
    nextAttemptAt: d.nextAttemptAt,
    error: d.error,
  };
}

const services = new WeakMap<ModuleEnv, WebhookService>();

export function webhooksFor(env: ModuleEnv): WebhookService {
  let s = services.get(env);
  if (!s) {
    s = new WebhookService(env);
    services.set(env, s);
  }
  return s;
}

export class WebhookService {
  private readonly key: Buffer;
  private readonly timers = new Map<string, () => void>();
  private readonly unsubscribes: Array<() => void> = [];
  private closed = false;
  private counter = 0;

  constructor(private readonly env: ModuleEnv) {
    this.key = createHash('sha256').update(`vap-emulator:webhook-payloads:${env.options.seed}`).digest();
  }

  private get allowLoopback(): boolean {
    return Boolean(this.env.options.allowLoopbackUrls);
  }

  private endpoints(orgId: string): Collection<EndpointRecord> {
    return this.env.store.collection<EndpointRecord>(orgId, ENDPOINTS);
  }

  /** Every delivery of the organization in creation order (`n` ascending), with a facet per endpoint and per endpoint and status. */
  private deliveries(orgId: string): Collection<DeliveryRecord> {
    return this.env.store.collection<DeliveryRecord>(orgId, DELIVERIES);
  }

  private deliveryIndex(orgId: string) {
    return this.deliveries(orgId).ordered({ endpoint: (d) => d.endpointId, endpointStatus: (d) => `${d.endpointId}|${d.status}` });
  }

  /** Follows every organization's log; resumes deliveries left pending or in flight by a restart. */
  start(): void {
    const log = eventLogFor(this.env);
    for (const org of this.env.orgs) {
      this.unsubscribes.push(log.subscribe(org.id, (e) => this.onEvent(org.id, e)));
      const ds = this.deliveries(org.id);
      for (const d of ds.values()) {
        this.counter = Math.max(this.counter, d.n);
        if (d.status === 'in_flight') {
          d.status = 'pending';
          ds.touch(d.id);
        }
        if (d.status === 'pending') this.schedule(org.id, d);
      }
    }
  }

  stop(): void {
    this.closed = true;
    for (const u of this.unsubscribes.splice(0)) u();
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }

  // ---- endpoints ----

  list(org: Org): readonly EndpointRecord[] {
    return this.endpoints(org.id).ordered().all();
  }

  get(org: Org, id: string): EndpointRecord {
    const e = this.endpoints(org.id).get(id);
    if (!e) throw notFound('webhook endpoint', id);
    return e;
  }

  async create(org: Org, body: unknown): Promise<EndpointRecord> {
    const b = asObject(body);
    const known = ['name', 'url', 'events'];
    const unknown = Object.keys(b).filter((k) => !known.includes(k));
    if (unknown.length)
      throw badRequest(`unknown field ${unknown[0]} (accepted: ${known.join(', ')}; isEnabled is set with PATCH)`, [
        { field: unknown[0], message: 'unknown field' },
      ]);
    for (const k of known) if (!Object.hasOwn(b, k) || b[k] === undefined) throw badRequest(`${k} is required`, [{ field: k, message: 'required' }]);
    const name = checkName(b.name);
    const url = await this.checkEndpointUrl(b.url);
    const events = checkEvents(b.events);
    const now = this.env.clock.iso();
    const secret = newSecret();
    const rec: EndpointRecord = {
      id: this.env.ids.next('we'),
      name,
      url,
      events,
      secret,
      secretPrefix: SECRET_PREFIX,
      isEnabled: true,
      consecutiveFailures: 0,
      lastSuccessAt: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    };
    this.endpoints(org.id).set(rec.id, rec);
    return rec;
  }

  async update(org: Org, id: string, body: unknown): Promise<EndpointRecord> {
    const rec = this.get(org, id);
    const b = asObject(body);
    const known = ['name', 'url', 'events', 'isEnabled'];
    const unknown = Object.keys(b).filter((k) => !known.includes(k));
    if (unknown.length) throw badRequest(`unknown field ${unknown[0]} (accepted: ${known.join(', ')})`, [{ field: unknown[0], message: 'unknown field' }]);
    if (Object.keys(b).length === 0) throw badRequest(`nothing to update: give any of ${known.join(', ')}`);
    const name = b.name === undefined ? undefined : checkName(b.name);
    const url = b.url === undefined ? undefined : await this.checkEndpointUrl(b.url);
    const events = b.events === undefined ? undefined : checkEvents(b.events);
    if (b.isEnabled !== undefined && typeof b.isEnabled !== 'boolean')
      throw badRequest('isEnabled must be true or false', [{ field: 'isEnabled', message: 'not a boolean' }]);
    const current = this.endpoints(org.id).get(id);
    if (!current) throw notFound('webhook endpoint', id); // deleted while the URL was checked
    if (name !== undefined) rec.name = name;
    if (url !== undefined) rec.url = url;
    if (events !== undefined) rec.events = events;
    if (b.isEnabled === true && !rec.isEnabled) {
      rec.isEnabled = true;
      rec.consecutiveFailures = 0;
      rec.failingSince = null;
      const ds = this.deliveries(org.id);
      for (const d of this.deliveryIndex(org.id).page({ facet: 'endpointStatus', values: [`${rec.id}|pending`] }, 0, Number.MAX_SAFE_INTEGER, false)) {
        if (!this.timers.has(d.id)) {
          d.nextAttemptAt = this.env.clock.iso();
          ds.touch(d.id);
          this.schedule(org.id, d);
        }
      }
    } else if (b.isEnabled === false) {
      rec.isEnabled = false;
    }
    rec.updatedAt = this.env.clock.iso();
    this.endpoints(org.id).touch(rec.id);
    return rec;
  }

  rotate(org: Org, id: string): EndpointRecord {
    const rec = this.get(org, id);
    rec.secret = newSecret();
    rec.secretPrefix = SECRET_PREFIX;
    rec.updatedAt = this.env.clock.iso();
    this.endpoints(org.id).touch(rec.id);
    return rec;
  }

  remove(org: Org, id: string): void {
    this.get(org, id);
    this.endpoints(org.id).delete(id);
    const ds = this.deliveries(org.id);
    for (const d of this.deliveryIndex(org.id).page({ facet: 'endpoint', values: [id] }, 0, Number.MAX_SAFE_INTEGER, false)) {
      this.timers.get(d.id)?.();
      this.timers.delete(d.id);
      ds.delete(d.id);
    }
  }

  listDeliveries(org: Org, id: string, opts: { status?: string; limit: number; cursor?: string }): { deliveries: DeliveryRecord[]; nextCursor: string | null } {
    this.get(org, id);
    if (opts.status !== undefined && !DELIVERY_STATUSES.includes(opts.status as DeliveryStatus)) {
      throw badRequest(`status must be one of ${DELIVERY_STATUSES.join(', ')}`, [{ field: 'status', message: 'unknown status' }]);
    }
    let before = Number.MAX_SAFE_INTEGER;
    if (opts.cursor !== undefined && opts.cursor !== '') {
      const decoded = Buffer.from(opts.cursor, 'base64url').toString();
      const m = /^d:(\d+)$/.exec(decoded);
      if (!m) throw badRequest('cursor is not one this server gave (use meta.pagination.nextCursor)', [{ field: 'cursor', message: 'invalid cursor' }]);
      before = Number(m[1]);
    }
    // Positions are creation order (n ascending): the cursor is a position bound, each filter a facet.
    const idx = this.deliveryIndex(org.id);
    const sel = {
      facet: opts.status ? 'endpointStatus' : 'endpoint',
      values: [opts.status ? `${id}|${opts.status}` : id],
      hi: idx.boundary((d) => d.n >= before),
    };
    const page = idx.page(sel, 0, opts.limit + 1, true);
    const more = page.length > opts.limit;
    if (more) page.pop();
    return { deliveries: page, nextCursor: more ? Buffer.from(`d:${page[page.length - 1]!.n}`).toString('base64url') : null };
  }

  private async checkEndpointUrl(raw: unknown): Promise<string> {
    if (typeof raw !== 'string' || raw.trim() === '') throw badRequest('url must be a non-empty string', [{ field: 'url', message: 'not a string' }]);
    if (raw.length > 2048) throw badRequest('url is longer than 2048 characters', [{ field: 'url', message: 'too long' }]);
    let url: URL;
    try {
      url = await checkUrl(raw.trim(), { allowLoopback: this.allowLoopback });
    } catch (err) {
      if (err instanceof UrlRefused) {
        // Allowed without a restart (which would lose an emulator's state): the control path's switch.
        const running =
          !this.allowLoopback && /\bloopback\b/.test(err.message)
            ? '; a running emulator allows it at once after POST /_emulator/webhooks/allow-loopback {"allow": true}'
            : '';
        throw unprocessable('url_refused', `url refused: ${err.message}${running}`, [{ field: 'url', message: err.message }]);
      }
      throw err;
    }
    if (url.username || url.password)
      throw unprocessable('url_refused', 'url refused: credentials in the URL (user:password@) are not allowed', [{ field: 'url', message: 'userinfo' }]);
    return url.toString();
  }

  // ---- dispatch ----

  private onEvent(orgId: string, e: LoggedEvent): void {
    if (e.streamOnly || this.closed) return;
    const info = eventTypeInfo(e.type);
    if (info && !info.delivery.includes('webhook')) return;
    const body = JSON.stringify({ id: e.id, type: e.type, organizationId: e.organizationId, callId: e.callId, occurredAt: e.occurredAt, data: e.data });
    for (const ep of this.endpoints(orgId).values()) {
      if (!ep.isEnabled || !ep.events.includes(e.type)) continue;
      const now = this.env.clock.iso();
      const d: DeliveryRecord = {
        id: this.env.ids.next('whd'),
        endpointId: ep.id,
        eventType: e.type,
        eventId: e.id,
        status: 'pending',
        attemptCount: 0,
        responseStatus: null,
        createdAt: now,
        lastAttemptAt: null,
        nextAttemptAt: now,
        error: null,
        payload: this.encrypt(body),
        n: ++this.counter,
      };
      this.deliveries(orgId).set(d.id, d);
      this.schedule(orgId, d);
    }
  }

  private schedule(orgId: string, d: DeliveryRecord): void {
    if (this.closed) return;
    this.timers.get(d.id)?.();
    const due = d.nextAttemptAt ? Date.parse(d.nextAttemptAt) - this.env.clock.nowMs() : 0;
    const cancel = this.env.clock.after(Math.max(0, due), () => {
      this.timers.delete(d.id);
      void this.attempt(orgId, d.id);
    });
    this.timers.set(d.id, cancel);
  }

  private async attempt(orgId: string, deliveryId: string): Promise<void> {
    if (this.closed) return;
    const ds = this.deliveries(orgId);
    const d = ds.get(deliveryId);
    if (d?.status !== 'pending') return;
    const ep = this.endpoints(orgId).get(d.endpointId);
    if (!ep) return; // deleted: abandoned
    if (!ep.isEnabled) return; // waits until re-enabled (update() reschedules)
    d.status = 'in_flight';
    d.attemptCount++;
    d.lastAttemptAt = this.env.clock.iso();
    d.nextAttemptAt = null;
    ds.touch(d.id);
    // The receiver sees the event only once it is on disk (its id is never handed out again).
    try {
      await this.env.store.commit();
    } catch {
      // The data directory failed: every response says so; the attempt goes ahead.
    }
    if (this.closed || ds.get(d.id) !== d) return;

    let outcome: { ok: boolean; retry: boolean; status: number | null; error: string | null };
    try {
      await checkUrl(ep.url, { allowLoopback: this.allowLoopback });
      const body = this.decrypt(d.payload);
      const status = await post(
        ep.url,
        body,
        {
          'content-type': 'application/json',
          'user-agent': 'vap-emulator-webhooks/1',
          [EVENT_ID_HEADER]: d.eventId,
          // Real unix seconds: the receiver checks it against its own clock.
          [SIGNATURE_HEADER]: signatureHeader(ep.secret, body, Math.floor(Date.now() / 1000)),
        },
        this.allowLoopback,
      );
      if (status >= 200 && status < 300) outcome = { ok: true, retry: false, status, error: null };
      else if (status >= 400 && status < 500 && status !== 408 && status !== 429)
        outcome = { ok: false, retry: false, status, error: `refused: HTTP ${status}` };
      else outcome = { ok: false, retry: true, status, error: `HTTP ${status}` };
    } catch (err) {
      if (err instanceof UrlRefused) outcome = { ok: false, retry: false, status: null, error: `url refused: ${err.message}` };
      else outcome = { ok: false, retry: true, status: null, error: (err as Error).message || String(err) };
    }
    if (this.closed) return;
    // The endpoint or delivery may have gone while the attempt was under way.
    if (!this.deliveries(orgId).has(d.id)) return;
    const now = this.env.clock.iso();
    if (outcome.status !== null) d.responseStatus = outcome.status;
    d.error = outcome.error;
    const live = this.endpoints(orgId).get(ep.id);
    if (outcome.ok) {
      d.status = 'succeeded';
      if (live) {
        live.consecutiveFailures = 0;
        live.lastSuccessAt = now;
        live.failingSince = null;
      }
    } else {
      if (live) {
        // Every failed attempt counts, refusals included; the endpoint goes off once it has
        // failed with no success for DISABLE_AFTER_MS (a burst failing at once never does).
        live.consecutiveFailures++;
        const since = live.failingSince ?? d.lastAttemptAt!;
        live.failingSince = since;
        if (live.isEnabled && Date.parse(d.lastAttemptAt!) - Date.parse(since) >= DISABLE_AFTER_MS) {
          live.isEnabled = false;
          live.updatedAt = now;
        }
      }
      if (!outcome.retry) d.status = 'failed';
      else if (d.attemptCount >= MAX_ATTEMPTS) d.status = 'dead_lettered';
      else {
        d.status = 'pending';
        // Counted from when the failed attempt began (an attempt slower than the wait retries at once).
        d.nextAttemptAt = this.env.clock.iso(Date.parse(d.lastAttemptAt!) + backoffMs(d.attemptCount));
        this.schedule(orgId, d);
      }
    }
    ds.touch(d.id);
    if (live) this.endpoints(orgId).touch(live.id);
  }

  private encrypt(text: string): DeliveryRecord['payload'] {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([c.update(text, 'utf8'), c.final()]);
    return { iv: iv.toString('base64'), tag: c.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  private decrypt(p: DeliveryRecord['payload']): string {
    const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(p.iv, 'base64'));
    d.setAuthTag(Buffer.from(p.tag, 'base64'));
    return Buffer.concat([d.update(Buffer.from(p.data, 'base64')), d.final()]).toString('utf8');
  }
}

/** The wait before attempt n+1 after n failed attempts (RETRY_WAITS_MS), ±10% jitter (simulated time). */
export function backoffMs(failedAttempts: number, rand = Math.random): number {
  const base = RETRY_WAITS_MS[Math.min(failedAttempts, RETRY_WAITS_MS.length) - 1]!;
  return Math.round(base * (1 - JITTER + 2 * JITTER * rand()));
}

function post(rawUrl: string, body: string, headers: Record<string, string>, allowLoopback: boolean): Promise<number> {
  const url = new URL(rawUrl);
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup(allowLoopback) as never,
        timeout: ATTEMPT_TIMEOUT_MS,
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}

function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

function asObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the body must be a JSON object');
  return body as Record<string, unknown>;
}

function checkName(v: unknown): string {
  if (typeof v !== 'string' || v.trim().length < 1 || v.length > 200)
    throw badRequest('name must be a string of 1 to 200 characters', [{ field: 'name', message: '1..200 characters' }]);
  return v.trim();
}

function checkEvents(v: unknown): string[] {
  if (!Array.isArray(v) || v.length < 1 || v.length > MAX_EVENTS_PER_ENDPOINT || v.some((x) => typeof x !== 'string')) {
    throw badRequest(`events must be an array of 1 to ${MAX_EVENTS_PER_ENDPOINT} event types`, [{ field: 'events', message: 'array of 1..50 strings' }]);
  }
  const out: string[] = [];
  for (const raw of v as string[]) {
    const t = raw.trim();
    const info = eventTypeInfo(t);
    if (!info) {
      throw new HttpError(
        400,
        'unknown_event_type',
        `events: unknown event type "${t}" (known: ${EVENT_TYPES.filter((x) => x.delivery.includes('webhook'))
          .map((x) => x.type)
          .join(', ')})`,
        [{ field: 'events', message: `unknown event type ${t}` }],
      );
    }
    if (!info.delivery.includes('webhook')) {
      throw unprocessable(
        'event_not_deliverable',
        `events: "${t}" is delivered on the call stream only (GET /api/v1/calls/{callId}/events), never to a webhook`,
        [{ field: 'events', message: `${t} is stream-only` }],
      );
    }
    if (!out.includes(t)) out.push(t);
  }
  return out;
}
