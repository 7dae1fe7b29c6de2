import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// The emulator's event streams (document 1, "Event streams and catalog"), over real HTTP.

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu?.close();
});
afterEach(async () => {
  await emu.control('DELETE', '/streams/drop');
  await emu.control('DELETE', '/streams/stall');
  await emu.control('POST', '/streams/heartbeat', { ms: 15_000 });
});

async function until(what: string, pred: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function publish(body: Record<string, unknown>): Promise<{ firstId: string; lastId: string }> {
  return emu.control('POST', '/events', body);
}

/** An open SSE connection whose raw text accumulates. */
async function open(path: string, headers: Record<string, string> = {}, key = ORG_A.apiKey) {
  const ac = new AbortController();
  const res = await fetch(`${emu.url}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers }, signal: ac.signal });
  let text = '';
  let ended = false;
  if (res.ok) {
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const r = await reader.read();
          if (r.done) break;
          text += dec.decode(r.value, { stream: true });
        }
      } catch {
        /* aborted or dropped */
      }
      ended = true;
    })();
  }
  return {
    res,
    text: () => text,
    ended: () => ended,
    events: () =>
      text
        .split('\n\n')
        .filter((b) => b.startsWith('id: '))
        .map((b) => {
          const [id, ev, data] = b.split('\n');
          return { id: id!.slice(4), type: ev!.slice(7), data: JSON.parse(data!.slice(6)) as Record<string, any> };
        }),
    close: () => ac.abort(),
  };
}

const openCount = async () => (await emu.control<{ open: number }>('GET', '/streams')).open;

describe('organization stream', () => {
  it('frames events exactly, with the headers, retry, replay comment and live events', async () => {
    const s = await open('/api/v1/events');
    expect(s.res.status).toBe(200);
    expect(s.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(s.res.headers.get('cache-control')).toBe('no-cache');
    expect(s.res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(s.res.headers.get('x-heartbeat-interval')).toBe('15000');
    expect(Number(s.res.headers.get('x-resume-after'))).toBeGreaterThanOrEqual(0);
    await until('the replay comment', () => s.text().includes(': replayed 0\n\n'));
    expect(s.text().startsWith('retry: 1000\n\n')).toBe(true);
    const p = await publish({ type: 'call.started', callId: 'call_f1', data: { status: 'in_progress' } });
    await until('the event', () => s.events().length === 1);
    const block = `id: ${p.firstId}\nevent: call.started\ndata: `;
    expect(s.text()).toContain(block);
    const e = s.events()[0]!;
    expect(e.data).toMatchObject({ type: 'call.started', organizationId: expect.any(String), callId: 'call_f1', data: { status: 'in_progress' } });
    expect(Date.parse(e.data.occurredAt)).not.toBeNaN();
    s.close();
    await until('the stream to close', async () => (await openCount()) === 0);
  });

  it('keeps stream-only events off, and filters by types', async () => {
    const all = await open('/api/v1/events');
    const only = await open('/api/v1/events?types=call.ended,%20,call.started');
    await until('two streams', async () => (await openCount()) === 2);
    await publish({ type: 'call.transcript.updated', callId: 'call_f2', data: { text: 'hi' } });
    await publish({ type: 'call.status.updated', callId: 'call_f2', data: { status: 'ringing' } });
    const last = await publish({ type: 'call.ended', callId: 'call_f2', data: { status: 'completed' } });
    await until('the last event on both', () => all.events().some((e) => e.id === last.lastId) && only.events().some((e) => e.id === last.lastId));
    expect(all.events().map((e) => e.type)).toEqual(['call.status.updated', 'call.ended']);
    expect(only.events().map((e) => e.type)).toEqual(['call.ended']);
    all.close();
    only.close();
  });

  it('rejects unknown types, stream-only types and bad resume ids with a JSON error before any stream byte', async () => {
    const unknown = await emu.api('GET', '/api/v1/events?types=call.started,call.exploded');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('unknown_event_type');
    expect(unknown.body.error.message).toContain('call.exploded');
    expect(unknown.body.error.message).toContain('call.analysis.completed');
    const streamOnly = await emu.api('GET', '/api/v1/events?types=call.transcript.updated');
    expect(streamOnly.status).toBe(400);
    expect(streamOnly.body.error.code).toBe('stream_only_type');
    expect(streamOnly.body.error.message).toContain('call stream');
    const bad = await emu.api('GET', '/api/v1/events?lastEventId=12x');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    const neg = await fetch(`${emu.url}/api/v1/events`, { headers: { authorization: `Bearer ${ORG_A.apiKey}`, 'last-event-id': '-1' } });
    expect(neg.status).toBe(400);
    expect(neg.headers.get('content-type')).toContain('application/json');
    expect(await openCount()).toBe(0);
  });

  it('needs the bearer key (401), and a tenant sees only its own events', async () => {
    const none = await fetch(`${emu.url}/api/v1/events`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as any).error.code).toBe('unauthorized');
    const xkey = await fetch(`${emu.url}/api/v1/events`, { headers: { 'x-api-key': ORG_A.apiKey } });
    expect(xkey.status).toBe(401);
    const b = await open('/api/v1/events', {}, ORG_B.apiKey);
    await until('open', () => b.text().includes(': replayed'));
    await publish({ type: 'call.ended', callId: 'call_t1' });
    const mine = await publish({ org: ORG_B.name, type: 'call.ended', callId: 'call_t2' });
    await until('globex event', () => b.events().length === 1);
    expect(b.events()[0]!.id).toBe(mine.firstId);
    expect(b.events()[0]!.data.callId).toBe('call_t2');
    b.close();
    const other = await emu.api('GET', '/api/v1/calls/call_t1/events', undefined, ORG_B.apiKey);
    expect(other.status).toBe(404);
  });
});

describe('resume across both streams (one id space per organization)', () => {
  it('replays from an id seen on the organization stream on the call stream, and from the header', async () => {
    const a = await publish({ type: 'call.status.updated', callId: 'call_r1', data: { status: 'initiated' } });
    await publish({ type: 'call.transcript.updated', callId: 'call_r1', data: { text: 'one' } });
    await publish({ type: 'call.ended', callId: 'call_other' });
    await publish({ type: 'call.voice.updated', callId: 'call_r1', data: { speaking: 'agent' } });
    const d = await publish({ type: 'call.ended', callId: 'call_r1', data: { status: 'completed' } });

    const call = await open(`/api/v1/calls/call_r1/events?lastEventId=${a.firstId}`);
    await until('the replay', () => call.text().includes(': replayed'));
    expect(call.text()).toContain(': replayed 3\n\n');
    expect(call.events().map((e) => e.type)).toEqual(['call.transcript.updated', 'call.voice.updated', 'call.ended']);
    expect(call.events()[2]!.id).toBe(d.firstId);
    expect(call.events()[0]!.data).toEqual({ type: 'call.transcript.updated', callId: 'call_r1', data: { text: 'one' } });
    // Live after the replay, no gap and no duplicate.
    const live = await publish({ type: 'call.analysis.completed', callId: 'call_r1', data: { summary: 's' } });
    await until('live', () => call.events().length === 4);
    expect(call.events()[3]!.id).toBe(live.firstId);
    const ids = call.events().map((e) => Number(e.id));
    expect([...ids].sort((x, y) => x - y)).toEqual(ids);
    call.close();

    // The header does the same on the organization stream (stream-only events are not replayed there); the query wins over it.
    const org = await open(`/api/v1/events?types=call.ended`, { 'last-event-id': a.firstId });
    await until('replay', () => org.text().includes(': replayed'));
    expect(org.events().map((e) => e.data.callId)).toEqual(['call_other', 'call_r1']);
    org.close();
    const both = await open(`/api/v1/events?lastEventId=${d.firstId}`, { 'last-event-id': '0' });
    expect(both.res.headers.get('x-resume-after')).toBe(d.firstId);
    await until('replay', () => both.text().includes(': replayed'));
    expect(both.text()).toContain(': replayed 1\n\n');
    both.close();
  });

  it('answers 404 for a call with no events, and carries a burst in order', async () => {
    expect((await emu.api('GET', '/api/v1/calls/call_nothing/events')).status).toBe(404);
    const s = await open('/api/v1/events?types=eval.run.completed');
    await until('open', () => s.text().includes(': replayed'));
    const burst = await publish({ type: 'eval.run.completed', data: { runId: 'r' }, count: 500 });
    await until('500 events', () => s.events().length === 500, 20_000);
    expect(s.events()[0]!.id).toBe(burst.firstId);
    expect(s.events()[499]!.id).toBe(burst.lastId);
    expect(s.events().map((e) => e.data.data.n)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    s.close();
  });
});

describe('catalog', () => {
  it('lists every type with its delivery', async () => {
    const r = await emu.api('GET', '/api/v1/events/types');
    expect(r.status).toBe(200);
    const byType = new Map((r.body.data.events as Array<{ type: string; delivery: string[]; description: string }>).map((e) => [e.type, e]));
    expect(byType.get('call.transcript.updated')!.delivery).toEqual(['stream']);
    expect(byType.get('call.ended')!.delivery).toEqual(['stream', 'webhook']);
    expect(byType.size).toBe(9);
  });
});

describe('control: heartbeat, drop, stall', () => {
  it('sends heartbeats at the set interval', async () => {
    await emu.control('POST', '/streams/heartbeat', { ms: 50 });
    const s = await open('/api/v1/events');
    expect(s.res.headers.get('x-heartbeat-interval')).toBe('50');
    await until('two heartbeats', () => s.text().split(': heartbeat\n\n').length >= 3);
    s.close();
  });

  it('drops open streams once, or every everyMs until stopped', async () => {
    const s = await open('/api/v1/events');
    await until('open', async () => (await openCount()) === 1);
    const r = await emu.control<{ dropped: number }>('POST', '/streams/drop', {});
    expect(r.dropped).toBe(1);
    await until('dropped', () => s.ended());
    expect(await openCount()).toBe(0);
    await emu.control('POST', '/streams/drop', { everyMs: 30 });
    const t = await open('/api/v1/events');
    await until('dropped again', () => t.ended());
    await emu.control('DELETE', '/streams/drop');
    const u = await open('/api/v1/events');
    await until('open', () => u.text().includes(': replayed'));
    await new Promise((r) => setTimeout(r, 100));
    expect(u.ended()).toBe(false);
    u.close();
    // Stream GETs appear in the request log like any other request.
    const logged = (await emu.requests()).filter((r) => r.method === 'GET' && r.path === '/api/v1/events');
    expect(logged.length).toBeGreaterThanOrEqual(2);
  });

  it('stalls: no events and no heartbeats while stalled; the events stay in the log', async () => {
    await emu.control('POST', '/streams/heartbeat', { ms: 20 });
    const s = await open('/api/v1/events?types=campaign.status.updated');
    await until('a heartbeat', () => s.text().includes(': heartbeat'));
    await emu.control('POST', '/streams/stall');
    await new Promise((r) => setTimeout(r, 60)); // let a write already under way arrive
    const before = s.text().length;
    const p = await publish({ type: 'campaign.status.updated', data: { status: 'running' } });
    await new Promise((r) => setTimeout(r, 150));
    expect(s.text().length).toBe(before);
    expect(s.ended()).toBe(false);
    const other = await open(`/api/v1/events?types=campaign.status.updated&lastEventId=${Number(p.firstId) - 1}`);
    await emu.control('DELETE', '/streams/stall');
    await until('the held event', () => s.events().some((e) => e.id === p.firstId));
    await until('the replayed event', () => other.events().some((e) => e.id === p.firstId));
    s.close();
    other.close();
  });

  it('does not leak listeners: closed clients leave no open stream', async () => {
    const streams = await Promise.all(Array.from({ length: 20 }, () => open('/api/v1/events')));
    await until('20 open', async () => (await openCount()) === 20);
    for (const s of streams) s.close();
    await until('none open', async () => (await openCount()) === 0);
  });
});
