import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { eventTypeInfo, EVENT_TYPES } from '../../api/event-types.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from '../../api/signature.js';
import { checkUrl, guardedLookup, UrlRefused } from '../contacts/url-guard.js';
import { badRequest, HttpError, notFound, unprocessable } from '../errors.js';
import { eventLogFor, type LoggedEvent } from '../events/log.js';
import type { ModuleEnv, Org } from '../types.js';

/**
 * Webhook endpoints and their deliveries (document 1, parts 2–5). The dispatcher follows
 * the event log (the hub) and creates one delivery per (non-stream-only event, enabled
 * endpoint subscribed to its type); attempts are signed with src/api/signature.ts, retried
 * with exponential backoff in simulated time, and the payload is kept encrypted at rest.
 */

export const MAX_ATTEMPTS = 8;
export const DISABLE_AFTER = 10;
export const BACKOFF_BASE_MS = 10_000;
export const BACKOFF_FACTOR = 3;
export const JITTER = 0.1;
export const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_EVENTS_PER_ENDPOINT = 50;

const ENDPOINTS = 'webhook-endpoints';
const DELIVERIES = 'webhook-deliveries';

export type DeliveryStatus = 'pending' | 'in_flight' | 'succeeded' | 'failed' | 'dead_lettered';
export const DELIVERY_STATUSES: DeliveryStatus[] = ['pending', 'in_flight', 'succeeded', 'failed', 'dead_lettered'];

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
  const { secret: _secret, ...rest } = e;
  return { ...rest, events: [...e.events] };
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

  private endpoints(orgId: string): Map<string, EndpointRecord> {
    return this.env.store.collection<EndpointRecord>(orgId, ENDPOINTS);
  }

  private deliveries(orgId: string): Map<string, DeliveryRecord> {
    return this.env.store.collection<DeliveryRecord>(orgId, DELIVERIES);
  }

  /** Follows every organization's log; resumes deliveries left pending or in flight by a restart. */
  start(): void {
    const log = eventLogFor(this.env);
    for (const org of this.env.orgs) {
      this.unsubscribes.push(log.subscribe(org.id, (e) => this.onEvent(org.id, e)));
      for (const d of this.deliveries(org.id).values()) {
        this.counter = Math.max(this.counter, d.n);
        if (d.status === 'in_flight') d.status = 'pending';
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

  list(org: Org): EndpointRecord[] {
    return [...this.endpoints(org.id).values()];
  }

  get(org: Org, id: string): EndpointRecord {
    const e = this.endpoints(org.id).get(id);
    if (!e) throw notFound('webhook endpoint', id);
    return e;
  }

  async create(org: Org, body: unknown): Promise<EndpointRecord> {
    const b = asObject(body);
    for (const k of ['name', 'url', 'events']) if (b[k] === undefined) throw badRequest(`${k} is required`, [{ field: k, message: 'required' }]);
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
      secretPrefix: secret.slice(0, 10),
      isEnabled: true,
      consecutiveFailures: 0,
      lastSuccessAt: null,
      createdAt: now,
      updatedAt: now,
    };
    this.endpoints(org.id).set(rec.id, rec);
    this.env.store.markDirty();
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
    if (b.isEnabled !== undefined && typeof b.isEnabled !== 'boolean') throw badRequest('isEnabled must be true or false', [{ field: 'isEnabled', message: 'not a boolean' }]);
    const current = this.endpoints(org.id).get(id);
    if (!current) throw notFound('webhook endpoint', id); // deleted while the URL was checked
    if (name !== undefined) rec.name = name;
    if (url !== undefined) rec.url = url;
    if (events !== undefined) rec.events = events;
    if (b.isEnabled === true && !rec.isEnabled) {
      rec.isEnabled = true;
      rec.consecutiveFailures = 0;
      for (const d of this.deliveries(org.id).values()) {
        if (d.endpointId === rec.id && d.status === 'pending' && !this.timers.has(d.id)) {
          d.nextAttemptAt = this.env.clock.iso();
          this.schedule(org.id, d);
        }
      }
    } else if (b.isEnabled === false) {
      rec.isEnabled = false;
    }
    rec.updatedAt = this.env.clock.iso();
    this.env.store.markDirty();
    return rec;
  }

  rotate(org: Org, id: string): EndpointRecord {
    const rec = this.get(org, id);
    rec.secret = newSecret();
    rec.secretPrefix = rec.secret.slice(0, 10);
    rec.updatedAt = this.env.clock.iso();
    this.env.store.markDirty();
    return rec;
  }

  remove(org: Org, id: string): void {
    this.get(org, id);
    this.endpoints(org.id).delete(id);
    const ds = this.deliveries(org.id);
    for (const [did, d] of ds) {
      if (d.endpointId !== id) continue;
      this.timers.get(did)?.();
      this.timers.delete(did);
      ds.delete(did);
    }
    this.env.store.markDirty();
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
    const all = [...this.deliveries(org.id).values()]
      .filter((d) => d.endpointId === id && d.n < before && (!opts.status || d.status === opts.status))
      .sort((a, b) => b.n - a.n);
    const page = all.slice(0, opts.limit);
    const more = all.length > opts.limit;
    return { deliveries: page, nextCursor: more ? Buffer.from(`d:${page[page.length - 1]!.n}`).toString('base64url') : null };
  }

  private async checkEndpointUrl(raw: unknown): Promise<string> {
    if (typeof raw !== 'string' || raw.trim() === '') throw badRequest('url must be a non-empty string', [{ field: 'url', message: 'not a string' }]);
    if (raw.length > 2048) throw badRequest('url is longer than 2048 characters', [{ field: 'url', message: 'too long' }]);
    let url: URL;
    try {
      url = await checkUrl(raw.trim(), { allowLoopback: this.allowLoopback });
    } catch (err) {
      if (err instanceof UrlRefused) throw unprocessable('url_refused', `url refused: ${err.message}`, [{ field: 'url', message: err.message }]);
      throw err;
    }
    if (url.username || url.password) throw unprocessable('url_refused', 'url refused: credentials in the URL (user:password@) are not allowed', [{ field: 'url', message: 'userinfo' }]);
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
    this.env.store.markDirty();
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
    const d = this.deliveries(orgId).get(deliveryId);
    if (!d || d.status !== 'pending') return;
    const ep = this.endpoints(orgId).get(d.endpointId);
    if (!ep) return; // deleted: abandoned
    if (!ep.isEnabled) return; // waits until re-enabled (update() reschedules)
    d.status = 'in_flight';
    d.attemptCount++;
    d.lastAttemptAt = this.env.clock.iso();
    d.nextAttemptAt = null;
    this.env.store.markDirty();

    let outcome: { ok: boolean; retry: boolean; status: number | null; error: string | null };
    try {
      await checkUrl(ep.url, { allowLoopback: this.allowLoopback });
      const body = this.decrypt(d.payload);
      const status = await post(ep.url, body, {
        'content-type': 'application/json',
        'user-agent': 'vap-emulator-webhooks/1',
        [EVENT_ID_HEADER]: d.eventId,
        // Real unix seconds: the receiver checks it against its own clock.
        [SIGNATURE_HEADER]: signatureHeader(ep.secret, body, Math.floor(Date.now() / 1000)),
      }, this.allowLoopback);
      if (status >= 200 && status < 300) outcome = { ok: true, retry: false, status, error: null };
      else if (status >= 400 && status < 500 && status !== 408 && status !== 429) outcome = { ok: false, retry: false, status, error: `refused: HTTP ${status}` };
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
      }
    } else {
      if (live) {
        live.consecutiveFailures++;
        if (live.consecutiveFailures >= DISABLE_AFTER && live.isEnabled) {
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
    this.env.store.markDirty();
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

/** The wait before attempt n+1 after n failed attempts: 10 s × 3^(n−1), ±10% jitter (simulated time). */
export function backoffMs(failedAttempts: number, rand = Math.random): number {
  const base = BACKOFF_BASE_MS * BACKOFF_FACTOR ** (failedAttempts - 1);
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
  if (typeof v !== 'string' || v.trim().length < 1 || v.length > 200) throw badRequest('name must be a string of 1 to 200 characters', [{ field: 'name', message: '1..200 characters' }]);
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
      throw new HttpError(400, 'unknown_event_type', `events: unknown event type "${t}" (known: ${EVENT_TYPES.filter((x) => x.delivery.includes('webhook')).map((x) => x.type).join(', ')})`, [
        { field: 'events', message: `unknown event type ${t}` },
      ]);
    }
    if (!info.delivery.includes('webhook')) {
      throw unprocessable('event_not_deliverable', `events: "${t}" is delivered on the call stream only (GET /api/v1/calls/{callId}/events), never to a webhook`, [
        { field: 'events', message: `${t} is stream-only` },
      ]);
    }
    if (!out.includes(t)) out.push(t);
  }
  return out;
}
