import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// `vap evals imports …` against a real emulator (issue 7): each verb, the table/TSV/JSON
// forms, usage errors that send nothing, and a triage stopped mid-way then resumed.

let emu: TestEmulator;
let agent: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  agent = await createAgent();
});
afterAll(async () => {
  await emu.close();
});

const vap = (argv: string[], opts: RunOptions = {}, key = ORG_A.apiKey, on = emu) => runCli(argv, { ...opts, env: { ...cliEnv(on.url, key), ...opts.env } });

async function createAgent(key = ORG_A.apiKey, on = emu): Promise<string> {
  const r = await on.api('POST', '/api/v1/agents', { name: 'Support', instructions: 'Help callers.', engine: 'realtime' }, key);
  expect(r.status).toBe(201);
  return r.body.data.id;
}

async function createSuite(a = agent, on = emu): Promise<string> {
  const r = await on.api('POST', `/api/v1/agents/${a}/evals`, { name: 'From real calls' });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

async function sourcesOf(ev: string, on = emu, a = agent): Promise<any> {
  return (await on.api('GET', `/api/v1/agents/${a}/evals/${ev}/imports/sources`)).body.data;
}

describe('sources and candidates', () => {
  it('sources: TSV rows piped, a table on a TTY, the grouping with --json', async () => {
    const ev = await createSuite();
    const s = await sourcesOf(ev);
    const piped = await vap(['evals', 'imports', 'sources', ev, '--agent', agent]);
    expect(piped.code).toBe(0);
    const lines = piped.stdout.trim().split('\n');
    expect(lines).toHaveLength(s.callCenters.length + s.outboundCampaigns.length + s.inboundCampaigns.length);
    expect(lines[0]!.split('\t')).toEqual([
      'outbound campaign',
      s.outboundCampaigns[0].id,
      s.outboundCampaigns[0].name,
      String(s.outboundCampaigns[0].callCount),
    ]);
    const tty = await vap(['evals', 'imports', 'sources', '--eval', ev, '--agent', agent], { tty: true });
    expect(tty.stdout).toContain('call center');
    expect(tty.stdout).toMatch(/TYPE\s+ID\s+NAME\s+CALLS/);
    const json = await vap(['evals', 'imports', 'sources', ev, '--agent', agent, '--json']);
    expect(JSON.parse(json.stdout)).toEqual(s);
  });

  it('candidates: every filter becomes a query parameter; paging, --all and the page line', async () => {
    const ev = await createSuite();
    const cc = (await sourcesOf(ev)).callCenters[0];
    await emu.clearRequests();
    const r = await vap([
      'evals',
      'imports',
      'candidates',
      ev,
      '--agent',
      agent,
      '--source',
      cc.id,
      '--from',
      '2020-01-01',
      '--to',
      '2100-12-31',
      '--min-duration',
      '60',
      '--direction',
      'inbound',
      '--search',
      'the',
      '--page',
      '1',
      '--page-size',
      '5',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const calls = JSON.parse(r.stdout);
    expect(calls.length).toBeLessThanOrEqual(5);
    for (const c of calls) {
      expect(c.direction).toBe('inbound');
      expect(c.durationSeconds).toBeGreaterThanOrEqual(60);
    }
    // The same query over HTTP gives the same calls: every flag reached the API.
    const direct = await emu.api(
      'GET',
      `/api/v1/agents/${agent}/evals/${ev}/imports/candidates?sourceType=call_center&sourceId=${cc.id}&from=2020-01-01&to=2100-12-31&minDuration=60&direction=inbound&search=the&page=1&pageSize=5`,
    );
    expect(calls).toEqual(direct.body.data.calls);
    const later = await vap([
      'evals',
      'imports',
      'candidates',
      ev,
      '--agent',
      agent,
      '--source',
      cc.id,
      '--source-type',
      'call_center',
      '--to',
      '2000-01-01',
      '--json',
    ]);
    expect(JSON.parse(later.stdout)).toEqual([]);
    const searched = await vap([
      'evals',
      'imports',
      'candidates',
      ev,
      '--agent',
      agent,
      '--source',
      cc.id,
      '--search',
      'supervisor',
      '--page-size',
      '100',
      '-q',
    ]);
    const viaHttp = await emu.api(
      'GET',
      `/api/v1/agents/${agent}/evals/${ev}/imports/candidates?sourceType=call_center&sourceId=${cc.id}&search=supervisor&pageSize=100`,
    );
    expect(searched.stdout.trim().split('\n').filter(Boolean)).toEqual(viaHttp.body.data.calls.map((c: any) => c.id));

    const page1 = await vap(['evals', 'imports', 'candidates', ev, '--agent', agent, '--source', cc.id, '--page-size', '10'], { tty: true });
    expect(page1.stderr).toContain(`page 1 of ${Math.ceil(cc.callCount / 10)}, ${cc.callCount} calls match; next: --page 2`);
    const all = await vap(['evals', 'imports', 'candidates', ev, '--agent', agent, '--source', cc.id, '--all', '--page-size', '7', '-q']);
    const ids = all.stdout.trim().split('\n');
    expect(ids).toHaveLength(cc.callCount);
    expect(new Set(ids).size).toBe(cc.callCount);
    const def = await vap(['evals', 'imports', 'candidates', ev, '--agent', agent, '--source', cc.id, '-q']);
    expect(def.stdout.trim().split('\n')).toEqual(ids.slice(0, 25));
  });

  it('usage errors send nothing', async () => {
    const ev = await createSuite();
    await emu.clearRequests();
    for (const argv of [
      ['evals', 'imports', 'candidates', ev, '--agent', agent],
      ['evals', 'imports', 'candidates', ev, '--agent', agent, '--source', 'cc_x', '--from', 'yesterday'],
      ['evals', 'imports', 'candidates', ev, '--agent', agent, '--source', 'cc_x', '--to', '2026-02-31'],
      ['evals', 'imports', 'candidates', ev, '--agent', agent, '--source', 'cc_x', '--page-size', '101'],
      ['evals', 'imports', 'candidates', ev, '--agent', agent, '--source', 'cc_x', '--direction', 'up'],
      ['evals', 'imports', 'candidates', ev, '--agent', agent, '--source', 'cc_x', '--source-type', 'phone'],
      ['evals', 'imports', 'candidates', ev, '--source', 'cc_x'],
      ['evals', 'imports', 'create', ev, '--agent', agent, '--source', 'cc_x'],
      ['evals', 'imports', 'triage', 'imp_x', '--agent', agent],
      ['evals', 'imports', 'triage', ev, 'imp_x', '--agent', agent, '--batch-size', '51'],
      ['evals', 'imports', 'create-scenarios', ev, 'imp_x', '--agent', agent],
      ['evals', 'imports', 'create-scenarios', ev, 'imp_x', '--agent', agent, '--all', '--calls', 'a'],
    ]) {
      const r = await vap(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: /);
    }
    expect(await emu.requests()).toEqual([]);
  });
});

describe('import, triage, review, create scenarios', () => {
  it('create → list → triage → calls → create-scenarios (duplicates skipped)', async () => {
    const ev = await createSuite();
    const src = (await sourcesOf(ev)).outboundCampaigns[0];
    const ids = (await vap(['evals', 'imports', 'candidates', ev, '--agent', agent, '--source', src.id, '-q'])).stdout.trim().split('\n').slice(0, 6);
    const created = await vap(['evals', 'imports', 'create', ev, '--agent', agent, '--source', src.id, '--calls', ids.join(','), '-q']);
    expect(created.code).toBe(0);
    const imp = created.stdout.trim();
    expect(imp).toMatch(/^imp_/);
    const rej = await vap(['evals', 'imports', 'create', ev, '--agent', agent, '--source', src.id, '--calls', ids[0]!]);
    expect(rej.code).toBe(1);
    expect(rej.stderr).toMatch(/already imported/);
    const list = await vap(['evals', 'imports', 'list', ev, '--agent', agent]);
    expect(list.stdout.trim().split('\t').slice(0, 4)).toEqual([imp, `${src.name} (6 calls)`, 'pending', '0/6']);

    const tri = await vap(['evals', 'imports', 'triage', ev, imp, '--agent', agent, '--batch-size', '4']);
    expect(tri.code).toBe(0);
    expect(tri.stderr).toContain('triaged 4/6 (+4, 2 remaining)');
    expect(tri.stderr).toContain('triaged 6/6 (+2, 0 remaining)');
    expect(tri.stdout).toContain('triaged calls\t6/6');

    const calls = await vap(['evals', 'imports', 'calls', imp, '--eval', ev, '--agent', agent, '--json']);
    const rows = JSON.parse(calls.stdout);
    expect(rows.map((c: any) => c.id)).toEqual(ids);
    expect(rows.every((c: any) => c.triageStatus === 'triaged' && c.triage.summary && c.triage.suggestedScenario.name && c.scenarioId === null)).toBe(true);
    const table = await vap(['evals', 'imports', 'calls', imp, '--eval', ev, '--agent', agent, '--wide'], { tty: true });
    expect(table.stdout).toMatch(/CATEGORY.*SUGGESTED SCENARIO.*PERSONA\s+GOAL/);
    expect(table.stdout).toContain(rows[0].triage.category);

    const one = await vap(['evals', 'imports', 'create-scenarios', ev, imp, '--agent', agent, '--calls', ids[0]!]);
    expect(one.code).toBe(0);
    expect(one.stdout.trim()).toMatch(/^sc_/);
    expect(one.stderr).toContain('Created 1 scenario;');
    const all = await vap(['evals', 'imports', 'create-scenarios', ev, imp, '--agent', agent, '--all', '--json']);
    const res = JSON.parse(all.stdout);
    expect(res).toMatchObject({ created: 5, skipped: 1 });
    expect(all.stderr).toContain('Created 5 scenarios, skipped 1 already turned into scenarios');
    const again = await vap(['evals', 'imports', 'create-scenarios', ev, imp, '--agent', agent, '--calls', ids.join(',')]);
    expect(again.stderr).toContain('Created 0 scenarios, skipped 6');
    const sc = (await emu.api('GET', `/api/v1/agents/${agent}/evals/${ev}/scenarios`)).body.data.scenarios;
    expect(sc).toHaveLength(6);
    expect(sc.every((s: any) => s.isAutoGenerated && ids.includes(s.sourceCallId))).toBe(true);
  });

  it('create-scenarios of untriaged calls, and imports with calls of another source, fail with the emulator message', async () => {
    const ev = await createSuite();
    const s = await sourcesOf(ev);
    const a = (await vap(['evals', 'imports', 'candidates', ev, '--agent', agent, '--source', s.callCenters[0].id, '-q'])).stdout.trim().split('\n');
    const b = (await vap(['evals', 'imports', 'candidates', ev, '--agent', agent, '--source', s.callCenters[1].id, '-q'])).stdout.trim().split('\n');
    const bad = await vap(['evals', 'imports', 'create', ev, '--agent', agent, '--source', s.callCenters[0].id, '--calls', `${a[0]},${b[0]}`]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`call ${b[0]} does not belong to call_center ${s.callCenters[0].id}; nothing was imported`);
    const imp = (await vap(['evals', 'imports', 'create', ev, '--agent', agent, '--source', s.callCenters[0].id, '--calls', a[0]!, '-q'])).stdout.trim();
    const r = await vap(['evals', 'imports', 'create-scenarios', ev, imp, '--agent', agent, '--calls', a[0]!]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not triaged/);
    const none = await vap(['evals', 'imports', 'create-scenarios', ev, imp, '--agent', agent, '--all']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`vap evals imports triage ${imp}`);
  });

  it('another tenant sees a 404 for the suite', async () => {
    const ev = await createSuite();
    const r = await vap(['evals', 'imports', 'sources', ev, '--agent', agent], {}, ORG_B.apiKey);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/not found/i);
  });
});

describe('triage stopped mid-way and resumed', () => {
  it('Ctrl-C between batches keeps the committed ones (exit 130, says how to resume); the same command resumes', async () => {
    // Slow enough that the triage takes several visible batches: 1.5 simulated s per call at 30x is 50 ms.
    const slow = await startTestEmulator({ timeScale: 30 });
    try {
      const a = await createAgent(ORG_A.apiKey, slow);
      const ev = await createSuite(a, slow);
      const src = (await sourcesOf(ev, slow, a)).callCenters[0];
      const ids = (
        await vap(['evals', 'imports', 'candidates', ev, '--agent', a, '--source', src.id, '-q', '--page-size', '12'], {}, ORG_A.apiKey, slow)
      ).stdout
        .trim()
        .split('\n');
      expect(ids).toHaveLength(12);
      const imp = (
        await vap(['evals', 'imports', 'create', ev, '--agent', a, '--source', src.id, '--calls', ids.join(','), '-q'], {}, ORG_A.apiKey, slow)
      ).stdout.trim();

      const ac = new AbortController();
      const running = vap(
        ['evals', 'imports', 'triage', imp, '--eval', ev, '--agent', a, '--batch-size', '2'],
        { signal: ac.signal, tty: true },
        ORG_A.apiKey,
        slow,
      );
      // Stop once at least one batch is committed.
      for (let i = 0; i < 500; i++) {
        const list = (await slow.api('GET', `/api/v1/agents/${a}/evals/${ev}/imports`)).body.data.imports;
        if (list[0].triagedCalls >= 2) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      ac.abort();
      const stopped = await running;
      expect(stopped.code).toBe(130);
      // On a terminal the message wraps at word boundaries (the lines after the first hang under its text).
      expect(stopped.stderr.replace(/\s+/g, ' ')).toContain(`Resume with \`vap evals imports triage ${imp} --eval ${ev} --agent ${a} --batch-size 2\``);
      expect(stopped.stderr).toMatch(/█/);
      // Let an in-flight batch land, then check what is kept.
      await new Promise((r) => setTimeout(r, 200));
      const mid = (await slow.api('GET', `/api/v1/agents/${a}/evals/${ev}/imports`)).body.data.imports[0];
      expect(mid.triagedCalls).toBeGreaterThanOrEqual(2);
      expect(mid.triagedCalls).toBeLessThan(12);
      expect(mid.status).toBe('triaging');

      await slow.clearRequests();
      const resumed = await vap(['evals', 'imports', 'triage', imp, '--eval', ev, '--agent', a, '--batch-size', '2'], {}, ORG_A.apiKey, slow);
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toContain('triaged calls\t12/12');
      const batches = (await slow.requests()).filter((r) => r.path.endsWith('/triage')).length;
      expect(batches).toBe(Math.ceil((12 - mid.triagedCalls) / 2));
      const end = (await slow.api('GET', `/api/v1/agents/${a}/evals/${ev}/imports`)).body.data.imports[0];
      expect(end).toMatchObject({ status: 'triaged', triagedCalls: 12 });
    } finally {
      await slow.close();
    }
  });

  it('a failed batch: the error is reported with how to resume, and the committed batches stay', async () => {
    const ev = await createSuite();
    const src = (await sourcesOf(ev)).inboundCampaigns[0];
    const ids = (await vap(['evals', 'imports', 'candidates', ev, '--agent', agent, '--source', src.id, '-q', '--page-size', '6'])).stdout.trim().split('\n');
    const imp = (await vap(['evals', 'imports', 'create', ev, '--agent', agent, '--source', src.id, '--calls', ids.join(','), '-q'])).stdout.trim();
    // The first batch goes through; the second is refused (a 4xx is not retried).
    await emu.api('POST', `/api/v1/agents/${agent}/evals/${ev}/imports/${imp}/triage`, { batchSize: 2 });
    await emu.fault({ method: 'POST', path: `/api/v1/agents/${agent}/evals/${ev}/imports/${imp}/triage`, status: 400, count: 1 });
    const failed = await vap(['evals', 'imports', 'triage', imp, '--eval', ev, '--agent', agent, '--batch-size', '2']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('Resume with');
    expect((await emu.api('GET', `/api/v1/agents/${agent}/evals/${ev}/imports`)).body.data.imports[0].triagedCalls).toBe(2);
    const resumed = await vap(['evals', 'imports', 'triage', imp, '--eval', ev, '--agent', agent, '--batch-size', '2']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('triaged 6/6');
  });
});

describe('triage of an unknown import', () => {
  it('is a not-found error without a resume hint', async () => {
    const ev = await createSuite();
    const r = await vap(['evals', 'imports', 'triage', ev, 'imp_nope', '--agent', agent]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not found/i);
    expect(r.stderr).not.toContain('Resume with');
  });
});
