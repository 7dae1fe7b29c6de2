import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// Eval imports of document 1 over raw HTTP (emulator side of issue 7): sources,
// candidates (filters, paging, exclusions), imports (rejections), batched triage,
// scenarios from calls (duplicates skipped), tenant isolation.

let emu: TestEmulator;
let agentId: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  agentId = await agent();
});
afterAll(async () => {
  await emu.close();
});

async function agent(key?: string): Promise<string> {
  const r = await emu.api('POST', '/api/v1/agents', { name: 'Support line', instructions: 'Help callers with their account.', engine: 'realtime' }, key);
  expect(r.status).toBe(201);
  return r.body.data.id;
}

async function suite(a = agentId, key?: string): Promise<string> {
  const r = await emu.api('POST', `/api/v1/agents/${a}/evals`, { name: 'Imported calls' }, key);
  expect(r.status).toBe(201);
  return r.body.data.id;
}

const base = (evalId: string, a = agentId) => `/api/v1/agents/${a}/evals/${evalId}/imports`;

async function sources(evalId: string, a = agentId, key?: string): Promise<any> {
  const r = await emu.api('GET', `${base(evalId, a)}/sources`, undefined, key);
  expect(r.status).toBe(200);
  return r.body.data;
}

async function candidates(evalId: string, query: string): Promise<any> {
  const r = await emu.api('GET', `${base(evalId)}/candidates?${query}`);
  expect(r.status).toBe(200);
  return r.body;
}

async function createImport(evalId: string, sourceType: string, sourceId: string, callIds: string[]): Promise<any> {
  const r = await emu.api('POST', base(evalId), { sourceType, sourceId, callIds });
  expect(r.status).toBe(201);
  return r.body.data;
}

describe('sources', () => {
  it('lists two call centers, two outbound and two inbound campaigns with 12..40 calls each, the same for every suite', async () => {
    const ev = await suite();
    const s = await sources(ev);
    expect(s.callCenters.length).toBeGreaterThanOrEqual(2);
    expect(s.outboundCampaigns.length).toBeGreaterThanOrEqual(2);
    expect(s.inboundCampaigns.length).toBeGreaterThanOrEqual(2);
    for (const src of [...s.callCenters, ...s.outboundCampaigns, ...s.inboundCampaigns]) {
      expect(src.callCount).toBeGreaterThanOrEqual(12);
      expect(src.callCount).toBeLessThanOrEqual(40);
      expect(typeof src.name).toBe('string');
    }
    for (const c of s.callCenters) expect(c.id).toMatch(/^cc_/);
    for (const c of [...s.outboundCampaigns, ...s.inboundCampaigns])
      expect(c.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await sources(await suite())).toEqual(s);
  });

  it('is deterministic from the seed (another emulator with the same seed lists the same sources)', async () => {
    const other = await startTestEmulator();
    try {
      const r1 = await other.api('POST', '/api/v1/agents', { name: 'x', instructions: 'y', engine: 'realtime' });
      const r2 = await other.api('POST', `/api/v1/agents/${r1.body.data.id}/evals`, { name: 'z' });
      const s = (await other.api('GET', `/api/v1/agents/${r1.body.data.id}/evals/${r2.body.data.id}/imports/sources`)).body.data;
      expect(s).toEqual(await sources(await suite()));
    } finally {
      await other.close();
    }
  });
});

describe('candidates', () => {
  it('pages newest first with pageSize 25 by default, clamps pageSize to 100, and varies the calls', async () => {
    const ev = await suite();
    const s = await sources(ev);
    const cc = s.callCenters[0];
    const first = await candidates(ev, `sourceType=call_center&sourceId=${cc.id}`);
    expect(first.data.total).toBe(cc.callCount);
    expect(first.data.calls.length).toBe(Math.min(25, cc.callCount));
    expect(first.meta.pagination).toMatchObject({ limit: 25, page: 1, total: cc.callCount });
    const all = await candidates(ev, `sourceType=call_center&sourceId=${cc.id}&pageSize=500`);
    expect(all.meta.pagination.limit).toBe(100);
    const calls = all.data.calls;
    expect(calls.length).toBe(cc.callCount);
    const starts = calls.map((c: any) => c.startedAt);
    expect([...starts].sort().reverse()).toEqual(starts);
    expect(new Set(calls.map((c: any) => c.direction))).toEqual(new Set(['inbound', 'outbound']));
    expect(new Set(calls.map((c: any) => c.sentiment)).size).toBeGreaterThanOrEqual(2);
    expect(new Set(calls.map((c: any) => c.resolved))).toEqual(new Set([true, false]));
    expect(new Set(calls.map((c: any) => c.callerIntent)).size).toBeGreaterThanOrEqual(2);
    for (const c of calls) {
      expect(Object.keys(c).sort()).toEqual(['callerIntent', 'direction', 'durationSeconds', 'id', 'preview', 'resolved', 'sentiment', 'startedAt']);
      expect(c.preview.length).toBeLessThanOrEqual(120);
    }
    if (cc.callCount > 10) {
      const p2 = await candidates(ev, `sourceType=call_center&sourceId=${cc.id}&pageSize=10&page=2`);
      expect(p2.data.calls.map((c: any) => c.id)).toEqual(calls.slice(10, 20).map((c: any) => c.id));
      expect(p2.meta.pagination.nextCursor).toBe(cc.callCount > 20 ? '3' : null);
      // A client that follows nextCursor generically (?cursor=) walks the same pages.
      const p1 = await candidates(ev, `sourceType=call_center&sourceId=${cc.id}&pageSize=10`);
      const viaCursor = await candidates(ev, `sourceType=call_center&sourceId=${cc.id}&pageSize=10&cursor=${p1.meta.pagination.nextCursor}`);
      expect(viaCursor.data.calls.map((c: any) => c.id)).toEqual(p2.data.calls.map((c: any) => c.id));
    }
  });

  it('filters by direction, minDuration, from/to (a date to includes the whole day) and search', async () => {
    const ev = await suite();
    const s = await sources(ev);
    const src = s.inboundCampaigns[0];
    const all = (await candidates(ev, `sourceType=campaign&sourceId=${src.id}&pageSize=100`)).data.calls as any[];
    const out = (await candidates(ev, `sourceType=campaign&sourceId=${src.id}&direction=outbound&pageSize=100`)).data;
    expect(out.calls.every((c: any) => c.direction === 'outbound')).toBe(true);
    expect(out.total).toBe(all.filter((c) => c.direction === 'outbound').length);
    const long = (await candidates(ev, `sourceType=campaign&sourceId=${src.id}&minDuration=200&pageSize=100`)).data;
    expect(long.total).toBe(all.filter((c) => c.durationSeconds >= 200).length);
    const day = all[Math.floor(all.length / 2)].startedAt.slice(0, 10);
    const onDay = (await candidates(ev, `sourceType=campaign&sourceId=${src.id}&from=${day}&to=${day}&pageSize=100`)).data;
    expect(onDay.total).toBe(all.filter((c) => c.startedAt.slice(0, 10) === day).length);
    expect(onDay.total).toBeGreaterThan(0);
    const since = all[3].startedAt;
    const after = (await candidates(ev, `sourceType=campaign&sourceId=${src.id}&from=${encodeURIComponent(since)}&pageSize=100`)).data;
    expect(after.total).toBe(all.filter((c) => c.startedAt >= since).length);
    const sup = (await candidates(ev, `sourceType=campaign&sourceId=${src.id}&search=SUPERVISOR&pageSize=100`)).data;
    const neg = (await candidates(ev, `sourceType=campaign&sourceId=${src.id}&search=negative&pageSize=100`)).data;
    expect(neg.total).toBe(all.filter((c) => c.sentiment === 'negative').length);
    expect(sup.total).toBeLessThan(all.length);
    const intent = all[0].callerIntent as string;
    const byIntent = (await candidates(ev, `sourceType=campaign&sourceId=${src.id}&search=${encodeURIComponent(intent.toUpperCase())}&pageSize=100`)).data;
    expect(byIntent.calls.map((c: any) => c.id)).toContain(all[0].id);
  });

  it('refuses bad parameters with 400 naming them, and an unknown source with 404', async () => {
    const ev = await suite();
    const cc = (await sources(ev)).callCenters[0].id;
    for (const [q, name] of [
      ['sourceId=x', 'sourceType'],
      ['sourceType=phone&sourceId=x', 'sourceType'],
      ['sourceType=call_center', 'sourceId'],
      [`sourceType=call_center&sourceId=${cc}&from=yesterday`, 'from'],
      [`sourceType=call_center&sourceId=${cc}&to=2026-13-45`, 'to'],
      [`sourceType=call_center&sourceId=${cc}&from=2026-02-31`, 'from'],
      [`sourceType=call_center&sourceId=${cc}&to=2026-04-31T10:00:00Z`, 'to'],
      [`sourceType=call_center&sourceId=${cc}&minDuration=-1`, 'minDuration'],
      [`sourceType=call_center&sourceId=${cc}&direction=sideways`, 'direction'],
      [`sourceType=call_center&sourceId=${cc}&page=0`, 'page'],
      [`sourceType=call_center&sourceId=${cc}&pageSize=abc`, 'pageSize'],
      [`sourceType=call_center&sourceId=${cc}&cursor=x`, 'cursor'],
      [`sourceType=call_center&sourceId=${cc}&page=2&cursor=3`, 'cursor'],
    ] as const) {
      const r = await emu.api('GET', `${base(ev)}/candidates?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.message).toContain(name);
      expect(r.body.error.details?.[0]?.field, q).toBe(name);
    }
    expect((await emu.api('GET', `${base(ev)}/candidates?sourceType=call_center&sourceId=cc_nope`)).status).toBe(404);
    // A campaign id asked as a call center is unknown there.
    const camp = (await sources(ev)).outboundCampaigns[0].id;
    expect((await emu.api('GET', `${base(ev)}/candidates?sourceType=call_center&sourceId=${camp}`)).status).toBe(404);
  });
});

describe('imports', () => {
  it('imports calls (pending, 0 triaged), excludes them from candidates of this suite only, and lists imports newest first', async () => {
    const ev = await suite();
    const src = (await sources(ev)).outboundCampaigns[0];
    const calls = (await candidates(ev, `sourceType=campaign&sourceId=${src.id}&pageSize=100`)).data.calls as any[];
    const imp = await createImport(
      ev,
      'campaign',
      src.id,
      calls.slice(0, 3).map((c) => c.id),
    );
    expect(imp).toMatchObject({ status: 'pending', totalCalls: 3, triagedCalls: 0, source: `campaign:${src.id}`, label: `${src.name} (3 calls)` });
    expect(imp.id).toMatch(/^imp_/);
    const left = (await candidates(ev, `sourceType=campaign&sourceId=${src.id}&pageSize=100`)).data;
    expect(left.total).toBe(calls.length - 3);
    expect(left.calls.map((c: any) => c.id)).not.toContain(calls[0].id);
    const other = await suite();
    expect((await candidates(other, `sourceType=campaign&sourceId=${src.id}&pageSize=100`)).data.total).toBe(calls.length);
    const imp2 = await createImport(ev, 'campaign', src.id, [calls[5].id]);
    const list = (await emu.api('GET', base(ev))).body.data.imports;
    expect(list.map((i: any) => i.id)).toEqual([imp2.id, imp.id]);
  });

  it('rejects ids of another source (422, naming them) and already imported ids (409), importing nothing', async () => {
    const ev = await suite();
    const s = await sources(ev);
    const a = (await candidates(ev, `sourceType=call_center&sourceId=${s.callCenters[0].id}&pageSize=100`)).data.calls as any[];
    const b = (await candidates(ev, `sourceType=call_center&sourceId=${s.callCenters[1].id}&pageSize=100`)).data.calls as any[];
    let r = await emu.api('POST', base(ev), { sourceType: 'call_center', sourceId: s.callCenters[0].id, callIds: [a[0].id, b[0].id] });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('calls_not_in_source');
    expect(r.body.error.details.callIds).toEqual([b[0].id]);
    expect((await emu.api('GET', base(ev))).body.data.imports).toEqual([]);
    await createImport(ev, 'call_center', s.callCenters[0].id, [a[0].id]);
    r = await emu.api('POST', base(ev), { sourceType: 'call_center', sourceId: s.callCenters[0].id, callIds: [a[1].id, a[0].id] });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('calls_already_imported');
    expect(r.body.error.details.callIds).toEqual([a[0].id]);
    expect((await emu.api('GET', base(ev))).body.data.imports).toHaveLength(1);
    expect((await candidates(ev, `sourceType=call_center&sourceId=${s.callCenters[0].id}&pageSize=100`)).data.calls.map((c: any) => c.id)).toContain(a[1].id);
    for (const body of [
      {},
      { sourceType: 'call_center', sourceId: s.callCenters[0].id, callIds: [] },
      { sourceType: 'x', sourceId: 'y', callIds: ['z'] },
      { sourceType: 'call_center', sourceId: s.callCenters[0].id, callIds: [a[2].id, a[2].id] },
      { sourceType: 'call_center', sourceId: s.callCenters[0].id, callIds: [a[2].id], extra: 1 },
    ]) {
      expect((await emu.api('POST', base(ev), body)).status).toBe(400);
    }
    expect((await emu.api('POST', base(ev), { sourceType: 'call_center', sourceId: 'cc_unknown', callIds: ['x'] })).status).toBe(404);
  });
});

describe('triage and scenarios', () => {
  it('triages in committed batches until remaining is 0, then the import is triaged; another call is a no-op', async () => {
    const ev = await suite();
    const src = (await sources(ev)).callCenters[0];
    const calls = (await candidates(ev, `sourceType=call_center&sourceId=${src.id}&pageSize=100`)).data.calls as any[];
    const ids = calls.slice(0, 12).map((c) => c.id);
    const imp = await createImport(ev, 'call_center', src.id, ids);
    let r = await emu.api('POST', `${base(ev)}/${imp.id}/triage`, { batchSize: 5 });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ import: { id: imp.id, triagedCalls: 5, status: 'triaging' }, processed: 5, remaining: 7 });
    // Committed: the first five are triaged, in import order, the rest pending.
    let tc = (await emu.api('GET', `${base(ev)}/${imp.id}/scenarios`)).body.data.calls as any[];
    expect(tc.map((c) => c.id)).toEqual(ids);
    expect(tc.map((c) => c.triageStatus)).toEqual([...Array(5).fill('triaged'), ...Array(7).fill('pending')]);
    expect(tc[6].triage).toBeNull();
    // The default batch is 10.
    r = await emu.api('POST', `${base(ev)}/${imp.id}/triage`, {});
    expect(r.body.data).toMatchObject({ processed: 7, remaining: 0, import: { triagedCalls: 12, status: 'triaged' } });
    r = await emu.api('POST', `${base(ev)}/${imp.id}/triage`, { batchSize: 10 });
    expect(r.body.data).toMatchObject({ processed: 0, remaining: 0, import: { triagedCalls: 12, status: 'triaged' } });
    const listed = (await emu.api('GET', base(ev))).body.data.imports[0];
    expect(listed).toMatchObject({ id: imp.id, status: 'triaged', triagedCalls: 12, totalCalls: 12 });
    tc = (await emu.api('GET', `${base(ev)}/${imp.id}/scenarios`)).body.data.calls as any[];
    for (const c of tc) {
      expect(['happy_path', 'edge_case', 'adversarial', 'escalation', 'compliance']).toContain(c.triage.category);
      expect(c.triage.summary).toContain(c.callerIntent);
      expect(c.triage.suggestedScenario.name.length).toBeGreaterThan(0);
      expect(c.triage.suggestedScenario.persona.length).toBeGreaterThan(0);
      expect(c.triage.suggestedScenario.goal.length).toBeGreaterThan(0);
      expect(c.scenarioId).toBeNull();
    }
  });

  it('categorizes calls from their transcripts across the categories', async () => {
    const ev = await suite();
    const s = await sources(ev);
    const cats = new Set<string>();
    for (const src of [...s.callCenters, ...s.outboundCampaigns]) {
      const type = s.callCenters.includes(src) ? 'call_center' : 'campaign';
      const calls = (await candidates(ev, `sourceType=${type}&sourceId=${src.id}&pageSize=100`)).data.calls as any[];
      const imp = await createImport(
        ev,
        type,
        src.id,
        calls.map((c) => c.id),
      );
      expect((await emu.api('POST', `${base(ev)}/${imp.id}/triage`, { batchSize: 50 })).body.data.remaining).toBe(0);
      for (const c of (await emu.api('GET', `${base(ev)}/${imp.id}/scenarios`)).body.data.calls) {
        cats.add(c.triage.category);
        if (c.triage.category === 'escalation') expect(c.triage.summary).toMatch(/supervisor/);
      }
    }
    expect(cats).toEqual(new Set(['happy_path', 'edge_case', 'adversarial', 'escalation', 'compliance']));
  });

  it('refuses batchSize outside 1..50 and unknown imports', async () => {
    const ev = await suite();
    const src = (await sources(ev)).callCenters[0];
    const calls = (await candidates(ev, `sourceType=call_center&sourceId=${src.id}`)).data.calls as any[];
    const imp = await createImport(ev, 'call_center', src.id, [calls[0].id]);
    for (const batchSize of [0, 51, 2.5, '5']) {
      const r = await emu.api('POST', `${base(ev)}/${imp.id}/triage`, { batchSize });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toContain('batchSize');
    }
    expect((await emu.api('POST', `${base(ev)}/imp_nope/triage`, {})).status).toBe(404);
    expect((await emu.api('GET', `${base(ev)}/imp_nope/scenarios`)).status).toBe(404);
  });

  it('creates scenarios from triaged calls, skips duplicates, refuses calls not in the import (422) or not triaged (409) creating nothing', async () => {
    const ev = await suite();
    const src = (await sources(ev)).inboundCampaigns[1];
    const calls = (await candidates(ev, `sourceType=campaign&sourceId=${src.id}&pageSize=100`)).data.calls as any[];
    const ids = calls.slice(0, 4).map((c) => c.id);
    const imp = await createImport(ev, 'campaign', src.id, ids);
    await emu.api('POST', `${base(ev)}/${imp.id}/triage`, { batchSize: 2 });
    let r = await emu.api('POST', `${base(ev)}/${imp.id}/scenarios`, { callIds: [ids[0], ids[2]] });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('not_triaged');
    r = await emu.api('POST', `${base(ev)}/${imp.id}/scenarios`, { callIds: [ids[0], calls[10].id] });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('calls_not_in_import');
    expect((await emu.api('GET', `/api/v1/agents/${agentId}/evals/${ev}/scenarios`)).body.data.scenarios).toEqual([]);
    r = await emu.api('POST', `${base(ev)}/${imp.id}/scenarios`, { callIds: [ids[0]] });
    expect(r.body.data).toMatchObject({ created: 1, skipped: 0 });
    const firstId = r.body.data.scenarioIds[0];
    await emu.api('POST', `${base(ev)}/${imp.id}/triage`, { batchSize: 10 });
    r = await emu.api('POST', `${base(ev)}/${imp.id}/scenarios`, { callIds: ids });
    expect(r.body.data.created).toBe(3);
    expect(r.body.data.skipped).toBe(1);
    expect(r.body.data.scenarioIds).toHaveLength(3);
    expect(r.body.data.scenarioIds).not.toContain(firstId);
    r = await emu.api('POST', `${base(ev)}/${imp.id}/scenarios`, { callIds: ids });
    expect(r.body.data).toEqual({ created: 0, scenarioIds: [], skipped: 4 });
    const scenarios = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${ev}/scenarios`)).body.data.scenarios as any[];
    expect(scenarios).toHaveLength(4);
    const tc = (await emu.api('GET', `${base(ev)}/${imp.id}/scenarios`)).body.data.calls as any[];
    for (const c of tc) {
      const sc = scenarios.find((x) => x.id === c.scenarioId);
      expect(sc).toMatchObject({
        name: c.triage.suggestedScenario.name,
        persona: c.triage.suggestedScenario.persona,
        goal: c.triage.suggestedScenario.goal,
        category: c.triage.category,
        isAutoGenerated: true,
        isEnabled: true,
        sourceCallId: c.id,
      });
    }
    expect((await emu.api('GET', `/api/v1/agents/${agentId}/evals/${ev}`)).body.data.scenarioCount).toBe(4);
  });

  it('two triage requests at once do not triage a call twice', async () => {
    const ev = await suite();
    const src = (await sources(ev)).callCenters[1];
    const calls = (await candidates(ev, `sourceType=call_center&sourceId=${src.id}&pageSize=100`)).data.calls as any[];
    const imp = await createImport(
      ev,
      'call_center',
      src.id,
      calls.slice(0, 10).map((c) => c.id),
    );
    const [a, b] = await Promise.all([
      emu.api('POST', `${base(ev)}/${imp.id}/triage`, { batchSize: 6 }),
      emu.api('POST', `${base(ev)}/${imp.id}/triage`, { batchSize: 6 }),
    ]);
    expect(a.body.data.processed + b.body.data.processed).toBe(10);
    expect(Math.min(a.body.data.remaining, b.body.data.remaining)).toBe(0);
  });
});

describe('tenant isolation and suite deletion', () => {
  it("another tenant's agent, suite or import is a 404, and its sources are its own", async () => {
    const ev = await suite();
    const src = (await sources(ev)).callCenters[0];
    const calls = (await candidates(ev, `sourceType=call_center&sourceId=${src.id}`)).data.calls as any[];
    const imp = await createImport(ev, 'call_center', src.id, [calls[0].id]);
    const key = ORG_B.apiKey;
    for (const [m, p, body] of [
      ['GET', `${base(ev)}/sources`],
      ['GET', `${base(ev)}/candidates?sourceType=call_center&sourceId=${src.id}`],
      ['GET', base(ev)],
      ['POST', base(ev), { sourceType: 'call_center', sourceId: src.id, callIds: [calls[1].id] }],
      ['POST', `${base(ev)}/${imp.id}/triage`, {}],
      ['GET', `${base(ev)}/${imp.id}/scenarios`],
      ['POST', `${base(ev)}/${imp.id}/scenarios`, { callIds: [calls[0].id] }],
    ] as Array<[string, string, unknown?]>) {
      const r = await emu.api(m, p, body, key);
      expect(r.status, `${m} ${p}`).toBe(404);
    }
    // Globex's own suite sees globex's sources; acme's source ids are unknown there.
    const bAgent = await agent(key);
    const bEv = await suite(bAgent, key);
    const bs = await sources(bEv, bAgent, key);
    expect(bs.callCenters.map((c: any) => c.id)).not.toContain(src.id);
    const r = await emu.api('GET', `/api/v1/agents/${bAgent}/evals/${bEv}/imports/candidates?sourceType=call_center&sourceId=${src.id}`, undefined, key);
    expect(r.status).toBe(404);
    // Acme's import is unchanged.
    expect((await emu.api('GET', base(ev))).body.data.imports[0]).toMatchObject({ id: imp.id, triagedCalls: 0 });
  });

  it('deleting the suite removes its imports (their calls become candidates of a new suite)', async () => {
    const ev = await suite();
    const src = (await sources(ev)).callCenters[0];
    const calls = (await candidates(ev, `sourceType=call_center&sourceId=${src.id}`)).data.calls as any[];
    const imp = await createImport(ev, 'call_center', src.id, [calls[0].id]);
    expect((await emu.api('DELETE', `/api/v1/agents/${agentId}/evals/${ev}`)).status).toBe(200);
    expect((await emu.api('GET', `${base(ev)}/${imp.id}/scenarios`)).status).toBe(404);
  });
});

describe('persistence', () => {
  it('sources, imports and committed batches survive a restart with a data directory; triage resumes', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'vap-imports-'));
    try {
      let e = await startTestEmulator({ dataDir: dir });
      const a = (await e.api('POST', '/api/v1/agents', { name: 'x', instructions: 'y', engine: 'realtime' })).body.data.id;
      const ev = (await e.api('POST', `/api/v1/agents/${a}/evals`, { name: 'z' })).body.data.id;
      const b = `/api/v1/agents/${a}/evals/${ev}/imports`;
      const s = (await e.api('GET', `${b}/sources`)).body.data;
      const cc = s.callCenters[0];
      const calls = (await e.api('GET', `${b}/candidates?sourceType=call_center&sourceId=${cc.id}`)).body.data.calls;
      const imp = (await e.api('POST', b, { sourceType: 'call_center', sourceId: cc.id, callIds: calls.slice(0, 5).map((c: any) => c.id) })).body.data;
      expect((await e.api('POST', `${b}/${imp.id}/triage`, { batchSize: 3 })).body.data.remaining).toBe(2);
      await e.close();
      e = await startTestEmulator({ dataDir: dir });
      try {
        expect((await e.api('GET', `${b}/sources`)).body.data).toEqual(s);
        expect((await e.api('GET', b)).body.data.imports[0]).toMatchObject({ id: imp.id, triagedCalls: 3, status: 'triaging' });
        expect((await e.api('POST', `${b}/${imp.id}/triage`, { batchSize: 3 })).body.data).toMatchObject({
          processed: 2,
          remaining: 0,
          import: { status: 'triaged', triagedCalls: 5 },
        });
      } finally {
        await e.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
