import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// The emulator's webhook endpoints and deliveries, over real HTTP, with a local receiver.
// Time scale 20,000: the first retries (5 s, 5 min, 30 min simulated) take milliseconds; the
// schedule's days are watched on an emulator of its own, faster still.

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

let emu: TestEmulator;
let strict: TestEmulator;
let receiver: http.Server;
let base: string;
let received: Received[] = [];
/** What the receiver answers, per path (default 200): a status, or one per attempt (1-based). */
const answers = new Map<string, number | ((attempt: number) => number)>();

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body, at: Date.now() });
      const a = answers.get(req.url ?? '') ?? 200;
      res.statusCode = typeof a === 'number' ? a : a(received.filter((r) => r.path === req.url).length);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  emu = await startTestEmulator({ allowLoopbackUrls: true, timeScale: 20_000 });
  strict = await startTestEmulator();
});
afterAll(async () => {
  await emu?.close();
  await strict?.close();
  await new Promise((r) => receiver.close(r));
});
beforeEach(() => {
  received = [];
  answers.clear();
});

async function until(what: string, pred: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function createEndpoint(path: string, events = ['call.ended'], e = emu) {
  const r = await e.api('POST', '/api/v1/webhook-endpoints', { name: `hook ${path}`, url: `${base}${path}`, events });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; secret: string; secretPrefix: string; url: string; isEnabled: boolean };
}

async function publish(type = 'call.ended', extra: Record<string, unknown> = {}, e = emu) {
  return e.control<{ firstId: string; lastId: string }>('POST', '/events', { type, callId: 'call_w', data: { status: 'completed' }, ...extra });
}

async function deliveries(id: string, query = '', e = emu) {
  const r = await e.api('GET', `/api/v1/webhook-endpoints/${id}/deliveries${query}`);
  expect(r.status).toBe(200);
  return r.body.data.deliveries as Array<Record<string, any>>;
}

const verify = (secret: string, header: string, body: string) => {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  return createHmac('sha256', secret).update(`${m[1]}.${body}`).digest('hex') === m[2];
};

describe('SSRF: URLs refused at create and update time', () => {
  const refused = [
    'http://10.0.0.1/h',
    'http://172.16.3.4/h',
    'http://192.168.1.1/h',
    'http://127.0.0.1/h',
    'http://localhost/h',
    'http://[::1]/h',
    'http://169.254.169.254/latest/meta-data',
    'http://[fe80::1]/h',
    'http://[fd00::1]/h',
    'http://100.64.0.1/h',
    'http://[::ffff:127.0.0.1]/h',
    'http://[::ffff:10.0.0.1]/h',
    'http://2130706433/h', // decimal 127.0.0.1
    'http://0x7f000001/h', // hex
    'http://0x7f.1/h', // hex, short
    'http://127.1/h', // short
    'http://10.1/h',
    'http://0177.0.0.1/h', // octal
    'http://0.0.0.0/h',
    'http://224.0.0.1/h',
    'ftp://example.com/h',
    'file:///etc/passwd',
    'gopher://example.com/h',
    'http://user:pw@93.184.216.34/h',
  ];
  it.each(refused)('refuses %s with 422 url_refused', async (url) => {
    const r = await strict.api('POST', '/api/v1/webhook-endpoints', { name: 'x', url, events: ['call.ended'] });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('url_refused');
  });

  it('allowLoopbackUrls opens loopback only; update checks the URL again', async () => {
    for (const url of ['http://127.0.0.1:9/h', 'http://[::1]:9/h', 'http://localhost:9/h', 'http://2130706433:9/h']) {
      const r = await emu.api('POST', '/api/v1/webhook-endpoints', { name: 'loop', url, events: ['call.ended'] });
      expect(r.status, url).toBe(201);
      await emu.api('DELETE', `/api/v1/webhook-endpoints/${r.body.data.id}`);
    }
    for (const url of ['http://10.0.0.1/h', 'http://169.254.169.254/h', 'http://[::ffff:192.168.0.1]/h', 'http://100.100.1.1/h']) {
      const r = await emu.api('POST', '/api/v1/webhook-endpoints', { name: 'x', url, events: ['call.ended'] });
      expect(r.status, url).toBe(422);
    }
    const ok = await strict.api('POST', '/api/v1/webhook-endpoints', { name: 'pub', url: 'https://93.184.216.34/h', events: ['call.ended'] });
    expect(ok.status).toBe(201);
    const upd = await strict.api('PATCH', `/api/v1/webhook-endpoints/${ok.body.data.id}`, { url: 'http://0x0a000001/h' });
    expect(upd.status).toBe(422);
    expect(upd.body.error.code).toBe('url_refused');
    expect((await strict.api('GET', `/api/v1/webhook-endpoints/${ok.body.data.id}`)).body.data.url).toBe('https://93.184.216.34/h');
    await strict.api('DELETE', `/api/v1/webhook-endpoints/${ok.body.data.id}`);
  });
});

describe('endpoints', () => {
  it('creates, lists, gets, updates and deletes; the secret only on create and rotate; tenants isolated', async () => {
    const ep = await createEndpoint('/crud', ['call.ended', 'call.started']);
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    // "only the prefix is ever readable": the recognisable prefix, nothing of the secret part
    expect(ep.secretPrefix).toBe('whsec_');
    const got = await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}`);
    expect(got.body.data).toMatchObject({
      id: ep.id,
      name: 'hook /crud',
      events: ['call.ended', 'call.started'],
      isEnabled: true,
      consecutiveFailures: 0,
      lastSuccessAt: null,
    });
    expect(got.body.data.secret).toBeUndefined();
    const list = await emu.api('GET', '/api/v1/webhook-endpoints');
    expect(list.body.data.endpoints.map((e: { id: string }) => e.id)).toContain(ep.id);
    expect(JSON.stringify(list.body)).not.toContain(ep.secret);
    expect((await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}`, undefined, ORG_B.apiKey)).status).toBe(404);
    const patched = await emu.api('PATCH', `/api/v1/webhook-endpoints/${ep.id}`, { events: ['eval.run.completed'], name: 'renamed' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id: ep.id, events: ['eval.run.completed'], name: 'renamed' });
    expect((await emu.api('DELETE', `/api/v1/webhook-endpoints/${ep.id}`)).body.data).toEqual({ deleted: true });
    expect((await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}`)).status).toBe(404);
  });

  it('refuses unknown event types (400) and stream-only ones (422)', async () => {
    const unknown = await emu.api('POST', '/api/v1/webhook-endpoints', { name: 'x', url: `${base}/x`, events: ['call.nope'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('unknown_event_type');
    const streamOnly = await emu.api('POST', '/api/v1/webhook-endpoints', { name: 'x', url: `${base}/x`, events: ['call.transcript.updated'] });
    expect(streamOnly.status).toBe(422);
    expect(streamOnly.body.error.code).toBe('event_not_deliverable');
    expect(streamOnly.body.error.message).toContain('call stream only');
    const none = await emu.api('POST', '/api/v1/webhook-endpoints', { name: 'x', url: `${base}/x`, events: [] });
    expect(none.status).toBe(400);
  });
});

describe('delivery', () => {
  it('posts the signed event (verifiable with an independent HMAC) with its id; never returns the payload', async () => {
    const ep = await createEndpoint('/signed');
    const p = await publish('call.ended', { data: { status: 'completed', durationSeconds: 12, engine: 'realtime' } });
    await until('the delivery', () => received.some((r) => r.path === '/signed'));
    const r = received.find((x) => x.path === '/signed')!;
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toBe('vap-emulator-webhooks/1');
    expect(r.headers['x-service-event-id']).toBe(p.firstId);
    expect(verify(ep.secret, String(r.headers['x-service-signature']), r.body)).toBe(true);
    expect(verify(`${ep.secret}x`, String(r.headers['x-service-signature']), r.body)).toBe(false);
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({ id: p.firstId, type: 'call.ended', callId: 'call_w', data: { status: 'completed', durationSeconds: 12, engine: 'realtime' } });
    expect(body.organizationId).toEqual(expect.any(String));
    await until('succeeded', async () => (await deliveries(ep.id))[0]?.status === 'succeeded');
    const [d] = await deliveries(ep.id);
    expect(d).toMatchObject({ eventType: 'call.ended', eventId: p.firstId, status: 'succeeded', attemptCount: 1, responseStatus: 200, error: null });
    expect(d!.id).toMatch(/^whd_/);
    const raw = JSON.stringify(await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries`));
    expect(raw).not.toContain('durationSeconds');
    expect(raw).not.toContain('payload');
    expect((await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}`)).body.data.lastSuccessAt).toEqual(expect.any(String));
    // Stream-only events and unsubscribed types create no delivery.
    await publish('call.transcript.updated', { data: { text: 'x' } });
    await publish('call.started');
    await publish('call.ended');
    await until('two deliveries', async () => (await deliveries(ep.id)).length === 2);
    expect((await deliveries(ep.id)).map((x) => x.eventType)).toEqual(['call.ended', 'call.ended']);
    await emu.api('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
  });

  it('checks the URL again at delivery time: loopback allowed at create, refused at the attempt once disallowed', async () => {
    const ep = await createEndpoint('/later-refused');
    await emu.control('POST', '/webhooks/allow-loopback', { allow: false });
    try {
      const p = await publish();
      await until('refused', async () => ['failed', 'dead_lettered'].includes((await deliveries(ep.id))[0]?.status));
      const [d] = await deliveries(ep.id);
      expect(d).toMatchObject({ eventId: p.firstId, attemptCount: 1, responseStatus: null });
      expect(d!.error).toMatch(/^url refused: /);
      expect(received.filter((r) => r.path === '/later-refused')).toEqual([]);
    } finally {
      await emu.control('POST', '/webhooks/allow-loopback', { allow: true });
      await emu.api('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
    }
  });

  it('retries 5xx/429/408 with the same event id and growing simulated backoff, then succeeds', async () => {
    const ep = await createEndpoint('/flaky');
    const codes = [500, 429, 408];
    answers.set('/flaky', (n) => codes[n - 1] ?? 200);
    const p = await publish();
    await until('four attempts', () => received.filter((r) => r.path === '/flaky').length >= 4);
    const hits = received.filter((r) => r.path === '/flaky');
    expect(new Set(hits.map((h) => h.headers['x-service-event-id']))).toEqual(new Set([p.firstId]));
    expect(new Set(hits.map((h) => h.body)).size).toBe(1);
    await until('succeeded', async () => (await deliveries(ep.id))[0]?.status === 'succeeded');
    const [d] = await deliveries(ep.id);
    expect(d!.attemptCount).toBe(4);
    await emu.api('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
  });

  it('retries for three days of simulated time (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h, 24 h, ±10%), then dead-letters after 10 attempts', async () => {
    // Three simulated days at 100,000x are under three seconds; the waits from 5 h on can be watched.
    const scale = 100_000;
    const fast = await startTestEmulator({ allowLoopbackUrls: true, timeScale: scale });
    try {
      const ep = await createEndpoint('/down', ['call.ended'], fast);
      answers.set('/down', 503);
      await publish('call.ended', {}, fast);
      const waits = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, 86_400_000, 86_400_000];
      const seen = new Map<number, Record<string, any>>();
      await until(
        'dead-lettered',
        async () => {
          const d = (await deliveries(ep.id, '', fast))[0];
          if (d?.status === 'pending' && d.attemptCount >= 1 && d.nextAttemptAt && d.lastAttemptAt) seen.set(d.attemptCount, d);
          return d?.status === 'dead_lettered';
        },
        30_000,
      );
      expect(seen.size).toBeGreaterThan(0);
      for (const [attempts, d] of seen) {
        const gap = Date.parse(d.nextAttemptAt) - Date.parse(d.lastAttemptAt);
        expect(gap, `wait after attempt ${attempts}`).toBeGreaterThanOrEqual(waits[attempts - 1]! * 0.9 - 5);
        expect(gap, `wait after attempt ${attempts}`).toBeLessThanOrEqual(waits[attempts - 1]! * 1.1 + 5);
        expect(d.responseStatus).toBe(503);
        expect(d.error).toContain('503');
      }
      const [d] = await deliveries(ep.id, '', fast);
      expect(d!.attemptCount).toBe(10);
      expect(d!.nextAttemptAt).toBeNull();
      // The attempts span the schedule (3 d 3 h 35 min 5 s of waits, each ±10%): about three simulated days.
      // Each attempt's real latency (the HTTP round trip, a busy CI host) runs on the simulated clock
      // too, multiplied by the scale: up to 50 real ms an attempt is allowed on top.
      const span = Date.parse(d!.lastAttemptAt) - Date.parse(d!.createdAt);
      const nominal = waits.reduce((a, b) => a + b, 0);
      expect(span).toBeGreaterThanOrEqual(nominal * 0.9 - 50);
      expect(span).toBeLessThanOrEqual(nominal * 1.1 + 10 * 50 * scale);
      expect(span).toBeGreaterThan(2.5 * 86_400_000);
      expect(received.filter((r) => r.path === '/down')).toHaveLength(10);
      expect((await deliveries(ep.id, '?status=dead_lettered', fast)).length).toBe(1);
      expect((await deliveries(ep.id, '?status=succeeded', fast)).length).toBe(0);
      // Three days of failures are not yet "continuous failure": the endpoint stays on.
      expect((await fast.api('GET', `/api/v1/webhook-endpoints/${ep.id}`)).body.data).toMatchObject({ isEnabled: true, consecutiveFailures: 10 });
    } finally {
      await fast.close();
    }
  });

  it('takes a 4xx other than 408/429 as a refusal: failed, not retried', async () => {
    const ep = await createEndpoint('/gone');
    answers.set('/gone', 410);
    await publish();
    await until('failed', async () => (await deliveries(ep.id))[0]?.status === 'failed');
    await new Promise((r) => setTimeout(r, 100)); // > several backoff periods at this scale
    expect(received.filter((r) => r.path === '/gone')).toHaveLength(1);
    expect((await deliveries(ep.id))[0]).toMatchObject({ attemptCount: 1, responseStatus: 410 });
    // A refusal is a failed delivery: it counts towards switching the endpoint off.
    expect((await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}`)).body.data.consecutiveFailures).toBe(1);
    await emu.api('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
  });

  it('a burst of failures leaves an endpoint on; failing with no success for 5 simulated days switches it off; re-enabling clears the count and resumes the queue', async () => {
    const e = await startTestEmulator({ allowLoopbackUrls: true, timeScale: 20_000 });
    try {
      const ep = await createEndpoint('/off', ['call.ended'], e);
      answers.set('/off', 500);
      await publish('call.ended', { count: 12 }, e);
      await until('twelve failed attempts', () => received.filter((r) => r.path === '/off').length >= 12);
      const burst = (await e.api('GET', `/api/v1/webhook-endpoints/${ep.id}`)).body.data;
      expect(burst.consecutiveFailures).toBeGreaterThanOrEqual(12);
      expect(burst.isEnabled).toBe(true);
      // Five days later (simulated) it still fails, and has not succeeded since: switched off.
      await e.control('POST', '/clock/advance', { ms: 5 * 86_400_000 });
      await publish('call.ended', {}, e);
      await until('switched off', async () => (await e.api('GET', `/api/v1/webhook-endpoints/${ep.id}`)).body.data.isEnabled === false, 20_000);
      const off = (await e.api('GET', `/api/v1/webhook-endpoints/${ep.id}`)).body.data;
      await new Promise((r) => setTimeout(r, 200));
      const attemptsWhileOff = received.filter((r) => r.path === '/off').length;
      await new Promise((r) => setTimeout(r, 200));
      expect(received.filter((r) => r.path === '/off').length).toBe(attemptsWhileOff);
      const ds = await deliveries(ep.id, '?limit=200', e);
      expect(ds).toHaveLength(13);
      expect(ds.some((d) => d.status === 'pending')).toBe(true);
      // An event while off creates no delivery.
      await publish('call.ended', {}, e);
      expect(await deliveries(ep.id, '?limit=200', e)).toHaveLength(13);
      answers.set('/off', 200);
      const on = await e.api('PATCH', `/api/v1/webhook-endpoints/${ep.id}`, { isEnabled: true });
      expect(off.consecutiveFailures).toBeGreaterThan(12);
      expect(on.body.data).toMatchObject({ isEnabled: true, consecutiveFailures: 0 });
      await until('the queue drains', async () =>
        (await deliveries(ep.id, '?limit=200', e)).every((d) => d.status === 'succeeded' || d.status === 'dead_lettered'),
      );
      expect((await deliveries(ep.id, '?status=succeeded&limit=200', e)).length).toBeGreaterThanOrEqual(1);
    } finally {
      await e.close();
    }
  });

  it('rotation takes effect at once: the next delivery is signed with the new secret only', async () => {
    const ep = await createEndpoint('/rot');
    const rot = await emu.api('POST', `/api/v1/webhook-endpoints/${ep.id}/rotate-secret`);
    expect(rot.status).toBe(200);
    expect(rot.body.data.id).toBe(ep.id);
    expect(rot.body.data.secret).not.toBe(ep.secret);
    expect(rot.body.data.secretPrefix).toBe('whsec_');
    await publish();
    await until('delivery', () => received.some((r) => r.path === '/rot'));
    const r = received.find((x) => x.path === '/rot')!;
    expect(verify(rot.body.data.secret, String(r.headers['x-service-signature']), r.body)).toBe(true);
    expect(verify(ep.secret, String(r.headers['x-service-signature']), r.body)).toBe(false);
    await emu.api('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
  });

  it('deleting an endpoint abandons its queue (never attempted again)', async () => {
    const ep = await createEndpoint('/del');
    answers.set('/del', 500);
    await publish();
    await until('first attempt', () => received.some((r) => r.path === '/del'));
    expect((await emu.api('DELETE', `/api/v1/webhook-endpoints/${ep.id}`)).status).toBe(200);
    // An attempt already on the wire when the DELETE arrived may still land (retries are < 1 ms
    // apart at this scale): count once those have settled, then expect no new one.
    await new Promise((r) => setTimeout(r, 50));
    const n = received.filter((r) => r.path === '/del').length;
    await new Promise((r) => setTimeout(r, 400)); // well past the next several retries at this scale
    expect(received.filter((r) => r.path === '/del').length).toBe(n);
    expect((await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries`)).status).toBe(404);
  });

  it('refuses a host name that does not resolve', async () => {
    const ep = await strict.api('POST', '/api/v1/webhook-endpoints', { name: 'pub', url: 'http://no-such-host.invalid/h', events: ['call.ended'] });
    expect(ep.status).toBe(422);
    expect(ep.body.error.code).toBe('url_refused');
    expect(ep.body.error.message).toContain('does not resolve');
  });

  it('pages deliveries newest first with the cursor; limit clamped to 200', async () => {
    const ep = await createEndpoint('/page');
    const p = await emu.control<{ firstId: string; lastId: string }>('POST', '/events', { type: 'call.ended', count: 5 });
    await until('five', async () => (await deliveries(ep.id, '?status=succeeded')).length === 5);
    const one = await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?limit=2`);
    expect(one.body.data.deliveries.map((d: { eventId: string }) => d.eventId)).toEqual([p.lastId, String(Number(p.lastId) - 1)]);
    expect(one.body.meta.pagination.limit).toBe(2);
    const cursor = one.body.meta.pagination.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const two = await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?limit=2&cursor=${cursor}`);
    expect(two.body.data.deliveries.map((d: { eventId: string }) => d.eventId)).toEqual([String(Number(p.lastId) - 2), String(Number(p.lastId) - 3)]);
    const three = await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?limit=2&cursor=${two.body.meta.pagination.nextCursor}`);
    expect(three.body.data.deliveries.map((d: { eventId: string }) => d.eventId)).toEqual([p.firstId]);
    expect(three.body.meta.pagination.nextCursor).toBeNull();
    expect((await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?limit=500`)).body.meta.pagination.limit).toBe(200);
    expect((await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?status=lost`)).status).toBe(400);
    expect((await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?cursor=zzz`)).status).toBe(400);
    await emu.api('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
  });
});

it("another organization's events never reach an endpoint", async () => {
  const ep = await createEndpoint('/iso');
  await emu.control('POST', '/events', { org: ORG_B.name, type: 'call.ended' });
  const mine = await emu.control<{ firstId: string }>('POST', '/events', { org: ORG_A.name, type: 'call.ended' });
  await until('delivery', () => received.some((r) => r.path === '/iso'));
  await new Promise((r) => setTimeout(r, 50));
  const hits = received.filter((r) => r.path === '/iso');
  expect(hits.map((h) => h.headers['x-service-event-id'])).toEqual([mine.firstId]);
  await emu.api('DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
});
