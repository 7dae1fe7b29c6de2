import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { id3Length, parseFrameHeader } from '../../src/emulator/agents/mp3.js';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// The emulator's calls (document 2) over real HTTP: the simulated lifecycle and its
// events, deterministic transcripts, analysis consistent with the transcript, cancel
// rules, the listing's filters/summary/pagination, recordings as real audio, the seed
// control path, tenant isolation. timeScale 1000 unless a test needs slow calls.

type Call = {
  id: string;
  status: string;
  createdAt: string;
  duration: number;
  calleeName: string;
  phoneNumber: string;
  campaignId: string;
  direction: string;
  [k: string]: unknown;
};
type Ev = { id: string; type: string; callId: string | null; data: Record<string, any>; streamOnly: boolean };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** An agent, a list of n contacts, and an outbound campaign with them all added (draft). */
async function setup(e: TestEmulator, n: number, key = ORG_A.apiKey): Promise<{ agentId: string; campaignId: string; contactIds: string[] }> {
  const a = await e.api(
    'POST',
    '/api/v1/agents',
    {
      name: 'Ava',
      engine: 'pipeline',
      instructions: 'You are Ava from Bright Dental. You call patients to remind them about their upcoming appointments. Always confirm the date.',
    },
    key,
  );
  const l = await e.api(
    'POST',
    '/api/v1/contact-lists',
    {
      name: 'Patients',
      schema: {
        fields: [
          { name: 'name', type: 'string', required: true },
          { name: 'phone', type: 'phone', required: true },
        ],
      },
    },
    key,
  );
  const contacts = Array.from({ length: n }, (_, i) => ({
    name: `Patient ${String.fromCharCode(65 + (i % 26))}${i}`,
    phone: `+1415555${String(100 + i).padStart(4, '0')}`,
  }));
  const job = await e.api('POST', `/api/v1/contact-lists/${l.body.data.id}/contacts`, { contacts }, key);
  await until('the import', async () => (await e.api('GET', `/api/v1/import-jobs/${job.body.jobId}`, undefined, key)).body.status === 'completed');
  const cs = await e.api('GET', `/api/v1/contact-lists/${l.body.data.id}/contacts?limit=100`, undefined, key);
  const contactIds = cs.body.data.map((c: { id: string }) => c.id);
  const c = await e.api('POST', '/api/v1/campaigns', { name: 'Reminders', direction: 'outbound', contactListId: l.body.data.id, agentId: a.body.data.id }, key);
  await e.api('POST', `/api/v1/campaigns/${c.body.data.id}/contacts`, { contactIds }, key);
  return { agentId: a.body.data.id, campaignId: c.body.data.id, contactIds };
}

/** Queues every contact, starts the campaign, waits until every completed call is analysed (a failed call never is). */
async function runToEnd(e: TestEmulator, campaignId: string, key = ORG_A.apiKey): Promise<Call[]> {
  await e.api('POST', `/api/v1/campaigns/${campaignId}/calls`, { queueAllPending: true }, key);
  await e.api('POST', `/api/v1/campaigns/${campaignId}/start`, undefined, key);
  const calls: Call[] = await until('every call ended', async () => {
    const r = await e.api('GET', `/api/v1/campaigns/${campaignId}/calls?pageSize=100`, undefined, key);
    const s = r.body.data.summary;
    return s.queued === 0 && s.active === 0 && r.body.data.calls;
  });
  await until('every analysis', async () => {
    for (const c of calls)
      if (c.status === 'completed' && (await e.api('GET', `/api/v1/calls/${c.id}`, undefined, key)).body.data.analysis === null) return false;
    return true;
  });
  return calls;
}

async function events(e: TestEmulator, org = 'acme'): Promise<Ev[]> {
  return (await e.control<{ events: Ev[] }>('GET', `/events?org=${org}`)).events;
}

async function audio(e: TestEmulator, callId: string, query = '', key = ORG_A.apiKey): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(`${e.url}/api/v1/calls/${callId}/recording/audio${query}`, { headers: { 'x-api-key': key } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

let emu: TestEmulator;
let campaignId: string;
let calls: Call[];

beforeAll(async () => {
  emu = await startTestEmulator();
  ({ campaignId } = await setup(emu, 30));
  calls = await runToEnd(emu, campaignId);
});
afterAll(async () => {
  await emu.close();
});

describe('lifecycle and events', () => {
  it('a connected call publishes its events in order, with the data of the catalog', async () => {
    const all = await events(emu);
    const connected = calls.find((c) => c.status === 'completed')!;
    expect(connected).toBeDefined();
    const evs = all.filter((e) => e.callId === connected.id);
    const types = evs.map((e) => (e.type === 'call.status.updated' ? `status:${e.data.status}` : e.type));
    const firstSegment = types.indexOf('call.voice.updated');
    expect(types.slice(0, firstSegment)).toEqual(['status:initiated', 'status:ringing', 'status:in_progress', 'call.started']);
    expect(types.slice(-5)).toEqual(['call.voice.updated', 'status:completed', 'call.ended', 'intelligence.speaker.identified', 'call.analysis.completed']);
    const statuses = evs.filter((e) => e.type === 'call.status.updated').map((e) => `${e.data.previousStatus}→${e.data.status}`);
    expect(statuses).toEqual(['queued→initiated', 'initiated→ringing', 'ringing→in_progress', 'in_progress→completed']);
    const started = evs.find((e) => e.type === 'call.started')!;
    expect(started.data).toEqual({
      status: 'in_progress',
      direction: 'outbound',
      phoneNumber: connected.phoneNumber,
      calleeName: connected.calleeName,
      campaignId,
      agentId: expect.stringMatching(/^ag_/),
      agentVersion: 1,
    });
    const segments = evs.filter((e) => e.type === 'call.transcript.updated');
    expect(segments.length).toBeGreaterThan(1);
    expect(segments.every((e) => e.streamOnly)).toBe(true);
    expect(segments.map((e) => e.data.ordinal)).toEqual(segments.map((_, i) => i));
    for (let i = 1; i < segments.length; i++) expect(segments[i]!.data.offsetSeconds).toBeGreaterThan(segments[i - 1]!.data.offsetSeconds);
    // a voice update at each turn change, before the turn's segment
    const voice = evs.filter((e) => e.type === 'call.voice.updated').map((e) => e.data.speaking);
    expect(voice.at(-1)).toBe('none');
    expect(voice.slice(0, -1)).toEqual(segments.map((s) => s.data.role).filter((r, i, a) => i === 0 || a[i - 1] !== r));
    const transcript = (await emu.api('GET', `/api/v1/calls/${connected.id}/transcript`)).body.data;
    expect(transcript.messages).toEqual(segments.map((s) => ({ role: s.data.role, text: s.data.text, ordinal: s.data.ordinal })));
    expect(transcript).toMatchObject({ callId: connected.id, messageCount: segments.length, duration: connected.duration });
    const ended = evs.find((e) => e.type === 'call.ended')!;
    expect(ended.data).toEqual({ status: 'completed', durationSeconds: connected.duration, engine: 'pipeline' });
    const speaker = evs.find((e) => e.type === 'intelligence.speaker.identified')!;
    expect(Object.keys(speaker.data).sort()).toEqual(['name', 'source', 'status', 'timesSpokenBefore']);
    const analysis = evs.find((e) => e.type === 'call.analysis.completed')!;
    expect(Object.keys(analysis.data).sort()).toEqual([
      'callbackRequested',
      'crisisDetected',
      'doNotCallRequested',
      'legalThreatened',
      'overallSentiment',
      'resolved',
      'summary',
    ]);
    const detail = (await emu.api('GET', `/api/v1/calls/${connected.id}`)).body.data;
    expect(detail.summary).toBe(analysis.data.summary);
    expect(detail.analysis.doNotCall.requested).toBe(analysis.data.doNotCallRequested);
    expect(detail.duration).toBeGreaterThanOrEqual(20);
    expect(Date.parse(detail.endedAt) - Date.parse(detail.answeredAt)).toBe(detail.duration * 1000);
    expect(detail.cost).toBeCloseTo(0.01 + Math.ceil(detail.duration / 60) * 0.015, 5);
  });

  it('a failed call (it never connected): status updates, call.ended with 0 s; no analysis, no summary, no transcript, no recording', async () => {
    const failed = calls.find((c) => c.status === 'failed')!;
    expect(failed).toBeDefined();
    const evs = (await events(emu)).filter((e) => e.callId === failed.id);
    // "once completed, AI analysis": a call with no conversation has nothing to analyse
    expect(evs.map((e) => (e.type === 'call.status.updated' ? `status:${e.data.status}` : e.type))).toEqual([
      'status:initiated',
      'status:ringing',
      'status:failed',
      'call.ended',
    ]);
    expect(evs.find((e) => e.type === 'call.ended')!.data).toMatchObject({ status: 'failed', durationSeconds: 0 });
    const detail = (await emu.api('GET', `/api/v1/calls/${failed.id}`)).body.data;
    expect(['no_answer', 'busy']).toContain(detail.failureReason);
    expect(detail.analysis).toBeNull();
    expect(detail.summary).toBeNull();
    expect(detail.cost).toBe(0.01);
    expect((await emu.api('GET', `/api/v1/calls/${failed.id}/transcript`)).body.data).toEqual({
      callId: failed.id,
      messages: [],
      messageCount: 0,
      duration: 0,
    });
    const rec = (await emu.api('GET', `/api/v1/calls/${failed.id}/recording`)).body.data;
    expect(rec).toEqual({ callId: failed.id, recordings: [], recordingCount: 0, audioUrl: `/api/v1/calls/${failed.id}/recording/audio` });
    const a = await audio(emu, failed.id);
    expect(a.status).toBe(404);
    expect(JSON.parse(a.body.toString()).error.code).toBe('no_recording');
  });

  it('the call stream opens for a call that exists before its first event (the events hook), 404 otherwise', async () => {
    const { campaignId: draft } = await setup(emu, 1);
    const q = await emu.api('POST', `/api/v1/campaigns/${draft}/calls`, { queueAllPending: true });
    const queued = q.body.data.calls[0].id;
    expect((await events(emu)).some((e) => e.callId === queued)).toBe(false);
    const open = async (id: string, key: string) => {
      const ac = new AbortController();
      const res = await fetch(`${emu.url}/api/v1/calls/${id}/events`, { headers: { authorization: `Bearer ${key}` }, signal: ac.signal });
      ac.abort();
      return res.status;
    };
    expect(await open(queued, ORG_A.apiKey)).toBe(200);
    expect(await open(queued, ORG_B.apiKey)).toBe(404);
    expect(await open('00000000-0000-4000-8000-000000000000', ORG_A.apiKey)).toBe(404);
  });
});

describe('streams', () => {
  it('the call stream replays the events of the call, transcript segments included; the organization stream leaves those out', async () => {
    const connected = calls.find((c) => c.status === 'completed')!;
    const read = async (path: string) => {
      const ac = new AbortController();
      const res = await fetch(`${emu.url}${path}`, { headers: { authorization: `Bearer ${ORG_A.apiKey}` }, signal: ac.signal });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      let text = '';
      while (!/: replayed \d+/.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value!).toString();
      }
      ac.abort();
      return text
        .split('\n')
        .filter((l) => l.startsWith('event: '))
        .map((l) => l.slice(7));
    };
    const own = await read(`/api/v1/calls/${connected.id}/events?lastEventId=0`);
    expect(own).toContain('call.transcript.updated');
    expect(own).toContain('call.voice.updated');
    expect(own.at(-1)).toBe('call.analysis.completed');
    const org = await read('/api/v1/events?lastEventId=0&types=call.started,call.ended');
    expect(org.length).toBeGreaterThan(0);
    expect(new Set(org)).toEqual(new Set(['call.started', 'call.ended']));
  });
});

describe('cancel', () => {
  it('only queued calls are cancellable', async () => {
    const { campaignId: draft } = await setup(emu, 2);
    const q = await emu.api('POST', `/api/v1/campaigns/${draft}/calls`, { queueAllPending: true });
    const id = q.body.data.calls[0].id;
    const c = await emu.api('POST', `/api/v1/calls/${id}/cancel`);
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({ id, status: 'cancelled' });
    const again = await emu.api('POST', `/api/v1/calls/${id}/cancel`);
    expect([again.status, again.body.error.code]).toEqual([409, 'call_not_cancellable']);
    expect(again.body.error.message).toMatch(/already cancelled/);
    const done = calls.find((x) => x.status === 'completed')!;
    const d = await emu.api('POST', `/api/v1/calls/${done.id}/cancel`);
    expect([d.status, d.body.error.code]).toEqual([409, 'call_not_cancellable']);
    // the contact of a cancelled call is pending again
    const contacts = (await emu.api('GET', `/api/v1/campaigns/${draft}/contacts`)).body.data.contacts;
    expect(contacts.find((x: { lastCallId: string }) => x.lastCallId === id).status).toBe('pending');
    expect((await events(emu)).filter((e) => e.callId === id).map((e) => e.data.status)).toEqual(['cancelled']);
  });

  it('a call in flight completes normally (409 naming its status)', async () => {
    const slow = await startTestEmulator({ timeScale: 1 });
    try {
      const { campaignId: cid } = await setup(slow, 1);
      await slow.api('POST', `/api/v1/campaigns/${cid}/calls`, { queueAllPending: true });
      await slow.api('POST', `/api/v1/campaigns/${cid}/start`);
      const call = await until('the call in flight', async () => {
        const c = (await slow.api('GET', `/api/v1/campaigns/${cid}/calls`)).body.data.calls[0];
        return c && c.status !== 'queued' && c;
      });
      const r = await slow.api('POST', `/api/v1/calls/${call.id}/cancel`);
      expect([r.status, r.body.error.code]).toEqual([409, 'call_not_cancellable']);
      expect(r.body.error.message).toMatch(/is (initiated|ringing|in_progress); only queued calls can be cancelled, and an initiated call completes normally/);
      expect(['initiated', 'ringing', 'in_progress']).toContain((await slow.api('GET', `/api/v1/calls/${call.id}`)).body.data.status);
    } finally {
      await slow.close();
    }
  });
});

describe('deterministic transcripts', () => {
  it('two emulators with the same seed write the same calls and transcripts', async () => {
    const other = await startTestEmulator();
    try {
      const mine = await startTestEmulator();
      try {
        const runs: Array<Map<string, unknown>> = [];
        for (const e of [mine, other]) {
          const { campaignId: cid } = await setup(e, 8);
          const cs = await runToEnd(e, cid);
          const m = new Map<string, unknown>();
          for (const c of cs)
            m.set(c.id, { status: c.status, duration: c.duration, messages: (await e.api('GET', `/api/v1/calls/${c.id}/transcript`)).body.data.messages });
          runs.push(m);
        }
        expect([...runs[0]!.keys()].sort()).toEqual([...runs[1]!.keys()].sort());
        for (const [id, v] of runs[0]!) expect(runs[1]!.get(id)).toEqual(v);
        expect([...runs[0]!.values()].some((v) => (v as { messages: unknown[] }).messages.length > 0)).toBe(true);
      } finally {
        await mine.close();
      }
    } finally {
      await other.close();
    }
  });
});

describe('analysis', () => {
  it('agrees with the transcript: do-not-call, lawyer, crisis, callback', async () => {
    const e = await startTestEmulator();
    try {
      await setup(e, 1);
      const seeded = await e.control<{ campaignId: string }>('POST', '/calls/seed', { count: 300 });
      const list = (p: number) => e.api('GET', `/api/v1/calls?campaignId=${seeded.campaignId}&status=completed&pageSize=100&page=${p}`);
      const ids: string[] = [];
      for (let p = 1; p <= 3; p++) ids.push(...(await list(p)).body.data.calls.map((c: Call) => c.id));
      const seen = { dnc: 0, legal: 0, crisis: 0, callback: 0, voicemail: 0 };
      for (const id of ids) {
        const d = (await e.api('GET', `/api/v1/calls/${id}`)).body.data;
        const t = (await e.api('GET', `/api/v1/calls/${id}/transcript`)).body.data.messages as Array<{ role: string; text: string }>;
        const user = t
          .filter((m) => m.role === 'user')
          .map((m) => m.text)
          .join(' ');
        const agent = t
          .filter((m) => m.role === 'agent')
          .map((m) => m.text)
          .join(' ');
        const a = d.analysis;
        const dnc = /do not call|don't call|stop calling|take me off/i.test(user);
        expect(a.doNotCall.requested, id).toBe(dnc);
        expect(a.doNotCall.requestType).toBe(dnc ? 'explicit' : 'none');
        const lawyer = /lawyer|attorney/i.test(user);
        expect(a.legal.threatened, id).toBe(lawyer);
        expect(a.legal.threatType).toBe(lawyer ? 'lawyer' : 'none');
        const crisis = /can't go on|point of anything/i.test(user);
        expect(a.crisis.detected, id).toBe(crisis);
        if (crisis) expect(a.crisis.severity).toBe('high');
        const callback = /call me back/i.test(user);
        expect(a.callback.callbackRequested, id).toBe(callback);
        const voicemail = /leave a message after the tone/i.test(user);
        expect(a.humanContact).toMatchObject({ reachedVoicemail: voicemail, reachedHuman: !voicemail, leftMessage: voicemail });
        if (/that's confirmed|that's all set|it's confirmed/i.test(agent)) expect(a.objectives.primary.status).toBe('True');
        if (a.informationUpdates.length) expect(user).toContain(a.informationUpdates[0].correctedValue);
        for (const g of [
          'analyzedAt',
          'sentiment',
          'humanContact',
          'objectives',
          'callback',
          'doNotCall',
          'legal',
          'crisis',
          'resolution',
          'ivr',
          'informationUpdates',
          'communicationPromises',
          'callerIntent',
        ])
          expect(a, g).toHaveProperty(g);
        expect(a.ivr).toEqual({ encountered: false, stuck: false, escaped: false, navigationPath: [] });
        seen.dnc += Number(dnc);
        seen.legal += Number(lawyer);
        seen.crisis += Number(crisis);
        seen.callback += Number(callback);
        seen.voicemail += Number(voicemail);
      }
      // the seed's 300 calls hold at least one of each
      expect(seen.dnc).toBeGreaterThan(0);
      expect(seen.callback).toBeGreaterThan(0);
      expect(seen.voicemail).toBeGreaterThan(0);
      expect(seen.legal + seen.crisis).toBeGreaterThan(0);
    } finally {
      await e.close();
    }
  });
});

describe('listing', () => {
  let seededCampaign: string;
  beforeAll(async () => {
    await setup(emu, 1, ORG_B.apiKey);
    seededCampaign = (await emu.control<{ campaignId: string }>('POST', '/calls/seed', { org: 'globex', count: 500 })).campaignId;
  });
  const get = (q: string) => emu.api('GET', `/api/v1/calls${q}`, undefined, ORG_B.apiKey);

  it('pages newest first with a summary over every match', async () => {
    const p1 = (await get('?pageSize=100')).body.data;
    expect(p1.pagination).toEqual({ page: 1, pageSize: 100, total: 500, totalPages: 5 });
    expect(p1.summary.total).toBe(500);
    expect(p1.summary.completed + p1.summary.failed).toBe(500);
    expect(p1.summary).toMatchObject({ active: 0, queued: 0 });
    const p2 = (await get('?pageSize=100&page=2')).body.data;
    const all = [...p1.calls, ...p2.calls] as Call[];
    for (let i = 1; i < all.length; i++) expect(all[i - 1]!.createdAt >= all[i]!.createdAt).toBe(true);
    expect(new Set(all.map((c) => c.id)).size).toBe(200);
    expect(Object.keys(p1.calls[0]).sort()).toEqual([
      'agentId',
      'agentVersion',
      'calleeName',
      'campaignId',
      'contactId',
      'createdAt',
      'direction',
      'duration',
      'endedAt',
      'failureReason',
      'id',
      'phoneNumber',
      'priority',
      'scheduledFor',
      'startedAt',
      'status',
    ]);
    expect((await get('?page=6&pageSize=100')).body.data.calls).toEqual([]);
    expect((await get('')).body.data.pagination.pageSize).toBe(50);
  });

  it('filters by status (in-progress and in_progress alike), campaign, direction, duration, dates and search', async () => {
    const completed = (await get('?status=completed&pageSize=100')).body.data;
    expect(completed.calls.every((c: Call) => c.status === 'completed')).toBe(true);
    expect(completed.summary).toMatchObject({ total: completed.pagination.total, completed: completed.pagination.total, failed: 0 });
    expect((await get('?status=in-progress')).body.data.pagination.total).toBe(0);
    expect((await get('?status=in_progress')).status).toBe(200);
    expect((await get(`?campaignId=${seededCampaign}`)).body.data.pagination.total).toBe(500);
    expect((await get('?campaignId=00000000-0000-4000-8000-000000000000')).body.data.pagination.total).toBe(0);
    expect((await get('?direction=inbound')).body.data.pagination.total).toBe(0);
    const mid = (await get('?minDuration=60&maxDuration=120&pageSize=100')).body.data;
    expect(mid.pagination.total).toBeGreaterThan(0);
    expect(mid.calls.every((c: Call) => c.duration >= 60 && c.duration <= 120)).toBe(true);
    const some = (await get('?pageSize=100&page=3')).body.data.calls[7] as Call;
    const day = some.createdAt.slice(0, 10);
    const onDay = (await get(`?dateFrom=${day}&dateTo=${day}&pageSize=100`)).body.data;
    expect(onDay.calls.every((c: Call) => c.createdAt.startsWith(day))).toBe(true);
    expect(onDay.calls.some((c: Call) => c.id === some.id)).toBe(true);
    const byName = (await get(`?search=${encodeURIComponent(some.calleeName.toUpperCase())}&pageSize=100`)).body.data;
    expect(byName.calls.some((c: Call) => c.id === some.id)).toBe(true);
    expect(byName.calls.every((c: Call) => c.calleeName.toLowerCase().includes(some.calleeName.toLowerCase()))).toBe(true);
    const digits = some.phoneNumber.slice(-7);
    const formatted = `${digits.slice(0, 3)}-${digits.slice(3)}`;
    const byPhone = (await get(`?search=${encodeURIComponent(formatted)}`)).body.data;
    expect(byPhone.calls.map((c: Call) => c.id)).toContain(some.id);
  });

  it('refuses bad parameters naming them', async () => {
    for (const [q, field] of [
      ['?pageSize=101', 'pageSize'],
      ['?page=0', 'page'],
      ['?status=done', 'status'],
      ['?direction=up', 'direction'],
      ['?dateFrom=yesterday', 'dateFrom'],
      ['?dateTo=2026-13-45', 'dateTo'],
      ['?dateFrom=2026-02-30', 'dateFrom'],
      ['?dateTo=2026-04-31T10:00:00Z', 'dateTo'],
      ['?minDuration=-1', 'minDuration'],
      ['?minDuration=10&maxDuration=5', 'minDuration'],
    ]) {
      const r = await get(q!);
      expect(r.status, q).toBe(400);
      expect(r.body.error.message.startsWith(field!), `${q}: ${r.body.error.message}`).toBe(true);
    }
  });

  it('reads a timestamp without a zone as UTC whatever the host zone; refuses an impossible day', async () => {
    const { campaignId, contactIds } = await setup(emu, 2, ORG_B.apiKey);
    const tz = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      const r = await emu.api(
        'POST',
        `/api/v1/campaigns/${campaignId}/calls`,
        { contactIds: [contactIds[0]], scheduledFor: '2030-01-05T10:00:00' },
        ORG_B.apiKey,
      );
      expect(r.status).toBe(201);
      expect(r.body.data.calls[0].scheduledFor).toBe('2030-01-05T10:00:00.000Z');
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
    const bad = await emu.api(
      'POST',
      `/api/v1/campaigns/${campaignId}/calls`,
      { contactIds: [contactIds[1]], scheduledFor: '2030-02-30T10:00:00Z' },
      ORG_B.apiKey,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^scheduledFor: is not a valid date/);
  });

  it('keeps organizations apart on every call path', async () => {
    const acmeCall = calls[0]!;
    for (const p of [
      `/api/v1/calls/${acmeCall.id}`,
      `/api/v1/calls/${acmeCall.id}/transcript`,
      `/api/v1/calls/${acmeCall.id}/recording`,
      `/api/v1/calls/${acmeCall.id}/recording/audio`,
    ]) {
      const r = await emu.api('GET', p, undefined, ORG_B.apiKey);
      expect(r.status, p).toBe(404);
    }
    expect((await emu.api('POST', `/api/v1/calls/${acmeCall.id}/cancel`, undefined, ORG_B.apiKey)).status).toBe(404);
    expect((await get(`?campaignId=${campaignId}`)).body.data.pagination.total).toBe(0);
    const acme = (await emu.api('GET', `/api/v1/calls?campaignId=${seededCampaign}`)).body.data;
    expect(acme.pagination.total).toBe(0);
    expect((await emu.api('GET', `/api/v1/campaigns/${seededCampaign}/calls`)).status).toBe(404);
  });
});

describe('recordings', () => {
  let call: { id: string; duration: number };
  beforeAll(async () => {
    const c = calls.find((x) => x.status === 'completed')!;
    call = { id: c.id, duration: (await emu.api('GET', `/api/v1/calls/${c.id}`)).body.data.duration };
  });

  it('metadata names one completed recording of the call', async () => {
    const r = (await emu.api('GET', `/api/v1/calls/${call.id}/recording`)).body.data;
    expect(r.recordingCount).toBe(1);
    expect(r.recordings[0]).toMatchObject({ duration: call.duration, status: 'completed' });
    expect(r.recordings[0].sid).toMatch(/^RE[0-9a-f]{32}$/);
    expect(r.audioUrl).toBe(`/api/v1/calls/${call.id}/recording/audio`);
  });

  it('WAV: RIFF PCM 16-bit mono 8 kHz, as long as the call, content-length exact', async () => {
    const a = await audio(emu, call.id, '?format=wav');
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('audio/wav');
    expect(a.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.wav"$/);
    const b = a.body;
    expect(Number(a.headers.get('content-length'))).toBe(b.length);
    expect(b.toString('latin1', 0, 4)).toBe('RIFF');
    expect(b.readUInt32LE(4)).toBe(b.length - 8);
    expect(b.toString('latin1', 8, 16)).toBe('WAVEfmt ');
    expect(b.readUInt32LE(16)).toBe(16);
    expect(b.readUInt16LE(20)).toBe(1); // PCM
    expect(b.readUInt16LE(22)).toBe(1); // mono
    expect(b.readUInt32LE(24)).toBe(8000);
    expect(b.readUInt32LE(28)).toBe(16000);
    expect(b.readUInt16LE(32)).toBe(2);
    expect(b.readUInt16LE(34)).toBe(16);
    expect(b.toString('latin1', 36, 40)).toBe('data');
    expect(b.readUInt32LE(40)).toBe(call.duration * 8000 * 2);
    expect(b.length).toBe(44 + call.duration * 16000);
    // not silence: the turns are audible
    let peak = 0;
    for (let i = 44; i < b.length; i += 2) peak = Math.max(peak, Math.abs(b.readInt16LE(i)));
    expect(peak).toBeGreaterThan(5000);
  });

  it('MP3 (default): an ID3 tag, then MPEG-1 Layer III frames covering the call', async () => {
    const a = await audio(emu, call.id);
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('audio/mpeg');
    expect(Number(a.headers.get('content-length'))).toBe(a.body.length);
    let off = id3Length(a.body);
    expect(off).toBeGreaterThan(10);
    let frames = 0;
    while (off < a.body.length) {
      const h = parseFrameHeader(a.body, off);
      expect(h, `frame at ${off}`).toMatchObject({ version: 1, layer: 3, sampleRate: 48000, channels: 1, length: 96 });
      off += h!.length;
      frames++;
    }
    expect(off).toBe(a.body.length);
    expect(frames).toBe(Math.ceil((call.duration * 48000) / 1152));
  });

  it('refuses an unknown format or recording', async () => {
    const f = await audio(emu, call.id, '?format=ogg');
    expect(f.status).toBe(400);
    const s = await audio(emu, call.id, '?recordingSid=RE0000');
    expect(s.status).toBe(404);
    expect(JSON.parse(s.body.toString()).error.code).toBe('recording_not_found');
  });

  const soxi = spawnSync('soxi', ['-h'], { stdio: 'ignore' }).error ? null : 'soxi';
  it.skipIf(!soxi)('a real decoder (soxi, when installed) reads both files and their length', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-calls-audio-'));
    try {
      for (const fmt of ['wav', 'mp3']) {
        const file = join(dir, `call.${fmt}`);
        writeFileSync(file, (await audio(emu, call.id, `?format=${fmt}`)).body);
        const seconds = Number(execFileSync('soxi', ['-D', file]).toString().trim());
        expect(Math.abs(seconds - call.duration), fmt).toBeLessThan(0.1);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('seed control path', () => {
  it('inserts 100,000 ended calls that list and filter in pages', async () => {
    const e = await startTestEmulator();
    try {
      const r = await e.control<{ inserted: number; campaignId: string; totalCalls: number }>('POST', '/calls/seed', { count: 100_000 });
      expect(r).toMatchObject({ inserted: 100_000, totalCalls: 100_000 });
      const last = await e.api('GET', '/api/v1/calls?pageSize=100&page=1000');
      expect(last.body.data.calls).toHaveLength(100);
      expect(last.body.data.pagination).toEqual({ page: 1000, pageSize: 100, total: 100_000, totalPages: 1000 });
      const failed = await e.api('GET', '/api/v1/calls?status=failed&search=ma&pageSize=10');
      expect(failed.body.data.summary.total).toBe(failed.body.data.pagination.total);
      expect(failed.body.data.summary.failed).toBe(failed.body.data.pagination.total);
      expect(failed.body.data.pagination.total).toBeGreaterThan(100);
      const bad = await fetch(`${e.url}/_emulator/calls/seed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ count: 0 }),
      });
      expect(bad.status).toBe(400);
      // the same seed gives the same seeded calls
      const twin = await startTestEmulator();
      try {
        await twin.control('POST', '/calls/seed', { count: 100 });
        const x = (await twin.api('GET', '/api/v1/calls?pageSize=5')).body.data.calls;
        expect(x).toHaveLength(5);
        const again = await startTestEmulator();
        try {
          await again.control('POST', '/calls/seed', { count: 100 });
          // timestamps are relative to each emulator's now; everything else is the same
          const strip = (cs: Call[]) =>
            cs.map(({ id, calleeName, phoneNumber, status, duration, failureReason }) => ({ id, calleeName, phoneNumber, status, duration, failureReason }));
          expect(strip((await again.api('GET', '/api/v1/calls?pageSize=5')).body.data.calls)).toEqual(strip(x));
        } finally {
          await again.close();
        }
      } finally {
        await twin.close();
      }
    } finally {
      await e.close();
    }
  });
});

describe('persistence', () => {
  it('a restart resumes calls in flight and regenerates seeded calls from their stored batch', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-calls-state-'));
    try {
      const first = await startTestEmulator({ dataDir: dir });
      const { campaignId: cid } = await setup(first, 24);
      const seeded = await first.control<{ campaignId: string }>('POST', '/calls/seed', { count: 20_000 });
      const sample = (await first.api('GET', `/api/v1/calls?campaignId=${seeded.campaignId}&pageSize=3&page=77`)).body.data.calls as Call[];
      const sampleDetail = (await first.api('GET', `/api/v1/calls/${sample[0]!.id}`)).body.data;
      await first.api('POST', `/api/v1/campaigns/${cid}/calls`, { queueAllPending: true });
      await first.api('POST', `/api/v1/campaigns/${cid}/start`);
      await until('a call in flight', async () => (await first.api('GET', `/api/v1/campaigns/${cid}/calls?pageSize=1`)).body.data.summary.active > 0);
      const before = (await first.api('GET', `/api/v1/campaigns/${cid}/calls?pageSize=1`)).body.data.summary;
      await first.close();
      expect(before.queued).toBeGreaterThan(0);
      // 20,000 seeded calls are a few hundred bytes of batch parameters in the state files
      const { readdirSync, statSync } = await import('node:fs');
      const bytes = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
      expect(bytes).toBeLessThan(2_000_000);

      const second = await startTestEmulator({ dataDir: dir });
      try {
        expect((await second.api('GET', `/api/v1/calls/${sample[0]!.id}`)).body.data).toEqual(sampleDetail);
        expect((await second.api('GET', `/api/v1/calls?campaignId=${seeded.campaignId}&pageSize=3&page=77`)).body.data.calls).toEqual(sample);
        const done = await until('the campaign completes after the restart', async () => {
          const c = (await second.api('GET', `/api/v1/campaigns/${cid}`)).body.data;
          return c.status === 'completed' && c;
        });
        expect(done.completedAt).not.toBeNull();
        const s = (await second.api('GET', `/api/v1/campaigns/${cid}/calls`)).body.data.summary;
        expect(s).toMatchObject({ total: 24, queued: 0, active: 0 });
        const ended = (await events(second)).filter((e) => e.type === 'call.ended');
        const listed = (await second.api('GET', `/api/v1/campaigns/${cid}/calls?pageSize=100`)).body.data.calls as Call[];
        // every call of the campaign ended exactly once across the restart
        for (const c of listed) expect(ended.filter((e) => e.callId === c.id)).toHaveLength(1);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
