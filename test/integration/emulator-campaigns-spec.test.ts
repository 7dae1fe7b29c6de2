import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// A client written only from document 2 (parts 2–5 and 8): it sends `x-api-key` on every
// path of the document, reads `{ data: {...} }`, and checks each field the spec's tables
// name, with the spec's types and values. Nothing here relies on the emulator's own
// additions (contract fields); it checks only that the spec's fields are there and right.

let emu: TestEmulator;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const E164 = /^\+[1-9]\d{6,14}$/;
const CALL_STATUSES = ['queued', 'initiated', 'ringing', 'in_progress', 'completed', 'failed', 'cancelled'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Only the document's header: x-api-key on every path it lists. */
async function spec<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { 'x-api-key': ORG_A.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}
const data = async (method: string, path: string, body?: unknown) => {
  const r = await spec(method, path, body);
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  expect(Object.keys(r.body), `${method} ${path} envelope`).toContain('data');
  return r.body.data;
};

const isInt = (v: unknown) => Number.isInteger(v);
const isRate = (v: unknown) => typeof v === 'number' && v >= 0 && v <= 1;

function expectCall(c: any): void {
  expect(c.id).toMatch(UUID);
  expect(c.campaignId).toMatch(UUID);
  expect(c.phoneNumber).toMatch(E164);
  expect(typeof c.calleeName).toBe('string');
  expect(CALL_STATUSES).toContain(c.status);
  expect(['outbound', 'inbound']).toContain(c.direction);
  expect(isInt(c.duration)).toBe(true);
  expect(c.createdAt).toMatch(ISO);
  if (c.status === 'completed' || c.status === 'failed') expect(c.endedAt).toMatch(ISO);
  expect(c).not.toHaveProperty('summary'); // only on the detail endpoint, never in listings
}

function expectCampaign(c: any): void {
  expect(c.id).toMatch(UUID);
  expect(typeof c.name).toBe('string');
  expect(typeof c.description).toBe('string');
  expect(['draft', 'active', 'paused', 'completed']).toContain(c.status);
  expect(['outbound', 'inbound']).toContain(c.direction);
  expect(isInt(c.totalContacts)).toBe(true);
  expect(c.createdAt).toMatch(ISO);
  expect(c.updatedAt).toMatch(ISO);
}

let agentId: string;
let listId: string;
let contactIds: string[];

beforeAll(async () => {
  emu = await startTestEmulator();
  // Agents are document 1's (Bearer); the test helper speaks that form.
  agentId = (
    await emu.api('POST', '/api/v1/agents', {
      name: 'Ava',
      engine: 'pipeline',
      instructions: 'You are Ava from Bright Dental. You remind patients of appointments.',
    })
  ).body.data.id;
  const list = await spec('POST', '/api/v1/contact-lists', {
    name: 'Patients',
    schema: {
      fields: [
        { name: 'name', type: 'string', required: true },
        { name: 'phone', type: 'phone', required: true },
      ],
    },
  });
  listId = (list.body.data ?? list.body).id;
  const job = await spec('POST', `/api/v1/contact-lists/${listId}/contacts`, {
    contacts: Array.from({ length: 5 }, (_, i) => ({ name: `Patient ${i}`, phone: `+1415555${String(300 + i).padStart(4, '0')}` })),
  });
  expect(job.status).toBe(202);
  await until('the import', async () => (await spec('GET', `/api/v1/import-jobs/${job.body.jobId}`)).body.status === 'completed');
  contactIds = (await spec('GET', `/api/v1/contact-lists/${listId}/contacts?limit=100`)).body.data.map((c: { id: string }) => c.id);
});
afterAll(async () => {
  await emu.close();
});

describe('a spec-only client: campaigns, calls and analytics (document 2)', () => {
  it('creates, fills, queues, starts and reads an outbound campaign with the fields of the spec', async () => {
    const created = await data('POST', '/api/v1/campaigns', {
      name: 'Spec',
      description: 'from the spec',
      direction: 'outbound',
      contactListId: listId,
      agentId,
      agent: { type: 'voice' },
    });
    expectCampaign(created);
    expect(created).toMatchObject({
      name: 'Spec',
      description: 'from the spec',
      status: 'draft',
      direction: 'outbound',
      contactListId: listId,
      contactListName: 'Patients',
    });
    const id = created.id as string;

    const listing = await data('GET', '/api/v1/campaigns');
    expect(Object.keys(listing).sort()).toEqual(['campaigns', 'pagination']);
    expect(listing.pagination.pageSize ?? listing.pagination.limit).toBe(20); // default 20
    listing.campaigns.forEach(expectCampaign);
    expect((await data('GET', `/api/v1/campaigns?status=draft&direction=outbound&search=spe`)).campaigns.map((c: { id: string }) => c.id)).toContain(id);
    expectCampaign(await data('GET', `/api/v1/campaigns/${id}`));
    expect((await data('PATCH', `/api/v1/campaigns/${id}`, { description: 'changed' })).description).toBe('changed');

    await data('POST', `/api/v1/campaigns/${id}/contacts`, { contactIds });
    expect((await data('GET', `/api/v1/campaigns/${id}`)).totalContacts).toBe(5);
    // priority 1..10 (spec part 8): 0 and 11 are refused
    for (const priority of [0, 11]) expect((await spec('POST', `/api/v1/campaigns/${id}/calls`, { queueAllPending: true, priority })).status).toBe(400);
    await data('POST', `/api/v1/campaigns/${id}/calls`, { contactIds: [contactIds[0]], priority: 10 });
    // scheduledFor: an ISO date string, a little after the service's own now (its createdAt)
    const later = await data('POST', `/api/v1/campaigns/${id}/calls`, {
      queueAllPending: true,
      priority: 2,
      scheduledFor: new Date(Date.parse(created.createdAt) + 600_000).toISOString(),
    });
    expect(later).toBeTypeOf('object');
    const queued = await data('GET', `/api/v1/campaigns/${id}/calls?status=queued`);
    expect(Object.keys(queued).sort()).toEqual(['calls', 'pagination', 'summary']);
    expect(Object.keys(queued.pagination).sort()).toEqual(['page', 'pageSize', 'total', 'totalPages']);
    expect(Object.keys(queued.summary).sort()).toEqual(['active', 'completed', 'failed', 'queued', 'total']);
    expect(queued.summary.queued).toBe(5);
    queued.calls.forEach(expectCall);

    // A draft cannot be paused; an active campaign cannot be deleted until paused.
    expect((await spec('POST', `/api/v1/campaigns/${id}/pause`)).status).toBeGreaterThanOrEqual(400);
    expect((await data('POST', `/api/v1/campaigns/${id}/start`)).status).toBe('active');
    expect((await spec('POST', `/api/v1/campaigns/${id}/start`)).status).toBeGreaterThanOrEqual(400);
    const del = await spec('DELETE', `/api/v1/campaigns/${id}`);
    expect(del.status).toBeGreaterThanOrEqual(400);
    expect((await data('GET', `/api/v1/campaigns/${id}`)).status).not.toBe('draft');

    // The active filter is spelt in-progress; every call ends, then is analysed.
    expect((await spec('GET', '/api/v1/calls?status=in-progress')).status).toBe(200);
    const ended = await until('every call ended', async () => {
      const d = await data('GET', `/api/v1/calls?campaignId=${id}&pageSize=100`);
      return d.summary.queued === 0 && d.summary.active === 0 && d.calls;
    });
    expect(ended).toHaveLength(5);
    ended.forEach(expectCall);
    const first = ended.find((c: { status: string }) => c.status === 'completed');
    expect(first).toBeDefined();
    const detail = await until('the analysis', async () => {
      const d = await data('GET', `/api/v1/calls/${first.id}`);
      return d.analysis && d;
    });
    expect(typeof detail.summary).toBe('string');
    const a = detail.analysis;
    expect(a.analyzedAt).toMatch(ISO);
    expect(typeof a.sentiment.overallSentiment).toBe('string');
    expect(typeof a.sentiment.confidence).toBe('number');
    expect(typeof a.sentiment.summary).toBe('string');
    expect(Object.keys(a.sentiment.emotionalTone).sort()).toEqual(['caller', 'recipient']);
    for (const k of ['clarity', 'effectiveness', 'rapport']) expect(typeof a.sentiment.communicationQuality[k]).toBe('number');
    for (const k of ['reachedHuman', 'reachedVoicemail', 'leftMessage']) expect(typeof a.humanContact[k]).toBe('boolean');
    for (const o of Object.values(a.objectives) as any[]) {
      expect(['True', 'False', 'Unknown']).toContain(o.status);
      expect(typeof o.confidence).toBe('number');
      expect(typeof o.reasoning).toBe('string');
    }
    expect(typeof a.callback.callbackRequested).toBe('boolean');
    expect(typeof a.callback.humanTransferRequested).toBe('boolean');
    expect(typeof a.doNotCall.requested).toBe('boolean');
    expect(typeof a.doNotCall.requestType).toBe('string');
    expect(typeof a.legal.threatened).toBe('boolean');
    expect(['lawsuit', 'lawyer', 'regulatory', 'none']).toContain(a.legal.threatType);
    expect(typeof a.crisis.detected).toBe('boolean');
    expect(typeof a.crisis.indicatorType).toBe('string');
    expect(['full', 'partial', 'unresolved']).toContain(a.resolution.resolutionType);
    for (const k of ['resolved', 'escalated', 'followUpRequired']) expect(typeof a.resolution[k]).toBe('boolean');
    for (const k of ['ivr', 'informationUpdates', 'communicationPromises', 'callerIntent']) expect(a).toHaveProperty(k);

    const t = await data('GET', `/api/v1/calls/${first.id}/transcript`);
    expect(t.callId).toBe(first.id);
    expect(t.messageCount).toBe(t.messages.length);
    expect(isInt(t.duration)).toBe(true);
    t.messages.forEach((m: any, i: number) => {
      expect(['agent', 'user']).toContain(m.role);
      expect(typeof m.text).toBe('string');
      expect(m.ordinal).toBe(i);
    });
    const rec = await data('GET', `/api/v1/calls/${first.id}/recording`);
    expect(rec.callId).toBe(first.id);
    expect(rec.recordingCount).toBe(rec.recordings.length);
    expect(rec.audioUrl.startsWith('/')).toBe(true);
    for (const r of rec.recordings) {
      expect(typeof r.sid).toBe('string');
      expect(isInt(r.duration)).toBe(true);
      expect(typeof r.status).toBe('string');
      expect(r.createdAt).toMatch(ISO);
    }
    // Only queued calls are cancellable: a completed one stays completed.
    expect((await spec('POST', `/api/v1/calls/${first.id}/cancel`)).status).toBeGreaterThanOrEqual(400);
    expect((await data('GET', `/api/v1/calls/${first.id}`)).status).toBe('completed');

    // Analytics: the groups and fields of part 2, rates 0..1.
    const an = await until('analysed calls', async () => {
      const d = await data('GET', `/api/v1/campaigns/${id}/analytics`);
      return d.meta.isStale === false && d;
    });
    expect(an.campaign).toMatchObject({ id, name: 'Spec' });
    expect(typeof an.campaign.status).toBe('string');
    const m = an.metrics;
    expect(Object.keys(m).sort()).toEqual(['callStats', 'complianceMetrics', 'costMetrics', 'qualityMetrics', 'successMetrics']);
    for (const k of ['totalCalls', 'completedCalls', 'failedCalls', 'cancelledCalls', 'pendingCalls']) expect(isInt(m.callStats[k]), k).toBe(true);
    expect(m.callStats.totalCalls).toBe(5);
    for (const k of ['humanContactRate', 'objectiveSuccessRate', 'callbackRate']) expect(isRate(m.successMetrics[k]), k).toBe(true);
    expect(typeof m.qualityMetrics.avgSentimentScore).toBe('number');
    expect(typeof m.qualityMetrics.avgCallDuration).toBe('number');
    expect(isRate(m.complianceMetrics.doNotCallRate)).toBe(true);
    for (const k of ['totalCost', 'avgCostPerCall']) expect(typeof m.costMetrics[k]).toBe('number');
    expect(an.meta.calculatedAt).toMatch(ISO);
    const today = an.meta.calculatedAt.slice(0, 10);
    expect((await data('GET', `/api/v1/campaigns/${id}/analytics?dateFrom=${today}&dateTo=${today}`)).metrics.callStats.totalCalls).toBeGreaterThanOrEqual(0);

    const sum = await data('GET', `/api/v1/campaigns/${id}/analytics/summary`);
    expect(sum).toMatchObject({
      totalCalls: 5,
      completedCalls: m.callStats.completedCalls,
      humanContactRate: m.successMetrics.humanContactRate,
      objectiveSuccessRate: m.successMetrics.objectiveSuccessRate,
      avgSentimentScore: m.qualityMetrics.avgSentimentScore,
    });
    const rt = await data('GET', `/api/v1/campaigns/${id}/analytics/realtime`);
    for (const k of ['activeCalls', 'queuedCalls', 'callsCompletedToday']) expect(isInt(rt[k]), k).toBe(true);
    expect(typeof rt.currentCallRate).toBe('number');
    expect(rt.lastCallAt).toMatch(ISO);

    const runs = (await data('GET', `/api/v1/campaigns/${id}/runs`)).runs;
    expect(runs.length).toBeGreaterThanOrEqual(1);
    for (const r of runs) {
      expect(Object.keys(r).sort()).toEqual(expect.arrayContaining(['completedCalls', 'endedAt', 'id', 'startedAt', 'totalCalls']));
      expect(r.startedAt).toMatch(ISO);
    }
    expect(runs.reduce((s: number, r: { totalCalls: number }) => s + r.totalCalls, 0)).toBe(5);
    const ra = await data('GET', `/api/v1/campaigns/${id}/runs/${runs[0].id}/analytics`);
    expect(ra.metrics.callStats.totalCalls).toBe(runs[0].totalCalls);

    const ov = await data('GET', '/api/v1/analytics/overview');
    for (const k of ['totalCampaigns', 'activeCampaigns', 'totalCalls', 'totalCallDuration']) expect(isInt(ov[k]), k).toBe(true);
    for (const k of ['avgHumanContactRate', 'avgObjectiveSuccessRate']) expect(isRate(ov[k]), k).toBe(true);
    expect(ov.totalCalls).toBeGreaterThanOrEqual(5);
    expect(ov.period.from).toMatch(ISO);
    expect(ov.period.to).toMatch(ISO);
    if (ov.topPerformingCampaign) expect(Object.keys(ov.topPerformingCampaign).sort()).toEqual(['id', 'name', 'objectiveSuccessRate']);
  });

  it('inbound needs provisionedPhoneNumberId; API campaigns take no list and are triggered call by call', async () => {
    expect((await spec('POST', '/api/v1/campaigns', { name: 'In', direction: 'inbound', agentId })).status).toBe(400);
    const pn = (await emu.control<{ orgs: Array<{ org: string; phoneNumbers: Array<{ id: string }> }> }>('GET', '/phone-numbers?org=acme')).orgs[0]!
      .phoneNumbers[0]!.id;
    const inbound = await data('POST', '/api/v1/campaigns', { name: 'In', direction: 'inbound', agentId, provisionedPhoneNumberId: pn });
    expectCampaign(inbound);
    await data('POST', `/api/v1/campaigns/${inbound.id}/start`);
    const ib = await until('an inbound call', async () => {
      const d = await data('GET', `/api/v1/campaigns/${inbound.id}/analytics/inbound`);
      return d.totalInboundCalls > 0 && d;
    });
    for (const k of ['totalInboundCalls', 'answeredCalls', 'missedCalls']) expect(isInt(ib[k]), k).toBe(true);
    for (const k of ['avgWaitTime', 'avgHandleTime']) expect(typeof ib[k]).toBe('number');
    expect(ib.peakHour).toMatch(/^\d\d:\d\d$/);
    expect(Object.keys(ib.callsByHour).sort()).toEqual(Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')));
    expect(Object.values(ib.callsByHour).every(isInt)).toBe(true);
    expect(
      (await data('GET', `/api/v1/calls?direction=inbound&campaignId=${inbound.id}`)).calls.every((c: { direction: string }) => c.direction === 'inbound'),
    ).toBe(true);
    await data('POST', `/api/v1/campaigns/${inbound.id}/pause`);
    expect((await spec('DELETE', `/api/v1/campaigns/${inbound.id}`)).status).toBeLessThan(300);
    expect((await spec('GET', `/api/v1/campaigns/${inbound.id}`)).status).toBe(404);

    expect((await spec('POST', '/api/v1/campaigns', { name: 'Api', type: 'api', agentId, contactListId: listId })).status).toBe(400);
    const api = await data('POST', '/api/v1/campaigns', { name: 'Api', type: 'api', agentId });
    expectCampaign(api);
    await data('POST', `/api/v1/campaigns/${api.id}/start`);
    await data('POST', `/api/v1/campaigns/${api.id}/trigger`, { phoneNumber: '+14155550777' });
    const calls = await data('GET', `/api/v1/campaigns/${api.id}/calls`);
    expect(calls.pagination.total).toBe(1);
    expectCall(calls.calls[0]);
  });
});
