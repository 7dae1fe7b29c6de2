import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// `vap campaigns analytics` and `vap analytics overview` against a real emulator whose
// calls are seeded through the control path: the tables show the JSON's figures, the
// inbound chart marks the peak hour, isStale warns on stderr, flags are checked locally.

let emu: TestEmulator;
let agentId: string;
let listId: string;
let outbound: string;
let inbound: string;
let fresh: string;

const vap = (argv: string[], opts: RunOptions = {}) => runCli(argv, { ...opts, env: { ...cliEnv(emu.url, ORG_A.apiKey), ...opts.env } });
const sent = async () => (await emu.requests()).map((r) => `${r.method} ${r.path}`);
const pct = (rate: number) => `${(Math.round(rate * 10_000) / 100).toFixed(2)}%`;

async function campaign(body: Record<string, unknown>): Promise<string> {
  const r = await emu.api('POST', '/api/v1/campaigns', { agentId, ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.id;
}

beforeAll(async () => {
  emu = await startTestEmulator();
  agentId = (await emu.api('POST', '/api/v1/agents', { name: 'Ava', engine: 'realtime', instructions: 'You are Ava. You remind patients of appointments.' }))
    .body.data.id;
  listId = (
    await emu.api('POST', '/api/v1/contact-lists', {
      name: 'P',
      schema: {
        fields: [
          { name: 'name', type: 'string', required: true },
          { name: 'phone', type: 'phone', required: true },
        ],
      },
    })
  ).body.data.id;
  const pns = await emu.control<{ orgs: Array<{ org: string; phoneNumbers: Array<{ id: string }> }> }>('GET', '/phone-numbers?org=acme');
  const pn = pns.orgs.find((o) => o.org === 'acme')!.phoneNumbers[0]!.id;
  outbound = await campaign({ name: 'Renewals', direction: 'outbound', contactListId: listId });
  inbound = await campaign({ name: 'Front desk', direction: 'inbound', provisionedPhoneNumberId: pn });
  fresh = await campaign({ name: 'Awaiting analysis', direction: 'outbound', contactListId: listId });
  await emu.control('POST', '/calls/seed', { org: 'acme', campaignId: outbound, count: 60 });
  await emu.control('POST', '/calls/seed', { org: 'acme', campaignId: inbound, count: 80 });
  await emu.control('POST', '/calls/seed', { org: 'acme', campaignId: fresh, count: 5, analysed: false });
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  await emu.clearRequests();
});

/** The value on the row labelled `label` under the group titled `group`. */
function cell(text: string, group: string, label: string): string {
  const block = text.split(/\n\n/).find((b) => b.split('\n')[0] === group);
  if (!block) throw new Error(`no group ${group} in:\n${text}`);
  const lines = block.split('\n');
  const at = lines.findIndex((l) => l.trim().startsWith(label));
  if (at < 0) throw new Error(`no row ${label} in group ${group}`);
  // A long value wraps on a terminal: its further lines are indented under it.
  const more = lines.slice(at + 1).findIndex((l) => !/^ {3,}\S/.test(l));
  const row = lines
    .slice(at, more < 0 ? undefined : at + 1 + more)
    .map((l) => l.trim())
    .join(' ');
  return row.slice(label.length).trim();
}

describe('vap campaigns analytics <id>', () => {
  it('shows the metrics as grouped tables whose figures are the JSON’s', async () => {
    const json = JSON.parse((await vap(['campaigns', 'analytics', outbound, '--json'])).stdout);
    const m = json.metrics;
    expect(m.callStats.totalCalls).toBe(60);
    const r = await vap(['campaigns', 'analytics', outbound], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const t = r.stdout;
    expect(t.split('\n')[0]).toBe('Campaign Renewals (draft)');
    expect(t).toMatch(/\nCalls\n[\s\S]*\n\nSuccess\n[\s\S]*\n\nQuality\n[\s\S]*\n\nCompliance\n[\s\S]*\n\nCost\n/);
    expect(cell(t, 'Calls', 'Total')).toBe(String(m.callStats.totalCalls));
    expect(cell(t, 'Calls', 'Completed')).toBe(String(m.callStats.completedCalls));
    expect(cell(t, 'Calls', 'Failed')).toBe(String(m.callStats.failedCalls));
    expect(cell(t, 'Calls', 'Cancelled')).toBe(String(m.callStats.cancelledCalls));
    expect(cell(t, 'Calls', 'Pending')).toBe(String(m.callStats.pendingCalls));
    expect(cell(t, 'Success', 'Human contact rate')).toBe(pct(m.successMetrics.humanContactRate));
    expect(cell(t, 'Success', 'Objective success rate')).toBe(pct(m.successMetrics.objectiveSuccessRate));
    expect(cell(t, 'Success', 'Callback rate')).toBe(pct(m.successMetrics.callbackRate));
    // A score with three decimals, a duration as everywhere (`2m 31s`; the JSON keeps the seconds).
    expect(cell(t, 'Quality', 'Avg sentiment (0..1)')).toBe(m.qualityMetrics.avgSentimentScore.toFixed(3));
    const [, mins, secs] = /^(?:(\d+)m)? ?(?:(\d+)s)?$/.exec(cell(t, 'Quality', 'Avg call duration'))!;
    expect(Number(mins ?? 0) * 60 + Number(secs ?? 0)).toBe(Math.round(m.qualityMetrics.avgCallDuration));
    expect(cell(t, 'Compliance', 'Do-not-call rate')).toBe(pct(m.complianceMetrics.doNotCallRate));
    expect(cell(t, 'Cost', 'Total cost')).toBe(`$${m.costMetrics.totalCost.toFixed(2)}`);
    expect(cell(t, 'Cost', 'Avg cost per call')).toBe(`$${m.costMetrics.avgCostPerCall.toFixed(2)}`);
    expect(m.successMetrics.humanContactRate).toBeGreaterThan(0);

    // Piped: key<TAB>value lines with dotted keys, the same figures.
    const tsv = (await vap(['campaigns', 'analytics', outbound])).stdout;
    expect(tsv).toContain(`metrics.callStats.totalCalls\t60\n`);
    expect(tsv).toContain(`metrics.successMetrics.humanContactRate\t${m.successMetrics.humanContactRate}\n`);
    expect(tsv).toContain(`metrics.costMetrics.totalCost\t${m.costMetrics.totalCost}\n`);
    const q = await vap(['campaigns', 'analytics', outbound, '--query', 'metrics.callStats.totalCalls']);
    expect(q.stdout.trim()).toBe('60');
  });

  it('passes --from/--to and checks them locally', async () => {
    const past = JSON.parse((await vap(['campaigns', 'analytics', outbound, '--from', '2001-01-01', '--to', '2001-01-31', '--json'])).stdout);
    expect(past.metrics.callStats.totalCalls).toBe(0);
    const wide = JSON.parse((await vap(['campaigns', 'analytics', outbound, '--from', '2001-01-01', '--to', '2099-12-31', '--json'])).stdout);
    expect(wide.metrics.callStats.totalCalls).toBe(60);
    await emu.clearRequests();
    const bad: Array<[string[], RegExp]> = [
      [['--from', '2026-02-30'], /--from must be a day as YYYY-MM-DD/],
      [['--to', '11/01/2026'], /--to must be a day/],
      [['--from', '2026-11-08', '--to', '2026-11-01'], /--from 2026-11-08 is after --to 2026-11-01/],
      [['--summary', '--from', '2026-11-01'], /--from\/--to do not apply to --summary/],
      [['--summary', '--realtime'], /cannot go together/],
      [['--watch'], /--watch goes with --realtime/],
      [['--realtime', '--interval', '5'], /--interval goes with --watch/],
      [['--realtime', '--watch', '--interval', '4'], /--interval must be 5 to 10 seconds/],
      [['--realtime', '--watch', '--interval', '11'], /--interval must be 5 to 10 seconds/],
    ];
    for (const [argv, err] of bad) {
      const r = await vap(['campaigns', 'analytics', outbound, ...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(err);
    }
    expect(await sent()).toEqual([]);
  });

  it('--summary and --realtime: tables and JSON agree', async () => {
    const s = JSON.parse((await vap(['campaigns', 'analytics', outbound, '--summary', '--json'])).stdout);
    expect(s).toMatchObject({ totalCalls: 60 });
    const st = (await vap(['campaigns', 'analytics', outbound, '--summary'], { tty: true })).stdout;
    expect(cell(st, 'Calls', 'Total')).toBe('60');
    expect(cell(st, 'Calls', 'Completed')).toBe(String(s.completedCalls));
    expect(cell(st, 'Success', 'Objective success rate')).toBe(pct(s.objectiveSuccessRate));
    expect(cell(st, 'Quality', 'Avg sentiment (0..1)')).toBe(s.avgSentimentScore.toFixed(3));

    const rt = JSON.parse((await vap(['campaigns', 'analytics', outbound, '--realtime', '--json'])).stdout);
    expect(rt).toMatchObject({ activeCalls: 0, queuedCalls: 0 });
    const rtt = (await vap(['campaigns', 'analytics', outbound, '--realtime'], { tty: true })).stdout;
    expect(cell(rtt, 'Now', 'Active calls')).toBe('0');
    expect(cell(rtt, 'Now', 'Completed today')).toBe(String(rt.callsCompletedToday));
  });

  it('warns on stderr while some ended calls await their analysis (isStale)', async () => {
    const r = await vap(['campaigns', 'analytics', fresh, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).meta.isStale).toBe(true);
    expect(r.stderr).toMatch(/^! some ended calls still await their analysis: these figures will change \(meta\.isStale\)\n$/);
    const t = await vap(['campaigns', 'analytics', fresh], { tty: true });
    expect(t.stderr).toContain('await their analysis');
    expect(cell(t.stdout, 'Calls', 'Total')).toBe('5');
    const fine = await vap(['campaigns', 'analytics', outbound, '--json']);
    expect(fine.stderr).toBe('');
  });

  it('--inbound: figures and a 24-row calls-by-hour chart with the peak hour marked', async () => {
    const json = (await vap(['campaigns', 'analytics', inbound, '--inbound', '--json'])).stdout;
    const a = JSON.parse(json);
    expect(a.totalInboundCalls).toBe(80);
    expect(Object.keys(a.callsByHour)).toHaveLength(24);
    // The hours stay in clock order, as the API writes them ("00" first), in JSON and TSV alike.
    const clock = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'));
    expect([...json.matchAll(/"(\d\d)": \d+/g)].map((m) => m[1])).toEqual(clock);
    expect(json.trimEnd()).toBe(
      JSON.stringify(a, null, 2).replace(
        /"callsByHour": \{[^}]*\}/,
        `"callsByHour": {\n${clock.map((h) => `    "${h}": ${a.callsByHour[h]}`).join(',\n')}\n  }`,
      ),
    );
    const tsv = (await vap(['campaigns', 'analytics', inbound, '--inbound', '-o', 'tsv'])).stdout;
    expect([...tsv.matchAll(/^callsByHour\.(\d\d)\t/gm)].map((m) => m[1])).toEqual(clock);
    const r = await vap(['campaigns', 'analytics', inbound, '--inbound'], { tty: true });
    expect(r.code).toBe(0);
    const t = r.stdout;
    expect(cell(t, 'Inbound calls', 'Total')).toBe('80');
    expect(cell(t, 'Inbound calls', 'Answered')).toBe(String(a.answeredCalls));
    expect(cell(t, 'Inbound calls', 'Missed')).toBe(String(a.missedCalls));
    expect(cell(t, 'Inbound calls', 'Peak hour')).toBe(a.peakHour);
    const rows = t.split('\n').filter((l) => /^\d\d │/.test(l));
    expect(rows.map((l) => l.slice(0, 2))).toEqual(Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')));
    const barOf = (l: string) => l.match(/█+/)?.[0].length ?? 0;
    const countOf = (l: string) =>
      Number(
        l
          .replace(/\s*◀ peak$/, '')
          .trim()
          .split(/\s+/)
          .pop(),
      );
    rows.forEach((l) => expect(countOf(l)).toBe(a.callsByHour[l.slice(0, 2)]));
    const marked = rows.filter((l) => l.endsWith('◀ peak'));
    expect(marked).toHaveLength(1);
    expect(marked[0]!.slice(0, 2)).toBe(a.peakHour.slice(0, 2));
    const peakBar = barOf(marked[0]!);
    expect(rows.every((l) => barOf(l) <= peakBar)).toBe(true);
    expect(rows.every((l) => l.length <= 80)).toBe(true);
    expect(peakBar).toBeGreaterThan(40);
    // Bars scale with the counts: an hour with half the peak's calls has about half the bar.
    for (const l of rows) expect(Math.abs(barOf(l) / peakBar - countOf(l) / a.callsByHour[a.peakHour.slice(0, 2)])).toBeLessThan(0.05 + 1 / peakBar);

    const notInbound = await vap(['campaigns', 'analytics', outbound, '--inbound']);
    expect(notInbound.code).toBe(1);
    expect(notInbound.stderr).toMatch(/not an inbound campaign; drop --inbound/);
  });

  it('--realtime --watch: NDJSON, one snapshot per interval, when not on a terminal; Ctrl-C exits 130', async () => {
    const ac = new AbortController();
    const p = vap(['campaigns', 'analytics', outbound, '--realtime', '--watch', '--interval', '5'], { signal: ac.signal });
    await new Promise((r) => setTimeout(r, 400));
    ac.abort();
    const r = await p;
    expect(r.code).toBe(130);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ campaignId: outbound, activeCalls: 0, queuedCalls: 0, readAt: expect.any(String) });
  });

  it('--realtime --watch on a terminal draws the screen and stops cleanly on Ctrl-C', async () => {
    const ac = new AbortController();
    const p = vap(['campaigns', 'analytics', outbound, '--realtime', '--watch'], { tty: true, signal: ac.signal });
    await new Promise((r) => setTimeout(r, 400));
    ac.abort();
    const r = await p;
    expect(r.code).toBe(130);
    expect(r.stdout).toContain(`Campaign Renewals (${outbound}) · realtime`);
    expect(r.stdout).toMatch(/Active calls\s+0/);
    expect(r.stdout).toMatch(/updated at \d\d:\d\d:\d\d UTC · every 5 s · Ctrl-C to stop/);
    expect(r.stderr).toBe('');
  });
});

describe('vap campaigns runs / vap analytics overview', () => {
  it('overview: the table’s figures are the JSON’s', async () => {
    const o = JSON.parse((await vap(['analytics', 'overview', '--json'])).stdout);
    expect(o.totalCampaigns).toBe(3);
    expect(o.totalCalls).toBe(145);
    const t = (await vap(['analytics', 'overview'], { tty: true })).stdout;
    expect(cell(t, 'Campaigns', 'Total')).toBe('3');
    expect(cell(t, 'Calls', 'Total')).toBe('145');
    expect(cell(t, 'Success', 'Avg human contact rate')).toBe(pct(o.avgHumanContactRate));
    expect(cell(t, 'Success', 'Avg objective success rate')).toBe(pct(o.avgObjectiveSuccessRate));
    expect(cell(t, 'Success', 'Top campaign')).toBe(
      `${o.topPerformingCampaign.name} (${o.topPerformingCampaign.id}) ${pct(o.topPerformingCampaign.objectiveSuccessRate)}`,
    );
  });

  it('runs of a campaign never started: an empty list', async () => {
    const r = await vap(['campaigns', 'runs', outbound], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('has no runs yet');
    const bad = await vap(['campaigns', 'runs', outbound, '--from', '2026-11-01']);
    expect(bad.code).toBe(2);
  });
});
