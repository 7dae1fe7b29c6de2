import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// Analytics over real HTTP. State is built through the public API (an outbound campaign
// run twice, an inbound campaign) and the control path (seeded historical calls); every
// figure is then recomputed here, independently, from what the calls listing
// (GET /api/v1/calls?campaignId=…, paged through) and the call details
// (GET /api/v1/calls/{id}) show, with the contract's rules: rates over analysed calls,
// avgCallDuration over completed calls, cost $0.01 per dial + $0.015 per started minute
// (failed: $0.01) over ended calls, sentiment positive 1 / neutral 0.5 / negative 0.

let emu: TestEmulator;
const BKEY = ORG_B.apiKey;

async function ok<T = any>(method: string, path: string, body?: unknown, key?: string): Promise<T> {
  const r = await emu.api(method, path, body, key);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as T;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Every call of the listing, paged through (newest first). */
async function listing(query: string, key?: string): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const b = await ok('GET', `/api/v1/calls?${query}&pageSize=100&page=${page}`, undefined, key);
    out.push(...b.data.calls);
    expect(b.data.summary.total).toBe(b.data.pagination.total);
    if (page >= b.data.pagination.totalPages) break;
  }
  return out;
}

/** Call details (analysis, runId), fetched a few at a time. */
async function details(calls: any[], key?: string): Promise<Map<string, any>> {
  const m = new Map<string, any>();
  for (let i = 0; i < calls.length; i += 25) {
    const batch = await Promise.all(calls.slice(i, i + 25).map((c) => ok('GET', `/api/v1/calls/${c.id}`, undefined, key)));
    for (const b of batch) m.set(b.data.id, b.data);
  }
  return m;
}

const ENDED = new Set(['completed', 'failed']);
const ACTIVE = new Set(['initiated', 'ringing', 'in_progress']);
const score = (s: string) => (s === 'positive' ? 1 : s === 'negative' ? 0 : 0.5);
const costOf = (c: any) => (c.status === 'failed' ? 0.01 : c.status === 'completed' ? 0.01 + 0.015 * Math.ceil(c.duration / 60) : 0);
const ratio = (n: number, d: number) => (d > 0 ? n / d : 0);

/** The metrics the listing and details imply. */
function expected(calls: any[], det: Map<string, any>) {
  const n = (f: (c: any) => boolean) => calls.filter(f).length;
  const analyses = calls.map((c) => det.get(c.id)?.analysis).filter((a) => a);
  const a = (f: (x: any) => boolean) => analyses.filter(f).length;
  const completed = calls.filter((c) => c.status === 'completed');
  const ended = calls.filter((c) => ENDED.has(c.status));
  const totalCost = ended.reduce((s, c) => s + costOf(c), 0);
  return {
    metrics: {
      callStats: {
        totalCalls: calls.length,
        completedCalls: completed.length,
        failedCalls: n((c) => c.status === 'failed'),
        cancelledCalls: n((c) => c.status === 'cancelled'),
        pendingCalls: n((c) => c.status === 'queued' || ACTIVE.has(c.status)),
      },
      successMetrics: {
        humanContactRate: ratio(
          a((x) => x.humanContact.reachedHuman === true),
          analyses.length,
        ),
        objectiveSuccessRate: ratio(
          a((x) => x.objectives.primary.status === 'True'),
          analyses.length,
        ),
        callbackRate: ratio(
          a((x) => x.callback.callbackRequested === true),
          analyses.length,
        ),
      },
      qualityMetrics: {
        avgSentimentScore: ratio(
          analyses.reduce((s, x) => s + score(x.sentiment.overallSentiment), 0),
          analyses.length,
        ),
        avgCallDuration: ratio(
          completed.reduce((s, c) => s + c.duration, 0),
          completed.length,
        ),
      },
      complianceMetrics: {
        doNotCallRate: ratio(
          a((x) => x.doNotCall.requested === true),
          analyses.length,
        ),
      },
      costMetrics: { totalCost, avgCostPerCall: ratio(totalCost, ended.length) },
    },
    // Only completed calls are analysed; a failed call never connected and has no analysis.
    isStale: completed.some((c) => !det.get(c.id)?.analysis),
    analysed: analyses.length,
  };
}

/** `got` is `want` rounded to `decimals` places (half a unit of the last place, either way). */
function near(got: number, want: number, decimals: number, what = ''): void {
  expect(typeof got, what).toBe('number');
  expect(Math.round(got * 10 ** decimals), `${what} has at most ${decimals} decimals`).toBeCloseTo(got * 10 ** decimals, 6);
  expect(Math.abs(got - want), `${what}: ${got} vs ${want}`).toBeLessThanOrEqual(0.5 * 10 ** -decimals + 1e-9);
}

/** Every figure within its rounding (rates 4 decimals, seconds and dollars 2). */
function expectMetrics(got: any, want: ReturnType<typeof expected>['metrics']): void {
  expect(got.callStats).toEqual(want.callStats);
  for (const k of ['humanContactRate', 'objectiveSuccessRate', 'callbackRate'] as const) near(got.successMetrics[k], want.successMetrics[k], 4, k);
  near(got.qualityMetrics.avgSentimentScore, want.qualityMetrics.avgSentimentScore, 4, 'avgSentimentScore');
  near(got.qualityMetrics.avgCallDuration, want.qualityMetrics.avgCallDuration, 2, 'avgCallDuration');
  near(got.complianceMetrics.doNotCallRate, want.complianceMetrics.doNotCallRate, 4, 'doNotCallRate');
  near(got.costMetrics.totalCost, want.costMetrics.totalCost, 2, 'totalCost');
  near(got.costMetrics.avgCostPerCall, want.costMetrics.avgCostPerCall, 2, 'avgCostPerCall');
  for (const v of [
    got.successMetrics.humanContactRate,
    got.successMetrics.objectiveSuccessRate,
    got.successMetrics.callbackRate,
    got.complianceMetrics.doNotCallRate,
  ]) {
    expect(v).toBeGreaterThanOrEqual(0);
    expect(v).toBeLessThanOrEqual(1);
  }
}

/** Analytics of an idle campaign, read on both sides of the listing so nothing changed in between. */
async function stableAnalytics(path: string, listQuery: string): Promise<{ data: any; calls: any[]; det: Map<string, any> }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = (await ok('GET', path)).data;
    const calls = await listing(listQuery);
    const det = await details(calls);
    const after = (await ok('GET', path)).data;
    const same =
      JSON.stringify({ ...before, meta: { ...before.meta, calculatedAt: 0 } }) === JSON.stringify({ ...after, meta: { ...after.meta, calculatedAt: 0 } });
    if (same) return { data: after, calls, det };
  }
  throw new Error(`${path} kept changing`);
}

let agentId: string;
let outbound: any; // { id, ... } run twice
let inbound: any;
let seeded: any; // outbound campaign holding seeded history, some of it never analysed
let runIds: string[] = [];
const staleSeen = { duringRun: false };

async function createOutbound(name: string, contactIds: string[], listId: string): Promise<any> {
  const c = (await ok('POST', '/api/v1/campaigns', { name, direction: 'outbound', contactListId: listId, agentId })).data;
  if (contactIds.length) await ok('POST', `/api/v1/campaigns/${c.id}/contacts`, { contactIds });
  return c;
}

async function allEndedAndAnalysed(campaignId: string): Promise<boolean> {
  const a = (await ok('GET', `/api/v1/campaigns/${campaignId}/analytics`)).data;
  if (a.meta.isStale) staleSeen.duringRun = true;
  return a.metrics.callStats.pendingCalls === 0 && !a.meta.isStale;
}

beforeAll(async () => {
  emu = await startTestEmulator();
  agentId = (
    await ok('POST', '/api/v1/agents', {
      name: 'Ava',
      engine: 'realtime',
      instructions: 'You are Ava from Bright Dental. You call patients to remind them about their appointments.',
    })
  ).data.id;
  const listId = (
    await ok('POST', '/api/v1/contact-lists', {
      name: 'Patients',
      schema: {
        fields: [
          { name: 'name', type: 'string', required: true },
          { name: 'phone', type: 'phone', required: true },
        ],
      },
    })
  ).data.id;
  const contacts = Array.from({ length: 12 }, (_, i) => ({ name: `Person ${i}`, phone: `+1415555${String(1000 + i)}` }));
  const job = await ok('POST', `/api/v1/contact-lists/${listId}/contacts`, { contacts });
  await until('the import', async () => (await ok('GET', `/api/v1/import-jobs/${job.jobId}`)).status === 'completed');
  const ids: string[] = (await ok('GET', `/api/v1/contact-lists/${listId}/contacts?limit=100`)).data.map((c: any) => c.id);
  expect(ids).toHaveLength(12);

  // Outbound: run 1 calls 6 contacts, then pause; run 2 calls the other 6 and completes.
  outbound = await createOutbound('Reminders', ids, listId);
  await ok('POST', `/api/v1/campaigns/${outbound.id}/calls`, { contactIds: ids.slice(0, 6) });
  await ok('POST', `/api/v1/campaigns/${outbound.id}/start`);
  await until('run 1 to end and be analysed', async () => {
    const rt = (await ok('GET', `/api/v1/campaigns/${outbound.id}/analytics/realtime`)).data;
    expect(rt.activeCalls).toBeLessThanOrEqual(3);
    expect(rt.activeCalls + rt.queuedCalls).toBeLessThanOrEqual(6);
    return allEndedAndAnalysed(outbound.id);
  });
  await ok('POST', `/api/v1/campaigns/${outbound.id}/pause`);
  await ok('POST', `/api/v1/campaigns/${outbound.id}/calls`, { queueAllPending: true });
  await ok('POST', `/api/v1/campaigns/${outbound.id}/start`);
  await until('the campaign to complete', async () => (await ok('GET', `/api/v1/campaigns/${outbound.id}`)).data.status === 'completed');
  await until('run 2 to be analysed', () => allEndedAndAnalysed(outbound.id));

  // Inbound: callers arrive while active; then paused, and some seeded history added.
  const numbers = (await emu.control<any>('GET', '/phone-numbers?org=acme')).orgs[0].phoneNumbers;
  inbound = (await ok('POST', '/api/v1/campaigns', { name: 'Front desk', direction: 'inbound', provisionedPhoneNumberId: numbers[0].id, agentId })).data;
  await ok('POST', `/api/v1/campaigns/${inbound.id}/start`);
  await until('inbound callers', async () => (await ok('GET', `/api/v1/campaigns/${inbound.id}/analytics/summary`)).data.totalCalls >= 8);
  await ok('POST', `/api/v1/campaigns/${inbound.id}/pause`);
  await until('inbound calls to end and be analysed', () => allEndedAndAnalysed(inbound.id));
  await emu.control('POST', '/calls/seed', { org: 'acme', campaignId: inbound.id, count: 150 });

  // Seeded history: 250 analysed calls and 20 whose analysis never comes.
  seeded = await createOutbound('History', [], listId);
  await emu.control('POST', '/calls/seed', { org: 'acme', campaignId: seeded.id, count: 250 });
  await emu.control('POST', '/calls/seed', { org: 'acme', campaignId: seeded.id, count: 20, analysed: false });
}, 120_000);

afterAll(async () => {
  await emu?.close();
});

describe('campaign analytics', () => {
  it('equals what the listing and the call details imply (outbound campaign run twice)', async () => {
    const { data, calls, det } = await stableAnalytics(`/api/v1/campaigns/${outbound.id}/analytics`, `campaignId=${outbound.id}`);
    expect(calls).toHaveLength(12);
    expect(data.campaign).toEqual({ id: outbound.id, name: 'Reminders', status: 'completed' });
    const want = expected(calls, det);
    expect(want.analysed).toBe(data.metrics.callStats.completedCalls);
    expect(calls.filter((c) => c.status === 'failed').every((c) => det.get(c.id).analysis === null)).toBe(true);
    expectMetrics(data.metrics, want.metrics);
    expect(data.metrics.callStats.completedCalls + data.metrics.callStats.failedCalls).toBe(12);
    expect(data.meta.isStale).toBe(false);
    expect(Number.isNaN(Date.parse(data.meta.calculatedAt))).toBe(false);
  });

  it('was stale while a completed call awaited its analysis, and is stale for completed calls that are never analysed', async () => {
    expect(staleSeen.duringRun).toBe(true);
    const { data, calls, det } = await stableAnalytics(`/api/v1/campaigns/${seeded.id}/analytics`, `campaignId=${seeded.id}`);
    expect(calls).toHaveLength(270);
    const want = expected(calls, det);
    // 250 seeded analysed: their completed calls carry an analysis, their failed ones none
    expect(want.analysed).toBeGreaterThan(150);
    expect(want.analysed).toBeLessThan(250);
    expect(want.isStale).toBe(true);
    expect(data.meta.isStale).toBe(true);
    expectMetrics(data.metrics, want.metrics);
  });

  it('limits the figures to the calls created on the days asked for (both ends included)', async () => {
    const calls = await listing(`campaignId=${seeded.id}`);
    const days = [...new Set(calls.map((c) => c.createdAt.slice(0, 10)))].sort();
    expect(days.length).toBeGreaterThan(10);
    const ranges: Array<[string | null, string | null]> = [
      [days[3]!, days[8]!],
      [days[5]!, days[5]!],
      [null, days[2]!],
      [days[days.length - 2]!, null],
      ['2000-01-01', '2000-01-31'],
    ];
    const det = await details(calls);
    for (const [from, to] of ranges) {
      const q = [from ? `dateFrom=${from}` : '', to ? `dateTo=${to}` : ''].filter(Boolean).join('&');
      const data = (await ok('GET', `/api/v1/campaigns/${seeded.id}/analytics?${q}`)).data;
      const inRange = calls.filter((c) => (!from || c.createdAt.slice(0, 10) >= from) && (!to || c.createdAt.slice(0, 10) <= to));
      const want = expected(inRange, det);
      expectMetrics(data.metrics, want.metrics);
      expect(data.meta.isStale, q).toBe(want.isStale);
      // The calls listing's own date filter (a date-only dateTo covers the day) agrees.
      const listed = await ok('GET', `/api/v1/calls?campaignId=${seeded.id}&${q}&pageSize=1`);
      expect(listed.data.pagination.total, q).toBe(data.metrics.callStats.totalCalls);
    }
  });

  it('refuses a date that is not YYYY-MM-DD, or a range that ends before it starts, with a 400 naming the parameter', async () => {
    for (const [q, name] of [
      ['dateFrom=2026-13-01', 'dateFrom'],
      ['dateFrom=2026-02-30', 'dateFrom'],
      ['dateTo=20261101', 'dateTo'],
      ['dateTo=2026-11-01T00:00:00Z', 'dateTo'],
      ['dateTo=yesterday', 'dateTo'],
      ['dateFrom=2026-11-02&dateTo=2026-11-01', 'dateFrom'],
    ]) {
      for (const path of [`/api/v1/campaigns/${outbound.id}/analytics`, `/api/v1/campaigns/${outbound.id}/runs/${runIds[0] ?? 'x'}/analytics`]) {
        const r = await emu.api('GET', `${path}?${q}`);
        expect(r.status, `${path}?${q}`).toBe(400);
        expect(r.body.error.code).toBe('validation_error');
        expect(r.body.error.message).toContain(name);
      }
    }
  });

  it('summary: the five headline figures of the same computation', async () => {
    for (const c of [outbound, seeded, inbound]) {
      const full = (await ok('GET', `/api/v1/campaigns/${c.id}/analytics`)).data;
      const s = (await ok('GET', `/api/v1/campaigns/${c.id}/analytics/summary`)).data;
      expect(s).toMatchObject({
        totalCalls: full.metrics.callStats.totalCalls,
        completedCalls: full.metrics.callStats.completedCalls,
        humanContactRate: full.metrics.successMetrics.humanContactRate,
        objectiveSuccessRate: full.metrics.successMetrics.objectiveSuccessRate,
        avgSentimentScore: full.metrics.qualityMetrics.avgSentimentScore,
      });
      expect(s.meta.isStale).toBe(full.meta.isStale);
    }
  });

  it('a campaign without calls has zero figures', async () => {
    const c = (await ok('POST', '/api/v1/campaigns', { name: 'Empty', type: 'api', agentId })).data;
    const a = (await ok('GET', `/api/v1/campaigns/${c.id}/analytics`)).data;
    expect(a.metrics).toEqual({
      callStats: { totalCalls: 0, completedCalls: 0, failedCalls: 0, cancelledCalls: 0, pendingCalls: 0 },
      successMetrics: { humanContactRate: 0, objectiveSuccessRate: 0, callbackRate: 0 },
      qualityMetrics: { avgSentimentScore: 0, avgCallDuration: 0 },
      complianceMetrics: { doNotCallRate: 0 },
      costMetrics: { totalCost: 0, avgCostPerCall: 0 },
    });
    expect(a.meta.isStale).toBe(false);
    expect((await ok('GET', `/api/v1/campaigns/${c.id}/runs`)).data.runs).toEqual([]);
    await ok('DELETE', `/api/v1/campaigns/${c.id}`);
  });
});

describe('runs', () => {
  it('one run per period of activity, newest first, holding the calls initiated during it', async () => {
    const runs = (await ok('GET', `/api/v1/campaigns/${outbound.id}/runs`)).data.runs;
    expect(runs).toHaveLength(2);
    runIds = runs.map((r: any) => r.id);
    const [second, first] = runs;
    for (const r of runs) {
      expect(Object.keys(r).sort()).toEqual(['completedCalls', 'endedAt', 'id', 'startedAt', 'totalCalls']);
      expect(r.endedAt).not.toBeNull();
      expect(r.startedAt <= r.endedAt).toBe(true);
    }
    expect(first.endedAt <= second.startedAt).toBe(true);
    const calls = await listing(`campaignId=${outbound.id}`);
    const det = await details(calls);
    for (const r of runs) {
      const mine = calls.filter((c) => c.startedAt >= r.startedAt && (r.endedAt === null || c.startedAt <= r.endedAt));
      expect(mine.map((c) => c.id).sort()).toEqual(
        calls
          .filter((c) => det.get(c.id).runId === r.id)
          .map((c) => c.id)
          .sort(),
      );
      expect(r.totalCalls).toBe(mine.length);
      expect(r.completedCalls).toBe(mine.filter((c) => c.status === 'completed').length);
    }
    expect(first.totalCalls).toBe(6);
    expect(second.totalCalls).toBe(6);
  });

  it('run analytics: the campaign analytics of that run’s calls, plus the run', async () => {
    const runs = (await ok('GET', `/api/v1/campaigns/${outbound.id}/runs`)).data.runs;
    const calls = await listing(`campaignId=${outbound.id}`);
    const det = await details(calls);
    for (const r of runs) {
      const data = (await ok('GET', `/api/v1/campaigns/${outbound.id}/runs/${r.id}/analytics`)).data;
      expect(data.campaign).toEqual({ id: outbound.id, name: 'Reminders', status: 'completed' });
      expect(data.run).toEqual(r);
      const want = expected(
        calls.filter((c) => det.get(c.id).runId === r.id),
        det,
      );
      expectMetrics(data.metrics, want.metrics);
      expect(data.meta.isStale).toBe(false);
    }
  });

  it('an unknown run, or another campaign’s run, is a 404', async () => {
    const inboundRun = (await ok('GET', `/api/v1/campaigns/${inbound.id}/runs`)).data.runs[0];
    expect(inboundRun).toBeDefined();
    for (const runId of ['00000000-0000-4000-8000-000000000000', inboundRun.id]) {
      const r = await emu.api('GET', `/api/v1/campaigns/${outbound.id}/runs/${runId}/analytics`);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
  });
});

describe('inbound analytics', () => {
  it('equals what the listing implies; callsByHour has 24 keys that sum to the total; the peak is the busiest, earliest hour', async () => {
    const { data, calls, det } = await stableAnalytics(`/api/v1/campaigns/${inbound.id}/analytics/inbound`, `campaignId=${inbound.id}`);
    expect(calls.length).toBeGreaterThanOrEqual(158);
    expect(calls.every((c) => c.direction === 'inbound')).toBe(true);
    const hours = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'));
    expect(Object.keys(data.callsByHour).sort()).toEqual(hours);
    expect(Object.values<number>(data.callsByHour).reduce((a, b) => a + b, 0)).toBe(data.totalInboundCalls);
    for (const h of hours) expect(data.callsByHour[h], h).toBe(calls.filter((c) => c.createdAt.slice(11, 13) === h).length);
    const max = Math.max(...hours.map((h) => data.callsByHour[h]));
    expect(data.peakHour).toBe(`${hours.find((h) => data.callsByHour[h] === max)}:00`);

    const answered = calls.filter((c) => det.get(c.id).answeredAt);
    const completed = calls.filter((c) => c.status === 'completed');
    expect(data.totalInboundCalls).toBe(calls.length);
    expect(data.answeredCalls).toBe(answered.length);
    expect(answered.map((c) => c.id).sort()).toEqual(completed.map((c) => c.id).sort()); // all ended: answered = completed
    expect(data.missedCalls).toBe(calls.filter((c) => c.status === 'failed').length);
    expect(data.missedCalls).toBeGreaterThan(0);
    near(
      data.avgHandleTime,
      ratio(
        completed.reduce((s, c) => s + c.duration, 0),
        completed.length,
      ),
      2,
      'avgHandleTime',
    );
    // Wait: ringing → answer, from the details' ringingAt and answeredAt; and bounded by
    // start → answer (the wait plus 1–2 s of dialling).
    const waits = answered.map((c) => {
      const d = det.get(c.id);
      expect(d.ringingAt, 'ringingAt on the call detail').toEqual(expect.any(String));
      return (Date.parse(d.answeredAt) - Date.parse(d.ringingAt)) / 1000;
    });
    near(data.avgWaitTime, waits.reduce((s, w) => s + w, 0) / waits.length, 2, 'avgWaitTime');
    const startToAnswer = ratio(
      answered.reduce((s, c) => s + (Date.parse(det.get(c.id).answeredAt) - Date.parse(c.startedAt)) / 1000, 0),
      answered.length,
    );
    expect(data.avgWaitTime).toBeLessThanOrEqual(startToAnswer);
    expect(data.avgWaitTime).toBeGreaterThanOrEqual(startToAnswer - 2);
    expect(data.avgWaitTime).toBeGreaterThanOrEqual(3);
    expect(data.avgWaitTime).toBeLessThanOrEqual(15);
    expect(data.meta.isStale).toBe(false);
  });

  it('writes the hours in clock order', async () => {
    const res = await fetch(`${emu.url}/api/v1/campaigns/${inbound.id}/analytics/inbound`, { headers: { 'x-api-key': 'key_acme_test' } });
    const text = await res.text();
    const order = [...text.matchAll(/"(\d\d)":\d+/g)].map((m) => m[1]);
    expect(order).toEqual(Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')));
  });

  it('refuses an outbound campaign with 422 not_inbound', async () => {
    const r = await emu.api('GET', `/api/v1/campaigns/${outbound.id}/analytics/inbound`);
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('not_inbound');
  });
});

describe('realtime', () => {
  it('reads an idle campaign from its calls: nothing active or queued, completions of the simulated day, calls started in the last minute', async () => {
    for (const c of [outbound, inbound]) {
      const calls = await listing(`campaignId=${c.id}`);
      const rt = (await ok('GET', `/api/v1/campaigns/${c.id}/analytics/realtime`)).data;
      const now = rt.meta.calculatedAt as string;
      const windowStart = new Date(Date.parse(now) - 60_000).toISOString();
      const started = calls
        .map((x) => x.startedAt)
        .filter((s) => s !== null)
        .sort();
      expect(rt).toMatchObject({
        activeCalls: 0,
        queuedCalls: 0,
        callsCompletedToday: calls.filter((x) => x.status === 'completed' && x.endedAt.slice(0, 10) === now.slice(0, 10)).length,
        currentCallRate: started.filter((s) => s > windowStart && s <= now).length,
        lastCallAt: started[started.length - 1] ?? null,
      });
    }
  });

  it('counts queued calls, and calls in flight while a campaign runs', async () => {
    const api = (await ok('POST', '/api/v1/campaigns', { name: 'Hotline', type: 'api', agentId })).data;
    await ok('POST', `/api/v1/campaigns/${api.id}/start`);
    const later = new Date(Date.now() + 365 * 86_400_000).toISOString();
    const queued = (await ok('POST', `/api/v1/campaigns/${api.id}/trigger`, { phoneNumber: '+14155550199', calleeName: 'Later', scheduledFor: later })).data;
    let rt = (await ok('GET', `/api/v1/campaigns/${api.id}/analytics/realtime`)).data;
    expect(rt).toMatchObject({ activeCalls: 0, queuedCalls: 1, lastCallAt: null });
    await ok('POST', `/api/v1/campaigns/${api.id}/trigger`, { phoneNumber: '+14155550198', calleeName: 'Now' });
    let sawActive = false;
    await until('the call to end', async () => {
      rt = (await ok('GET', `/api/v1/campaigns/${api.id}/analytics/realtime`)).data;
      if (rt.activeCalls === 1) sawActive = true;
      expect(rt.queuedCalls + rt.activeCalls).toBeGreaterThanOrEqual(1);
      return rt.activeCalls === 0 && rt.lastCallAt !== null && rt.queuedCalls === 1;
    });
    expect(sawActive).toBe(true);
    await ok('POST', `/api/v1/calls/${queued.id}/cancel`);
    rt = (await ok('GET', `/api/v1/campaigns/${api.id}/analytics/realtime`)).data;
    expect(rt.queuedCalls).toBe(0);
    const calls = await listing(`campaignId=${api.id}`);
    expect(rt.lastCallAt).toBe(calls.find((c) => c.calleeName === 'Now').startedAt);
    await ok('POST', `/api/v1/campaigns/${api.id}/pause`);
    await until('the call’s analysis', () => allEndedAndAnalysed(api.id));
  });
});

describe('overview', () => {
  it('sums across the organization’s campaigns and calls', async () => {
    // Read on both sides of the listing: nothing may change in between.
    const fixed = (x: any) => JSON.stringify({ ...x, meta: { isStale: x.meta.isStale }, period: { from: x.period.from } });
    let o: any;
    let campaigns: any;
    let calls: any[] = [];
    let det = new Map<string, any>();
    for (let attempt = 0; ; attempt++) {
      const before = (await ok('GET', '/api/v1/analytics/overview')).data;
      campaigns = (await ok('GET', '/api/v1/campaigns?pageSize=100')).data;
      calls = await listing('');
      det = await details(calls.filter((c) => ENDED.has(c.status)));
      o = (await ok('GET', '/api/v1/analytics/overview')).data;
      if (fixed(before) === fixed(o)) break;
      if (attempt === 4) throw new Error('the overview kept changing');
    }

    expect(o.totalCampaigns).toBe(campaigns.pagination.total);
    expect(o.activeCampaigns).toBe(campaigns.campaigns.filter((c: any) => c.status === 'active').length);
    expect(o.totalCalls).toBe(calls.length);
    expect(o.totalCallDuration).toBe(calls.reduce((s, c) => s + c.duration, 0));
    expect(o.period.from).toBe(calls.map((c) => c.createdAt).sort()[0]);
    expect(Date.parse(o.period.to)).toBeGreaterThanOrEqual(Date.parse(o.period.from));
    expect(o.meta.isStale).toBe(true); // the seeded calls that are never analysed

    // Per campaign, from the listing and details.
    const per = campaigns.campaigns.map((c: any) => {
      const mine = calls.filter((x) => x.campaignId === c.id);
      return { c, n: mine.length, e: expected(mine, det) };
    });
    const rated = per.filter((p: any) => p.e.analysed > 0);
    expect(rated.length).toBeGreaterThanOrEqual(3);
    const mean = (f: (p: any) => number) => rated.reduce((s: number, p: any) => s + f(p), 0) / rated.length;
    near(
      o.avgHumanContactRate,
      mean((p) => p.e.metrics.successMetrics.humanContactRate),
      4,
      'avgHumanContactRate',
    );
    near(
      o.avgObjectiveSuccessRate,
      mean((p) => p.e.metrics.successMetrics.objectiveSuccessRate),
      4,
      'avgObjectiveSuccessRate',
    );
    const best = Math.max(...rated.map((p: any) => p.e.metrics.successMetrics.objectiveSuccessRate));
    const top = rated.filter((p: any) => p.e.metrics.successMetrics.objectiveSuccessRate === best).sort((a: any, b: any) => b.n - a.n)[0];
    expect(o.topPerformingCampaign).toEqual({ id: top.c.id, name: top.c.name, objectiveSuccessRate: expect.any(Number) });
    near(o.topPerformingCampaign.objectiveSuccessRate, best, 4, 'top objectiveSuccessRate');
    // The sum across campaigns (no campaign with calls was deleted).
    expect(per.reduce((s: number, p: any) => s + p.n, 0)).toBe(o.totalCalls);
  });

  it('counts an active campaign', async () => {
    const c = (await ok('POST', '/api/v1/campaigns', { name: 'Live line', type: 'api', agentId })).data;
    const before = (await ok('GET', '/api/v1/analytics/overview')).data.activeCampaigns;
    await ok('POST', `/api/v1/campaigns/${c.id}/start`);
    expect((await ok('GET', '/api/v1/analytics/overview')).data.activeCampaigns).toBe(before + 1);
    await ok('POST', `/api/v1/campaigns/${c.id}/pause`);
  });
});

describe('tenant isolation', () => {
  it('another organization’s campaign is a 404 on every analytics path', async () => {
    const run = (await ok('GET', `/api/v1/campaigns/${outbound.id}/runs`)).data.runs[0].id;
    for (const path of [
      `/api/v1/campaigns/${outbound.id}/analytics`,
      `/api/v1/campaigns/${outbound.id}/analytics/summary`,
      `/api/v1/campaigns/${outbound.id}/analytics/realtime`,
      `/api/v1/campaigns/${inbound.id}/analytics/inbound`,
      `/api/v1/campaigns/${outbound.id}/runs`,
      `/api/v1/campaigns/${outbound.id}/runs/${run}/analytics`,
    ]) {
      const r = await emu.api('GET', path, undefined, BKEY);
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe('not_found');
      const unknown = await emu.api('GET', path.replace(/campaigns\/[^/]+/, 'campaigns/00000000-0000-4000-8000-000000000000'));
      expect(unknown.status, path).toBe(404);
    }
  });

  it('the overview counts only the organization’s own campaigns and calls', async () => {
    const empty = (await ok('GET', '/api/v1/analytics/overview', undefined, BKEY)).data;
    expect(empty).toMatchObject({
      totalCampaigns: 0,
      activeCampaigns: 0,
      totalCalls: 0,
      totalCallDuration: 0,
      avgHumanContactRate: 0,
      avgObjectiveSuccessRate: 0,
      topPerformingCampaign: null,
    });
    expect(empty.period.from).toBe(empty.period.to);
    const acme = (await ok('GET', '/api/v1/analytics/overview')).data;
    const seededB = await emu.control<any>('POST', '/calls/seed', { org: ORG_B.name, count: 40 });
    const b = (await ok('GET', '/api/v1/analytics/overview', undefined, BKEY)).data;
    expect(b.totalCalls).toBe(40);
    expect(b.totalCampaigns).toBe(1);
    expect(b.topPerformingCampaign?.id).toBe(seededB.campaignId);
    const calls = await listing('', BKEY);
    expect(b.totalCallDuration).toBe(calls.reduce((s, c) => s + c.duration, 0));
    expect((await ok('GET', '/api/v1/analytics/overview')).data.totalCalls).toBe(acme.totalCalls);
    // …and globex's campaign is not acme's.
    expect((await emu.api('GET', `/api/v1/campaigns/${seededB.campaignId}/analytics`)).status).toBe(404);
    const own = (await ok('GET', `/api/v1/campaigns/${seededB.campaignId}/analytics`, undefined, BKEY)).data;
    expect(own.metrics.callStats.totalCalls).toBe(40);
    // Every per-campaign analytics path: acme's key on globex's campaign (and its run) is a 404.
    const runs = (await ok('GET', `/api/v1/campaigns/${seededB.campaignId}/runs`, undefined, BKEY)).data.runs;
    const runId = runs[0]?.id ?? '00000000-0000-4000-8000-000000000000';
    for (const p of ['/analytics/summary', '/analytics/realtime', '/analytics/inbound', '/runs', `/runs/${runId}/analytics`]) {
      const r = await emu.api('GET', `/api/v1/campaigns/${seededB.campaignId}${p}`);
      expect([r.status, r.body.error?.code], p).toEqual([404, 'not_found']);
    }
  });
});

describe('restart', () => {
  it('gives the same figures after a restart on the same data directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-analytics-'));
    const strip = (d: any) => ({ ...d, meta: { isStale: d.meta.isStale }, ...(d.period ? { period: { from: d.period.from } } : {}) });
    try {
      let one = await startTestEmulator({ dataDir: dir });
      const seededRes = await one.control<any>('POST', '/calls/seed', { org: 'acme', count: 300 });
      await one.control('POST', '/calls/seed', { org: 'acme', campaignId: seededRes.campaignId, count: 10, analysed: false });
      const paths = [
        `/api/v1/campaigns/${seededRes.campaignId}/analytics`,
        `/api/v1/campaigns/${seededRes.campaignId}/analytics/summary`,
        '/api/v1/analytics/overview',
      ];
      const before = await Promise.all(paths.map(async (p) => strip((await one.api('GET', p)).body.data)));
      expect(before[0].metrics.callStats.totalCalls).toBe(310);
      expect(before[0].meta.isStale).toBe(true);
      await one.close();
      one = await startTestEmulator({ dataDir: dir });
      try {
        const after = await Promise.all(paths.map(async (p) => strip((await one.api('GET', p)).body.data)));
        expect(after).toEqual(before);
      } finally {
        await one.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
