import { describe, expect, it } from 'vitest';
import { CallIndex } from '../../src/emulator/analytics/call-index.js';
import { inRange, parseRange } from '../../src/emulator/analytics/dates.js';
import { inboundOf } from '../../src/emulator/analytics/inbound.js';
import { isStale, metricsOf, summaryOf, tally } from '../../src/emulator/analytics/metrics.js';
import { overviewOf } from '../../src/emulator/analytics/overview.js';
import { realtimeOf } from '../../src/emulator/analytics/realtime.js';
import { CampaignTracker } from '../../src/emulator/analytics/tracker.js';
import { costMills, type AnalysisFacts, type CallFacts } from '../../src/emulator/analytics/rules.js';
import { HttpError } from '../../src/emulator/errors.js';
import type { TelephonyModel } from '../../src/emulator/telephony/model.js';
import type { CallRecord } from '../../src/emulator/telephony/types.js';

// Pure analytics over hand-built call records: each expected figure is worked out by hand.

const analysis = (o: { human?: boolean; objective?: string; callback?: boolean; dnc?: boolean; sentiment?: string } = {}): AnalysisFacts => ({
  sentiment: { overallSentiment: o.sentiment ?? 'neutral' },
  humanContact: { reachedHuman: o.human ?? false },
  objectives: { primary: { status: o.objective ?? 'Unknown' } },
  callback: { callbackRequested: o.callback ?? false },
  doNotCall: { requested: o.dnc ?? false },
});

function call(p: Partial<CallFacts> & Pick<CallFacts, 'status'>): CallFacts {
  return {
    direction: 'outbound',
    duration: 0,
    createdAt: '2026-11-20T10:00:00.000Z',
    startedAt: null,
    ringingAt: null,
    answeredAt: null,
    endedAt: null,
    runId: null,
    analysis: null,
    ...p,
  };
}

// 8 calls: 3 completed (61 s, 120 s, 30 s; the last not analysed yet), 2 failed (one with an
// analysis, as state files of earlier versions have them: it is not counted), 1 cancelled,
// 1 queued, 1 ringing.
const CALLS: CallFacts[] = [
  call({
    status: 'completed',
    duration: 61,
    endedAt: '2026-11-20T10:02:00.000Z',
    analysis: analysis({ human: true, objective: 'True', sentiment: 'positive' }),
  }),
  call({
    status: 'completed',
    duration: 120,
    endedAt: '2026-11-20T10:03:00.000Z',
    analysis: analysis({ human: true, objective: 'False', callback: true, sentiment: 'negative' }),
  }),
  call({ status: 'completed', duration: 30, endedAt: '2026-11-20T10:04:00.000Z', analysis: null }),
  call({ status: 'failed', endedAt: '2026-11-20T10:05:00.000Z', analysis: analysis({ dnc: true }) }),
  call({ status: 'failed', endedAt: '2026-11-20T10:06:00.000Z', analysis: analysis() }),
  call({ status: 'cancelled' }),
  call({ status: 'queued' }),
  call({ status: 'ringing', startedAt: '2026-11-20T10:07:00.000Z' }),
];

describe('cost rule', () => {
  it('charges $0.01 per dial and $0.015 per started minute of an ended call, in mills', () => {
    expect(costMills({ status: 'completed', duration: 0 })).toBe(10);
    expect(costMills({ status: 'completed', duration: 1 })).toBe(25);
    expect(costMills({ status: 'completed', duration: 60 })).toBe(25);
    expect(costMills({ status: 'completed', duration: 61 })).toBe(40);
    expect(costMills({ status: 'failed', duration: 0 })).toBe(10);
    expect(costMills({ status: 'cancelled', duration: 0 })).toBe(0);
    expect(costMills({ status: 'in_progress', duration: 0 })).toBe(0);
  });
});

describe('campaign metrics', () => {
  it('counts every status and computes rates over analysed completed calls, durations over completed, costs over ended', () => {
    const t = tally(CALLS);
    const m = metricsOf(t);
    expect(m.callStats).toEqual({ totalCalls: 8, completedCalls: 3, failedCalls: 2, cancelledCalls: 1, pendingCalls: 2 });
    // analysed: the two analysed completed calls (failed calls never connected: in no denominator)
    expect(m.successMetrics).toEqual({ humanContactRate: 1, objectiveSuccessRate: 0.5, callbackRate: 0.5 });
    // sentiment 1 + 0 = 1 over 2
    expect(m.qualityMetrics).toEqual({ avgSentimentScore: 0.5, avgCallDuration: round((61 + 120 + 30) / 3, 2) });
    expect(m.complianceMetrics).toEqual({ doNotCallRate: 0 });
    // 61 s: 10 + 30; 120 s: 10 + 30; 30 s: 10 + 15; failed 10 + 10 → 125 mills over 5 ended calls
    expect(m.costMetrics).toEqual({ totalCost: 0.13, avgCostPerCall: 0.03 });
    expect(isStale(t)).toBe(true);
    expect(summaryOf(t)).toEqual({ totalCalls: 8, completedCalls: 3, humanContactRate: 1, objectiveSuccessRate: 0.5, avgSentimentScore: 0.5 });
  });

  it('is all zeros, and not stale, without calls', () => {
    const t = tally([]);
    expect(metricsOf(t)).toEqual({
      callStats: { totalCalls: 0, completedCalls: 0, failedCalls: 0, cancelledCalls: 0, pendingCalls: 0 },
      successMetrics: { humanContactRate: 0, objectiveSuccessRate: 0, callbackRate: 0 },
      qualityMetrics: { avgSentimentScore: 0, avgCallDuration: 0 },
      complianceMetrics: { doNotCallRate: 0 },
      costMetrics: { totalCost: 0, avgCostPerCall: 0 },
    });
    expect(isStale(t)).toBe(false);
  });

  it('rounds rates to 4 decimals', () => {
    const calls = [true, false, false].map((human) => call({ status: 'completed', duration: 10, endedAt: 'x', analysis: analysis({ human }) }));
    expect(metricsOf(tally(calls)).successMetrics.humanContactRate).toBe(0.3333);
  });

  it('is not stale when only calls in flight, or failed calls, lack an analysis', () => {
    expect(isStale(tally([call({ status: 'in_progress' }), call({ status: 'queued' })]))).toBe(false);
    expect(isStale(tally([call({ status: 'failed', endedAt: 'x' }), call({ status: 'completed', endedAt: 'x', analysis: analysis() })]))).toBe(false);
    expect(isStale(tally([call({ status: 'completed', endedAt: 'x' })]))).toBe(true);
  });
});

describe('date range', () => {
  it('takes calendar days, both ends included, either optional', () => {
    const r = parseRange({ dateFrom: '2026-11-20', dateTo: '2026-11-21' });
    expect(inRange('2026-11-20T00:00:00.000Z', r)).toBe(true);
    expect(inRange('2026-11-21T23:59:59.999Z', r)).toBe(true);
    expect(inRange('2026-11-19T23:59:59.999Z', r)).toBe(false);
    expect(inRange('2026-11-22T00:00:00.000Z', r)).toBe(false);
    expect(inRange('2020-01-01T00:00:00.000Z', parseRange({ dateTo: '2026-11-21' }))).toBe(true);
    expect(parseRange({})).toEqual({ from: null, to: null });
  });

  it.each([
    [{ dateFrom: '2026-11-2' }, 'dateFrom'],
    [{ dateFrom: '2026-02-30' }, 'dateFrom'],
    [{ dateTo: '2026-11-20T00:00:00Z' }, 'dateTo'],
    [{ dateTo: ['2026-11-20', '2026-11-21'] }, 'dateTo'],
    [{ dateFrom: '2026-11-21', dateTo: '2026-11-20' }, 'dateFrom'],
  ])('refuses %j with a 400 naming %s', (q, name) => {
    let err: unknown;
    try {
      parseRange(q);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(400);
    expect((err as HttpError).message.startsWith(name)).toBe(true);
  });
});

describe('realtime', () => {
  const now = Date.parse('2026-11-20T12:00:00.000Z');
  it('counts active and queued calls, completions of the UTC day, calls started in the last minute', () => {
    const calls = [
      call({ status: 'queued' }),
      call({ status: 'queued' }),
      call({ status: 'initiated', startedAt: '2026-11-20T11:59:59.000Z' }),
      call({ status: 'ringing', startedAt: '2026-11-20T11:59:30.000Z' }),
      call({ status: 'in_progress', startedAt: '2026-11-20T11:58:00.000Z' }),
      call({ status: 'completed', startedAt: '2026-11-20T00:10:00.000Z', endedAt: '2026-11-20T00:15:00.000Z' }),
      call({ status: 'completed', startedAt: '2026-11-19T23:50:00.000Z', endedAt: '2026-11-19T23:58:00.000Z' }),
      call({ status: 'failed', startedAt: '2026-11-20T11:00:00.000Z', endedAt: '2026-11-20T11:01:00.000Z' }),
    ];
    expect(realtimeOf(calls, now)).toEqual({
      activeCalls: 3,
      queuedCalls: 2,
      callsCompletedToday: 1,
      currentCallRate: 2,
      lastCallAt: '2026-11-20T11:59:59.000Z',
    });
  });

  it('has no last call before any call started', () => {
    expect(realtimeOf([call({ status: 'queued' })], now)).toEqual({
      activeCalls: 0,
      queuedCalls: 1,
      callsCompletedToday: 0,
      currentCallRate: 0,
      lastCallAt: null,
    });
  });
});

describe('inbound', () => {
  it('gives 24 hours that sum to the total, the earliest busiest hour, waits from ringing to answer', () => {
    const calls = [
      call({
        direction: 'inbound',
        status: 'completed',
        createdAt: '2026-11-20T09:10:00.000Z',
        ringingAt: '2026-11-20T09:10:01.000Z',
        answeredAt: '2026-11-20T09:10:05.000Z',
        duration: 100,
      }),
      call({
        direction: 'inbound',
        status: 'completed',
        createdAt: '2026-11-20T09:40:00.000Z',
        ringingAt: '2026-11-20T09:40:01.000Z',
        answeredAt: '2026-11-20T09:40:11.000Z',
        duration: 50,
      }),
      call({ direction: 'inbound', status: 'failed', createdAt: '2026-11-20T14:00:00.000Z', ringingAt: '2026-11-20T14:00:01.000Z' }),
      call({
        direction: 'inbound',
        status: 'in_progress',
        createdAt: '2026-11-20T14:30:00.000Z',
        ringingAt: '2026-11-20T14:30:02.000Z',
        answeredAt: '2026-11-20T14:30:05.000Z',
      }),
      call({ direction: 'inbound', status: 'ringing', createdAt: '2026-11-20T23:59:00.000Z', ringingAt: '2026-11-20T23:59:01.000Z' }),
    ];
    const r = inboundOf(calls);
    expect(Object.keys(r.callsByHour)).toHaveLength(24);
    expect(Object.keys(r.callsByHour).sort()).toEqual(Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')));
    expect(Object.values(r.callsByHour).reduce((a, b) => a + b, 0)).toBe(5);
    expect(r.callsByHour).toMatchObject({ '09': 2, '14': 2, '23': 1, '00': 0 });
    expect(r).toMatchObject({
      totalInboundCalls: 5,
      answeredCalls: 3,
      missedCalls: 1,
      avgWaitTime: round((4 + 10 + 3) / 3, 2),
      avgHandleTime: 75,
      peakHour: '09:00',
    });
  });

  it('has no peak hour without calls', () => {
    const r = inboundOf([]);
    expect(r.peakHour).toBeNull();
    expect(Object.values(r.callsByHour).every((n) => n === 0)).toBe(true);
    expect(r.avgWaitTime).toBe(0);
  });
});

describe('overview', () => {
  const now = Date.parse('2026-11-21T00:00:00.000Z');
  const a = [
    call({ status: 'completed', duration: 100, createdAt: '2026-11-18T00:00:00.000Z', endedAt: 'x', analysis: analysis({ human: true, objective: 'True' }) }),
    call({ status: 'completed', duration: 50, createdAt: '2026-11-19T00:00:00.000Z', endedAt: 'x', analysis: analysis({ human: false, objective: 'False' }) }),
  ];
  const b = [
    call({ status: 'completed', duration: 20, createdAt: '2026-11-17T00:00:00.000Z', endedAt: 'x', analysis: analysis({ human: true, objective: 'True' }) }),
    call({ status: 'completed', duration: 10, createdAt: '2026-11-19T12:00:00.000Z', endedAt: 'x', analysis: analysis({ human: false, objective: 'False' }) }),
    call({ status: 'failed', createdAt: '2026-11-20T00:00:00.000Z', endedAt: 'x' }),
  ];
  const c = [call({ status: 'queued', createdAt: '2026-11-20T01:00:00.000Z' })];
  const byId: Record<string, CallFacts[]> = { a, b, c };
  const campaigns = [
    { id: 'a', name: 'A', status: 'completed' },
    { id: 'b', name: 'B', status: 'active' },
    { id: 'c', name: 'C', status: 'active' },
  ];
  const all = [b[0]!, a[0]!, a[1]!, b[1]!, b[2]!, c[0]!];

  it('sums calls and duration, averages rates over campaigns with analysed calls, breaks ties by more calls', () => {
    const org = tally(all);
    const overview = overviewOf(campaigns, (id) => tally(byId[id]!), org, all.map((x) => x.createdAt).sort()[0]!, now);
    expect(overview).toEqual({
      totalCampaigns: 3,
      activeCampaigns: 2,
      totalCalls: 6,
      totalCallDuration: 180,
      avgHumanContactRate: 0.5,
      avgObjectiveSuccessRate: 0.5,
      // a and b both at 0.5 (b's failed call counts in no rate): b has more calls
      topPerformingCampaign: { id: 'b', name: 'B', objectiveSuccessRate: 0.5 },
      period: { from: '2026-11-17T00:00:00.000Z', to: '2026-11-21T00:00:00.000Z' },
    });
    expect(isStale(org)).toBe(false);
  });

  it('has no top campaign and a period from now without calls', () => {
    const overview = overviewOf([{ id: 'x', name: 'X', status: 'draft' }], () => tally([]), tally([]), null, now);
    expect(overview.topPerformingCampaign).toBeNull();
    expect(overview.period).toEqual({ from: '2026-11-21T00:00:00.000Z', to: '2026-11-21T00:00:00.000Z' });
    expect(overview.avgHumanContactRate).toBe(0);
  });
});

describe('per-campaign call index', () => {
  const rec = (id: string, campaignId: string, createdAt: string) => ({ id, campaignId, createdAt }) as unknown as CallRecord;
  it('follows appends, insertions and a replaced array of the model', () => {
    let source: CallRecord[] = [rec('1', 'a', 't1'), rec('2', 'b', 't2')];
    const idx = new CallIndex({ calls: () => source } as unknown as TelephonyModel);
    expect(idx.ofCampaign('o', 'a').map((c) => c.id)).toEqual(['1']);
    source.push(rec('3', 'a', 't3'));
    expect(idx.ofCampaign('o', 'a').map((c) => c.id)).toEqual(['1', '3']);
    source.splice(1, 0, rec('4', 'a', 't1b'));
    expect(idx.ofCampaign('o', 'a').map((c) => c.id)).toEqual(['1', '4', '3']);
    source = [rec('5', 'b', 't0'), ...source];
    expect(idx.ofCampaign('o', 'b').map((c) => c.id)).toEqual(['5', '2']);
    expect(idx.ofCampaign('o', 'zzz')).toEqual([]);
  });
});

describe('incremental tracker', () => {
  it('gives the same tally and realtime figures as a full scan, step after step of a simulated campaign', () => {
    let seed = 12345;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const iso = (ms: number) => new Date(ms).toISOString();
    let now = Date.parse('2026-11-20T23:50:00.000Z'); // crosses midnight: "today" changes
    const calls: CallFacts[] = [];
    const tracker = new CampaignTracker(calls);
    const analyseAt = new Map<CallFacts, number>();
    let checks = 0;
    for (let step = 0; step < 400; step++) {
      now += Math.floor(rnd() * 20_000);
      if (rnd() < 0.3) for (let k = Math.floor(rnd() * 4); k > 0; k--) calls.push(call({ status: 'queued', createdAt: iso(now) }));
      for (const c of calls) {
        const r = rnd();
        if (c.status === 'queued' && r < 0.3) Object.assign(c, { status: 'initiated', startedAt: iso(now) });
        else if (c.status === 'queued' && r < 0.33) c.status = 'cancelled';
        else if (c.status === 'initiated' && r < 0.5) c.status = 'ringing';
        else if (c.status === 'ringing' && r < 0.3) Object.assign(c, { status: 'failed', endedAt: iso(now) });
        else if (c.status === 'ringing' && r < 0.7) Object.assign(c, { status: 'in_progress', answeredAt: iso(now) });
        else if (c.status === 'in_progress' && r < 0.3) Object.assign(c, { status: 'completed', endedAt: iso(now), duration: 1 + Math.floor(rnd() * 300) });
        if ((c.status === 'completed' || c.status === 'failed') && !analyseAt.has(c)) analyseAt.set(c, now + (rnd() < 0.1 ? Infinity : 120_000));
        if (!c.analysis && (analyseAt.get(c) ?? Infinity) <= now)
          c.analysis = analysis({
            human: rnd() < 0.7,
            objective: rnd() < 0.4 ? 'True' : 'False',
            callback: rnd() < 0.1,
            dnc: rnd() < 0.05,
            sentiment: rnd() < 0.5 ? 'positive' : 'negative',
          });
      }
      if (rnd() < 0.5) {
        expect(tracker.realtime(now)).toEqual(realtimeOf(calls, now));
        checks++;
      }
      if (rnd() < 0.5) {
        expect(tracker.tally()).toEqual(tally(calls));
        checks++;
      }
    }
    expect(checks).toBeGreaterThan(300);
    expect(calls.length).toBeGreaterThan(100);
    expect(calls.filter((c) => c.status === 'completed').length).toBeGreaterThan(10);
  });
});

function round(x: number, d: number): number {
  return Math.round(x * 10 ** d) / 10 ** d;
}
