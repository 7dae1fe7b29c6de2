import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';
import { callFilters } from '../../src/commands/call-options.js';

// `vap calls list|get|transcript|recording|audio|cancel` against a real emulator: calls
// made through the public API (an outbound campaign run to its end at timeScale 1000)
// plus seeded history (POST /_emulator/calls/seed) for paging; every filter is compared
// with the HTTP listing.

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

/** An agent, a list of n contacts, and an outbound campaign with them all added (draft). */
async function setup(e: TestEmulator, n: number, name = 'Reminders'): Promise<{ campaignId: string; contactIds: string[] }> {
  const a = await e.api('POST', '/api/v1/agents', {
    name: 'Ava',
    engine: 'pipeline',
    instructions: 'You are Ava from Bright Dental. You call patients to remind them about their upcoming appointments.',
  });
  expect(a.status).toBe(201);
  const l = await e.api('POST', '/api/v1/contact-lists', {
    name: `${name} list`,
    schema: {
      fields: [
        { name: 'name', type: 'string', required: true },
        { name: 'phone', type: 'phone', required: true },
      ],
    },
  });
  const contacts = Array.from({ length: n }, (_, i) => ({
    name: `Patient ${String.fromCharCode(65 + (i % 26))}${i}`,
    phone: `+1415555${String(100 + i).padStart(4, '0')}`,
  }));
  const job = await e.api('POST', `/api/v1/contact-lists/${l.body.data.id}/contacts`, { contacts });
  await until('the import', async () => (await e.api('GET', `/api/v1/import-jobs/${job.body.jobId}`)).body.status === 'completed');
  const cs = await e.api('GET', `/api/v1/contact-lists/${l.body.data.id}/contacts?limit=100`);
  const contactIds = cs.body.data.map((c: { id: string }) => c.id);
  const c = await e.api('POST', '/api/v1/campaigns', { name, direction: 'outbound', contactListId: l.body.data.id, agentId: a.body.data.id });
  expect(c.status).toBe(201);
  await e.api('POST', `/api/v1/campaigns/${c.body.data.id}/contacts`, { contactIds });
  return { campaignId: c.body.data.id, contactIds };
}

/** Every call of the HTTP listing with these query parameters (all pages), newest first. */
async function httpAll(query: Record<string, string | number> = {}): Promise<{ calls: Call[]; summary: Record<string, number> }> {
  const calls: Call[] = [];
  let summary: Record<string, number> = {};
  for (let page = 1; ; page++) {
    const qs = new URLSearchParams({ ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])), page: String(page), pageSize: '100' });
    const r = await emu.api('GET', `/api/v1/calls?${qs}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    if (page === 1) summary = r.body.data.summary;
    calls.push(...r.body.data.calls);
    if (page >= r.body.data.pagination.totalPages) return { calls, summary };
  }
}

let emu: TestEmulator;
let campaignId: string;
let campaignCalls: Call[];
let total: number;
let dir: string;

const vap = (argv: string[], opts: RunOptions & { key?: string } = {}) =>
  runCli(argv, { ...opts, env: { ...cliEnv(emu.url, opts.key ?? ORG_A.apiKey), ...opts.env } });
const ndjson = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Call);

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-calls-cli-'));
  ({ campaignId } = await setup(emu, 14));
  await emu.api('POST', `/api/v1/campaigns/${campaignId}/calls`, { queueAllPending: true });
  await emu.api('POST', `/api/v1/campaigns/${campaignId}/start`);
  campaignCalls = await until('every call ended and analysed', async () => {
    const r = await emu.api('GET', `/api/v1/campaigns/${campaignId}/calls?pageSize=100`);
    const s = r.body.data.summary;
    if (s.queued !== 0 || s.active !== 0) return false;
    // completed calls are analysed; a failed one never connected and has no analysis
    for (const c of r.body.data.calls)
      if (c.status === 'completed' && (await emu.api('GET', `/api/v1/calls/${c.id}`)).body.data.analysis === null) return false;
    return r.body.data.calls as Call[];
  });
  await emu.control('POST', '/calls/seed', { org: 'acme', count: 250 });
  total = (await httpAll()).calls.length;
});
afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('vap calls list', () => {
  it('prints a table with the summary counts under it on a terminal', async () => {
    const r = await vap(['calls', 'list'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    // CREATED is relative on a terminal, as every other table's times (the standard of src/ui/values.ts).
    // At 80 columns the table fits: ids are a UUID's first eight digits, and DIRECTION is left out.
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+CALLEE\s+PHONE\s+DURATION\s+CREATED$/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    for (const l of lines.slice(1, 51)) expect(l).toMatch(/  (just now|(in )?\d+ (second|minute|hour|day|month|year)s?( ago)?)$/);
    const { calls, summary } = await httpAll();
    // one page of 50, newest first
    expect(lines.slice(1, 51).map((l) => l.split(/\s+/)[0])).toEqual(calls.slice(0, 50).map((c) => c.id.slice(0, 8)));
    // The footer wraps at word boundaries to the terminal's width.
    expect(lines.slice(-2).join(' ')).toBe(
      `${summary.total} calls: ${summary.completed} completed, ${summary.failed} failed, ${summary.active} active, ${summary.queued} queued (showing 1–50; --page 2 or --all for more)`,
    );
    expect(summary.total).toBe(total);
    // --absolute-times: the exact ISO 8601 time, the column as wide as one.
    const exact = await vap(['calls', 'list', '--absolute-times', '--limit', '3'], { tty: true });
    const rows = exact.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^ID\s+STATUS\s+CALLEE\s+DURATION\s+CREATED$/);
    expect(rows.slice(1, 4).map((l) => l.slice(-24))).toEqual(calls.slice(0, 3).map((c) => c.createdAt));
    // --wide: whole ids and every column, not fitted to the width.
    const wide = await vap(['calls', 'list', '--wide', '--limit', '3'], { tty: true });
    const wideRows = wide.stdout.trimEnd().split('\n');
    expect(wideRows[0]).toMatch(/^ID\s+STATUS\s+DIRECTION\s+CALLEE\s+PHONE\s+DURATION\s+CREATED$/);
    expect(wideRows.slice(1, 4).map((l) => l.split(/\s+/)[0])).toEqual(calls.slice(0, 3).map((c) => c.id));
  });

  it('prints TSV when piped and the summary on stderr, so stdout stays data', async () => {
    const r = await vap(['calls', 'list', '--campaign', campaignId]);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((f) => f[0])).toEqual(campaignCalls.map((c) => c.id));
    const first = campaignCalls[0]!;
    expect(rows[0]).toEqual([
      first.id,
      first.status,
      first.direction,
      first.calleeName,
      first.phoneNumber,
      String(first.duration),
      first.createdAt,
      campaignId,
    ]);
    expect(r.stdout).not.toMatch(/calls:/);
    const completed = campaignCalls.filter((c) => c.status === 'completed').length;
    expect(r.stderr).toContain(`${campaignCalls.length} calls: ${completed} completed, ${campaignCalls.length - completed} failed, 0 active, 0 queued`);
  });

  it('--all streams every page in order with -o ndjson, tsv and json', async () => {
    const { calls } = await httpAll();
    const nd = await vap(['calls', 'list', '--all', '--page-size', '37', '-o', 'ndjson']);
    expect(nd.code, nd.stderr).toBe(0);
    const got = ndjson(nd.stdout);
    expect(got.map((c) => c.id)).toEqual(calls.map((c) => c.id));
    expect(new Set(got.map((c) => c.id)).size).toBe(total);
    expect(got[0]).toEqual(calls[0]);
    const tsv = await vap(['calls', 'list', '--all', '-o', 'tsv']);
    expect(
      tsv.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(calls.map((c) => c.id));
    const json = await vap(['calls', 'list', '--all', '--json']);
    expect((JSON.parse(json.stdout) as Call[]).map((c) => c.id)).toEqual(calls.map((c) => c.id));
    const q = await vap(['calls', 'list', '--all', '-q', '--page-size', '100']);
    expect(q.stdout.trim().split('\n')).toEqual(calls.map((c) => c.id));
    expect(q.stderr).toBe('');
  });

  it('--limit follows pages and stops after n rows; --page and --page-size choose one page', async () => {
    const { calls } = await httpAll();
    const lim = await vap(['calls', 'list', '--limit', '130', '-q']);
    expect(lim.stdout.trim().split('\n')).toEqual(calls.slice(0, 130).map((c) => c.id));
    const lim2 = await vap(['calls', 'list', '--limit', '45', '--page-size', '20', '-q']);
    expect(lim2.stdout.trim().split('\n')).toEqual(calls.slice(0, 45).map((c) => c.id));
    const page = await vap(['calls', 'list', '--page', '3', '--page-size', '25', '-q']);
    expect(page.stdout.trim().split('\n')).toEqual(calls.slice(50, 75).map((c) => c.id));
    const dflt = await vap(['calls', 'list', '-q']);
    expect(dflt.stdout.trim().split('\n')).toHaveLength(50);
    // the footer's next step is n more, not n + a page size
    const few = await vap(['calls', 'list', '--limit', '3']);
    expect(few.stderr).toContain(`(showing 1–3; --limit 6 or --all for more)`);
  });

  const cases: Array<[string, string[], Record<string, string | number>]> = [
    ['--status completed', ['--status', 'completed'], { status: 'completed' }],
    ['--status failed', ['--status', 'failed'], { status: 'failed' }],
    ['--direction outbound', ['--direction', 'outbound'], { direction: 'outbound' }],
    ['--direction inbound', ['--direction', 'inbound'], { direction: 'inbound' }],
    ['--min-duration 2m', ['--min-duration', '2m'], { minDuration: 120 }],
    ['--max-duration 90s', ['--max-duration', '90s'], { maxDuration: 90 }],
    ['--min-duration 60 --max-duration 1m30s', ['--min-duration', '60', '--max-duration', '1m30s'], { minDuration: 60, maxDuration: 90 }],
    ['--search Patient', ['--search', 'patient'], { search: 'patient' }],
    ['--search digits', ['--search', '+1 415 555'], { search: '+1 415 555' }],
  ];
  for (const [name, argv, query] of cases) {
    it(`${name} lists what the HTTP listing lists`, async () => {
      const want = await httpAll(query);
      const r = await vap(['calls', 'list', ...argv, '--all', '-o', 'ndjson']);
      expect(r.code, r.stderr).toBe(0);
      expect(ndjson(r.stdout).map((c) => c.id)).toEqual(want.calls.map((c) => c.id));
      expect(r.stderr).toContain(`${want.summary.total} call`);
    });
  }

  it('--campaign, --from and --to filter like the HTTP listing (a date --to takes the whole day)', async () => {
    const { calls } = await httpAll();
    const dates = [...new Set(calls.map((c) => c.createdAt.slice(0, 10)))].sort();
    expect(dates.length).toBeGreaterThan(3);
    const from = dates[1]!;
    const to = dates[dates.length - 2]!;
    const want = await httpAll({ dateFrom: from, dateTo: to });
    expect(want.calls.length).toBeGreaterThan(0);
    expect(want.calls.every((c) => c.createdAt.slice(0, 10) >= from && c.createdAt.slice(0, 10) <= to)).toBe(true);
    const r = await vap(['calls', 'list', '--from', from, '--to', to, '--all', '-q']);
    expect(r.stdout.trim().split('\n')).toEqual(want.calls.map((c) => c.id));
    // a time is sent as ISO UTC
    const at = calls[Math.floor(calls.length / 2)]!.createdAt;
    const since = await httpAll({ dateFrom: at });
    const r2 = await vap(['calls', 'list', '--from', at, '--all', '-q']);
    expect(r2.stdout.trim().split('\n')).toEqual(since.calls.map((c) => c.id));
    // a date is sent as an instant that keeps the promise on any server: --to as the day's last millisecond
    expect(callFilters({ from, to })).toMatchObject({ dateFrom: `${from}T00:00:00.000Z`, dateTo: `${to}T23:59:59.999Z` });
    const byCampaign = await vap(['calls', 'list', '--campaign', campaignId, '--status', 'completed', '--all', '-q']);
    expect(byCampaign.stdout.trim().split('\n')).toEqual((await httpAll({ campaignId, status: 'completed' })).calls.map((c) => c.id));
  });

  it('refuses bad filters locally with one line and exit 2, sending nothing', async () => {
    await emu.clearRequests();
    const bad: Array<[string[], RegExp]> = [
      [
        ['--status', 'bogus'],
        /argument 'bogus' is invalid\. --status must be one of: queued, in-progress \(or in_progress\), completed, failed, cancelled; got "bogus"\./,
      ],
      [['--status', 'ringing'], /in-progress lists initiated, ringing and in_progress calls/],
      [['--direction', 'sideways'], /--direction must be outbound or inbound/],
      [['--from', 'yesterday'], /--from takes a date/],
      [['--min-duration', 'long'], /--min-duration takes a duration/],
      [['--min-duration', '5m', '--max-duration', '1m'], /--min-duration \(300s\) is more than --max-duration \(60s\)/],
      [['--from', '2026-11-10', '--to', '2026-11-01'], /--from 2026-11-10 is after --to 2026-11-01/],
      [['--page-size', '101'], /--page-size must be a whole number from 1 to 100/],
      [['--all', '--limit', '5'], /--all and --limit disagree/],
      [['--campaign', ' '], /--campaign is empty/],
      [['--search', ' '], /--search is empty/],
    ];
    for (const [argv, msg] of bad) {
      const r = await vap(['calls', 'list', ...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
    }
    expect((await emu.requests()).filter((q) => q.path.startsWith('/api/v1/calls'))).toEqual([]);
  });

  it('an empty listing says so on stderr', async () => {
    const r = await vap(['calls', 'list', '--search', 'nobody-by-this-name'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No calls match these filters.');
  });

  it('Ctrl-C while a page is awaited stops the listing with exit 130', async () => {
    await emu.fault({ method: 'GET', path: '/api/v1/calls', delayMs: 3000, count: 1 });
    const ac = new AbortController();
    const p = vap(['calls', 'list', '--all', '-o', 'ndjson'], { signal: ac.signal });
    setTimeout(() => ac.abort(), 200);
    const r = await p;
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
  });

  it("lists only the key's organization", async () => {
    const r = await vap(['calls', 'list', '--all', '-q'], { key: ORG_B.apiKey });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  });
});

describe('status synonyms and cancel (a slow emulator, so that calls stay in flight)', () => {
  let slow: TestEmulator;
  let active: Call;
  let queuedIds: string[];
  beforeAll(async () => {
    slow = await startTestEmulator({ timeScale: 2 });
    const one = await setup(slow, 2, 'Live');
    await slow.api('POST', `/api/v1/campaigns/${one.campaignId}/calls`, { contactIds: [one.contactIds[0]] });
    await slow.api('POST', `/api/v1/campaigns/${one.campaignId}/start`);
    active = await until('a call in flight', async () => {
      const r = await slow.api('GET', '/api/v1/calls?status=in-progress');
      return r.body.data.calls[0] as Call | undefined;
    });
    const held = await setup(slow, 3, 'Held');
    const q = await slow.api('POST', `/api/v1/campaigns/${held.campaignId}/calls`, { queueAllPending: true });
    queuedIds = q.body.data.calls.map((c: Call) => c.id);
  });
  afterAll(async () => {
    await slow?.close();
  });
  const sv = (argv: string[], opts: RunOptions = {}) => runCli(argv, { ...opts, env: cliEnv(slow.url, ORG_A.apiKey) });

  it('in_progress, in-progress and active all list the calls in flight', async () => {
    for (const s of ['in_progress', 'in-progress', 'active', 'IN_PROGRESS']) {
      const r = await sv(['calls', 'list', '--status', s, '-q']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim().split('\n'), s).toContain(active.id);
    }
    const queued = await sv(['calls', 'list', '--status', 'queued', '-q']);
    expect(queued.stdout.trim().split('\n').sort()).toEqual([...queuedIds].sort());
  });

  it('cancel refuses a call in flight: its status, and that it completes normally (exit 1)', async () => {
    const r = await sv(['calls', 'cancel', active.id]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `call ${active.id} cannot be cancelled: it is (initiated|ringing|in progress); only queued calls can be cancelled, and a call already initiated completes normally`,
      ),
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('cancel reads a 400 or 422 refusal (the spec shows no status code) like a 409: the call says its status', async () => {
    for (const status of [400, 422]) {
      await slow.fault({ method: 'POST', path: `/api/v1/calls/${active.id}/cancel`, status, count: 1 });
      const r = await sv(['calls', 'cancel', active.id]);
      expect(r.code, String(status)).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`call ${active.id} cannot be cancelled: it is (initiated|ringing|in progress|already completed)`));
    }
  });

  it('cancel cancels a queued call, and refuses it the second time (already cancelled)', async () => {
    const id = queuedIds[0]!;
    const r = await sv(['calls', 'cancel', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`id\t${id}\n`);
    expect(r.stdout).toContain('status\tcancelled\n');
    expect(r.stderr).toContain(`Cancelled call ${id}`);
    expect((await slow.api('GET', `/api/v1/calls/${id}`)).body.data.status).toBe('cancelled');
    const shown = await sv(['calls', 'get', id], { tty: true });
    expect(shown.stdout).toContain('No analysis: the call was cancelled before it was dialled.');
    const again = await sv(['calls', 'cancel', id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`call ${id} cannot be cancelled: it is already cancelled; only queued calls can be cancelled`);
    const json = await sv(['calls', 'cancel', queuedIds[1]!, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: queuedIds[1], status: 'cancelled' });
  });
});

describe('vap calls get', () => {
  it('--json prints the detail as the API returns it', async () => {
    const c = campaignCalls.find((x) => x.status === 'completed')!;
    const r = await vap(['calls', 'get', c.id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual((await emu.api('GET', `/api/v1/calls/${c.id}`)).body.data);
  });

  it('on a terminal: facts, summary, sentiment, human contact, callback, resolution, objectives', async () => {
    const c = campaignCalls.find((x) => x.status === 'completed')!;
    const detail = (await emu.api('GET', `/api/v1/calls/${c.id}`)).body.data;
    const r = await vap(['calls', 'get', c.id], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(new RegExp(`^Call ${c.id}  completed · outbound · \\d+`));
    expect(r.stdout).toContain(c.calleeName);
    const order = ['Summary', 'Sentiment', 'Human contact', 'Callback', 'Resolution', 'Objectives'].map((h) => r.stdout.indexOf(h));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(detail.summary.replace(/\s+/g, ' '));
    expect(r.stdout).toContain(detail.analysis.sentiment.overallSentiment);
    expect(r.stdout).toMatch(/primary: (True|False|Unknown)/);
  });

  it('flags crisis, legal threats and do-not-call requests first, in red on a terminal', async () => {
    // Seeded history is analysed: find calls with each flag.
    const { calls } = await httpAll({ status: 'completed' });
    const found: Record<string, string> = {};
    for (const c of calls) {
      if (found.crisis && found.legal && found.dnc) break;
      const a = (await emu.api('GET', `/api/v1/calls/${c.id}`)).body.data.analysis;
      if (!a) continue;
      if (a.crisis.detected) found.crisis ??= c.id;
      else if (a.legal.threatened) found.legal ??= c.id;
      else if (a.doNotCall.requested) found.dnc ??= c.id;
    }
    expect(Object.keys(found).length).toBeGreaterThan(0);
    const label: Record<string, string> = { crisis: 'CRISIS detected', legal: 'LEGAL threat', dnc: 'DO NOT CALL requested' };
    for (const [kind, id] of Object.entries(found)) {
      const r = await vap(['calls', 'get', id], { tty: true, env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
      expect(r.code, r.stderr).toBe(0);
      const at = r.stdout.indexOf(label[kind]!);
      expect(at, kind).toBeGreaterThan(0);
      expect(at).toBeLessThan(r.stdout.indexOf('Summary'));
      // red (31) around the flag line
      expect(r.stdout.slice(Math.max(0, at - 20), at)).toMatch(/\x1b\[(1;)?31m|\x1b\[31m/);
      const piped = await vap(['calls', 'get', id]);
      const flags = piped.stdout.split('\n').find((l) => l.startsWith('flags\t'))!;
      expect(flags.split('\t')[1]).toContain(kind === 'dnc' ? 'doNotCall' : kind);
    }
  });

  it('an unknown call is one line with exit 1; an empty id is a usage error', async () => {
    const r = await vap(['calls', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/HTTP 404/);
    const other = await vap(['calls', 'get', campaignCalls[0]!.id], { key: ORG_B.apiKey });
    expect(other.code).toBe(1);
    const empty = await vap(['calls', 'get', ' ']);
    expect(empty.code).toBe(2);
    await emu.clearRequests();
    for (const verb of ['get', 'transcript', 'recording', 'audio', 'cancel']) {
      const notId = await vap(['calls', verb, 'call-1234', '-O', '-'].slice(0, verb === 'audio' ? 5 : 3));
      expect(notId.code, verb).toBe(2);
      expect(notId.stderr).toBe('error: "call-1234" is not a call id: call ids are UUIDs; copy one from `vap calls list` (or `vap calls list -q`)\n');
    }
    expect((await emu.requests()).filter((q) => q.path.startsWith('/api/v1/calls'))).toEqual([]);
  });
});

describe('vap calls transcript', () => {
  it('a chat on a terminal, the raw transcript with --json, TSV when piped', async () => {
    const c = campaignCalls.find((x) => x.status === 'completed')!;
    const t = (await emu.api('GET', `/api/v1/calls/${c.id}/transcript`)).body.data;
    expect(t.messages.length).toBeGreaterThan(1);
    const r = await vap(['calls', 'transcript', c.id], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toContain(`Call ${c.id} · ${t.messageCount} messages`);
    expect(r.stdout).toMatch(/^agent {3}\S/m);
    expect(r.stdout).toMatch(/^caller {2}\S/m);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(t.messages[0].text.replace(/\s+/g, ' '));
    const json = await vap(['calls', 'transcript', c.id, '--json']);
    expect(JSON.parse(json.stdout)).toEqual(t);
    const tsv = await vap(['calls', 'transcript', c.id]);
    const lines = tsv.stdout.trim().split('\n');
    expect(lines).toHaveLength(t.messageCount);
    expect(lines[0]).toBe(`0\t${t.messages[0].role}\t${t.messages[0].text}`);
    const nd = await vap(['calls', 'transcript', c.id, '-o', 'ndjson']);
    expect(ndjson(nd.stdout)).toEqual(t.messages);
  });

  it('a failed call has no transcript: said on stderr', async () => {
    const failed = (await httpAll({ status: 'failed' })).calls[0]!;
    const r = await vap(['calls', 'transcript', failed.id], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`No transcript for call ${failed.id}`);
  });
});

describe('vap calls recording and audio', () => {
  let call: Call;
  let meta: { recordings: Array<{ sid: string; duration: number; status: string; createdAt: string }>; [k: string]: unknown };
  beforeAll(async () => {
    call = campaignCalls.find((x) => x.status === 'completed' && x.duration > 20)!;
    meta = (await emu.api('GET', `/api/v1/calls/${call.id}/recording`)).body.data;
  });

  it('recording: a table on a terminal, TSV piped, the metadata with --json', async () => {
    expect(meta.recordings).toHaveLength(1);
    const rec = meta.recordings[0]!;
    const t = await vap(['calls', 'recording', call.id], { tty: true });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/SID\s+DURATION\s+STATUS\s+CREATED/);
    expect(t.stdout).toContain(rec.sid);
    expect(t.stderr).toContain(`vap calls audio ${call.id} -O`);
    const piped = await vap(['calls', 'recording', call.id]);
    expect(piped.stdout).toBe(`${rec.sid}\t${rec.duration}\t${rec.status}\t${rec.createdAt}\n`);
    const json = await vap(['calls', 'recording', call.id, '--json']);
    expect(JSON.parse(json.stdout)).toEqual(meta);
    const failed = (await httpAll({ status: 'failed' })).calls[0]!;
    const none = await vap(['calls', 'recording', failed.id], { tty: true });
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('has no recording');
  });

  it('audio -O x.wav writes a RIFF/WAVE file (format from the name), whole', async () => {
    const file = join(dir, 'call.wav');
    const r = await vap(['calls', 'audio', call.id, '-O', file]);
    expect(r.code, r.stderr).toBe(0);
    const buf = readFileSync(file);
    expect(buf.toString('ascii', 0, 4)).toBe('RIFF');
    expect(buf.readUInt32LE(4)).toBe(buf.length - 8);
    expect(buf.toString('ascii', 8, 12)).toBe('WAVE');
    expect(buf.toString('ascii', 12, 16)).toBe('fmt ');
    expect(buf.readUInt16LE(20)).toBe(1); // PCM
    const rate = buf.readUInt32LE(24);
    const byteRate = buf.readUInt32LE(28);
    const dataAt = buf.indexOf('data', 36, 'ascii');
    const dataLen = buf.readUInt32LE(dataAt + 4);
    expect(dataLen / byteRate).toBeCloseTo(meta.recordings[0]!.duration, 0);
    expect(rate).toBeGreaterThan(0);
    expect(r.stderr).toContain(`Saved the recording of call ${call.id} to ${file} (WAV,`);
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('a large download shows its progress on a terminal stderr (content-length known)', async () => {
    // WAV is 16,000 bytes a second: a call over 70 s is more than 1 MiB
    const long = (await httpAll({ status: 'completed', minDuration: 70 })).calls[0]!;
    const file = join(dir, 'long.wav');
    const r = await vap(['calls', 'audio', long.id, '-O', file], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Downloading .*long\.wav [\d.]+ MiB of [\d.]+ MiB \(100%\)/);
    expect(readFileSync(file).length).toBeGreaterThan(1024 * 1024);
    const quiet = await vap(['calls', 'audio', long.id, '-O', file]);
    expect(quiet.stderr).not.toContain('Downloading');
  });

  it('audio -O x.mp3 (and --format mp3) writes MPEG audio frames', async () => {
    const file = join(dir, 'call.mp3');
    const r = await vap(['calls', 'audio', call.id, '-O', file, '--format', 'mp3', '--recording', meta.recordings[0]!.sid]);
    expect(r.code, r.stderr).toBe(0);
    const buf = readFileSync(file);
    let at = 0;
    if (buf.toString('ascii', 0, 3) === 'ID3') at = 10 + (((buf[6]! & 0x7f) << 21) | ((buf[7]! & 0x7f) << 14) | ((buf[8]! & 0x7f) << 7) | (buf[9]! & 0x7f));
    expect(buf[at]).toBe(0xff);
    expect(buf[at + 1]! & 0xe0).toBe(0xe0); // frame sync
    expect((buf[at + 1]! >> 3) & 0x3).toBe(3); // MPEG-1
    expect((buf[at + 1]! >> 1) & 0x3).toBe(1); // Layer III
  });

  it('audio to stdout (-O - or no -O when piped) gives the bytes the API serves', async () => {
    const res = await fetch(`${emu.url}/api/v1/calls/${call.id}/recording/audio?format=wav`, { headers: { 'x-api-key': ORG_A.apiKey } });
    const want = Buffer.from(await res.arrayBuffer());
    const r = await vap(['calls', 'audio', call.id, '--format', 'wav', '-O', '-']);
    expect(r.code, r.stderr).toBe(0);
    expect(Buffer.from(r.stdout, 'latin1').length).toBeGreaterThan(0);
    expect(r.stdout.length).toBeGreaterThan(0);
    // runCli collects text; compare lengths and the header (binary-safe checks are in e2e)
    expect(r.stdout.slice(0, 4)).toBe('RIFF');
    expect(want.subarray(0, 4).toString('ascii')).toBe('RIFF');
  });

  it('refuses to write audio to a terminal (exit 2), and sends nothing', async () => {
    await emu.clearRequests();
    const r = await vap(['calls', 'audio', call.id], { tty: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to write audio to a terminal; pass -O call.mp3/);
    expect(r.stdout).toBe('');
    const clash = await vap(['calls', 'audio', call.id, '--format', 'mp3', '-O', join(dir, 'x.wav')]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/x\.wav names a WAV file but --format is mp3; drop --format .*x\.mp3/);
    expect(existsSync(join(dir, 'x.wav'))).toBe(false);
    const bad = await vap(['calls', 'audio', call.id, '--format', 'ogg', '-O', join(dir, 'x.ogg')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format must be mp3 or wav/);
    const nodir = await vap(['calls', 'audio', call.id, '-O', join(dir, 'missing', 'x.mp3')]);
    expect(nodir.code).toBe(2);
    expect(nodir.stderr).toMatch(/does not exist/);
    expect((await emu.requests()).filter((q) => q.path.includes('/recording/audio'))).toEqual([]);
  });

  it('a call without a recording, or an unknown recording sid: exit 1 and no file', async () => {
    const failed = (await httpAll({ status: 'failed' })).calls[0]!;
    const file = join(dir, 'none.mp3');
    const r = await vap(['calls', 'audio', failed.id, '-O', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no recording/);
    expect(existsSync(file)).toBe(false);
    const sid = await vap(['calls', 'audio', call.id, '--recording', 'RE0000', '-O', file]);
    expect(sid.code).toBe(1);
    expect(sid.stderr).toContain(`error: call ${call.id} has no recording RE0000; list its recordings with \`vap calls recording ${call.id}\``);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('a download cut short leaves nothing behind', async () => {
    const file = join(dir, 'cut.wav');
    // the answer is held back a while; Ctrl-C arrives while the download waits for it
    await emu.fault({ method: 'GET', path: `/api/v1/calls/${call.id}/recording/audio`, delayMs: 2000, count: 1 });
    const ac = new AbortController();
    const p = vap(['calls', 'audio', call.id, '-O', file], { signal: ac.signal });
    setTimeout(() => ac.abort(), 200);
    const r = await p;
    expect(r.code).toBe(130);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });
});
