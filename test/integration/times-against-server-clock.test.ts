import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { ServerDate } from '../../src/api/types.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// Relative times on a terminal are read against the server's clock (its Date header), not
// this machine's. Under --time-scale 20 the emulator's simulated clock runs ahead of the
// wall clock (here moved 30 simulated minutes ahead at once, as a demo left running for a
// while would be): its records, and its Date header, carry simulated time. A record just
// made reads "just now", not "in 29 minutes"; a call scheduled hours ahead by the server's
// own clock still reads "in …".

let emu: TestEmulator;
const AHEAD_MS = 30 * 60_000;

const vap = (argv: string[], opts: RunOptions = {}) => runCli(argv, { ...opts, env: { ...cliEnv(emu.url, ORG_A.apiKey), ...opts.env } });
const serverNow = async () => Date.parse((await emu.control<{ now: string }>('GET', '/health')).now);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  emu = await startTestEmulator({ timeScale: 20 });
  await emu.control('POST', '/clock/advance', { ms: AHEAD_MS });
});
afterAll(async () => {
  await emu?.close();
});

describe('the emulator reports simulated time, its Date header included', () => {
  it('answers with the Date of its simulated clock (API, errors, control path, event streams)', async () => {
    for (const [path, headers] of [
      ['/api/v1/agents', { authorization: `Bearer ${ORG_A.apiKey}` }],
      ['/api/v1/agents', {}],
      ['/api/v1/no-such-route', { authorization: `Bearer ${ORG_A.apiKey}` }],
      ['/_emulator/health', {}],
    ] as const) {
      const res = await fetch(`${emu.url}${path}`, { headers });
      await res.text();
      const date = Date.parse(res.headers.get('date')!);
      const sim = await serverNow();
      // Within a few simulated seconds of the simulated clock (20 × the real time between the two reads), far from the wall clock.
      expect(Math.abs(sim - date), `${path} ${res.status}`).toBeLessThan(10_000);
      expect(date - Date.now()).toBeGreaterThan(AHEAD_MS - 60_000);
    }
    const ac = new AbortController();
    const stream = await fetch(`${emu.url}/api/v1/events`, { headers: { authorization: `Bearer ${ORG_A.apiKey}` }, signal: ac.signal });
    expect(Date.parse(stream.headers.get('date')!) - Date.now()).toBeGreaterThan(AHEAD_MS - 60_000);
    ac.abort();
  });

  it('stamps the request log with simulated time', async () => {
    await emu.clearRequests();
    await emu.api('GET', '/api/v1/voices');
    const [entry] = (await emu.control<{ requests: Array<{ at: string }> }>('GET', '/requests')).requests;
    expect(Date.parse(entry!.at) - Date.now()).toBeGreaterThan(AHEAD_MS - 60_000);
  });
});

describe('the client learns the server clock from each response', () => {
  it('exposes the Date of a JSON answer and of a stream, and tells onServerDate', async () => {
    const seen: ServerDate[] = [];
    const api = new ApiClient({ baseUrl: emu.url, apiKey: ORG_A.apiKey, userAgent: 'vap/test', onServerDate: (d) => seen.push(d) });
    try {
      const res = await api.request({ method: 'GET', path: '/api/v1/voices', auth: 'bearer' });
      expect(res.serverDate).toBeDefined();
      expect(res.serverDate!.serverMs % 1000).toBe(0);
      expect(res.serverDate!.serverMs - res.serverDate!.receivedAtMs).toBeGreaterThan(AHEAD_MS - 60_000);
      const ac = new AbortController();
      const stream = await api.stream({ method: 'GET', path: '/api/v1/events', auth: 'bearer', accept: 'text/event-stream', signal: ac.signal });
      expect(stream.serverDate!.serverMs - stream.serverDate!.receivedAtMs).toBeGreaterThan(AHEAD_MS - 60_000);
      ac.abort();
      (stream.body as unknown as { destroy(): void }).destroy();
      expect(seen).toHaveLength(2);
    } finally {
      await api.close();
    }
  });
});

describe('relative times on a terminal, against the server clock', () => {
  it('a version made just now reads "just now" or seconds ago, never "in N minutes"', async () => {
    const id = (await vap(['agents', 'create', '--name', 'Clocked', '--engine', 'realtime', '--instructions', 'v1', '-q'])).stdout.trim();
    await vap(['agents', 'update', id, '--instructions', 'v2']);
    // The records carry the simulated clock, half an hour ahead of this machine's.
    const json = JSON.parse((await vap(['agents', 'versions', id, '--json'])).stdout) as Array<{ changedAt: string }>;
    expect(Date.parse(json[0]!.changedAt) - Date.now()).toBeGreaterThan(AHEAD_MS - 60_000);
    await sleep(300); // 6 simulated seconds
    const table = await vap(['agents', 'versions', id], { tty: true });
    expect(table.code).toBe(0);
    const rows = table.stdout.trimEnd().split('\n').slice(1);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatch(/ (just now|\d+ seconds? ago|1 minute ago)( |$)/);
    expect(table.stdout).not.toMatch(/\bin \d+/);
    const detail = await vap(['agents', 'get', id], { tty: true });
    expect(detail.stdout).toMatch(/created\s+(just now|\d+ seconds? ago|1 minute ago)/i);
  });

  it('a call scheduled ahead by the server clock reads "in …"; one queued now reads as past', async () => {
    const agent = (await emu.api('POST', '/api/v1/agents', { name: 'Dialer', engine: 'realtime', instructions: 'Call.' })).body.data.id as string;
    const list = (
      await emu.api('POST', '/api/v1/contact-lists', {
        name: 'People',
        schema: {
          fields: [
            { name: 'name', type: 'string', required: true },
            { name: 'phone', type: 'phone', required: true },
          ],
        },
      })
    ).body.data.id as string;
    const job = await emu.api('POST', `/api/v1/contact-lists/${list}/contacts`, {
      contacts: [
        { name: 'A', phone: '+14155550101' },
        { name: 'B', phone: '+14155550102' },
      ],
    });
    for (let i = 0; (await emu.api('GET', `/api/v1/import-jobs/${job.body.jobId}`)).body.status !== 'completed'; i++) {
      if (i > 400) throw new Error('the import did not finish');
      await sleep(25);
    }
    const contacts = (await emu.api('GET', `/api/v1/contact-lists/${list}/contacts?limit=10`)).body.data.map((c: { id: string }) => c.id) as string[];
    const campaign = (await vap(['campaigns', 'create', '--name', 'Later', '--agent', agent, '--contact-list', list, '-q'])).stdout.trim();
    expect((await vap(['campaigns', 'contacts', 'add', campaign, '--contacts', contacts.join(',')])).code).toBe(0);
    // A draft campaign keeps its queued calls: neither dials.
    const at = new Date(Math.ceil((await serverNow()) / 1000) * 1000 + 3 * 3_600_000).toISOString();
    expect((await vap(['campaigns', 'calls', 'queue', campaign, '--contacts', contacts[0]!, '--at', at])).code).toBe(0);
    expect((await vap(['campaigns', 'calls', 'queue', campaign, '--contacts', contacts[1]!])).code).toBe(0);
    const table = await vap(['campaigns', 'calls', 'list', campaign], { tty: true });
    expect(table.code).toBe(0);
    const rows = table.stdout.trimEnd().split('\n').slice(1);
    // Three hours ahead, read against the Date header's second: "in 2 hours" or, within that second, "in 3 hours".
    const scheduled = rows.find((r) => /in [23] hours/.test(r));
    expect(scheduled, table.stdout).toBeDefined();
    // Its created time, and the other call's, are in the past by the server's clock.
    for (const row of rows) expect(row).toMatch(/(just now|\d+ seconds? ago|1 minute ago)\s*$/);
    expect(rows.filter((r) => /\bin \d+/.test(r))).toEqual([scheduled]);
  });
});
