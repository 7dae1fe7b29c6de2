import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';
import { recentIdsPath } from '../../src/ids/recent.js';

// An id as a table shows it is an id: a call's or a campaign's first eight digits (what a
// table on a terminal prints), or a campaign's name, wherever that kind of id is asked for.
// Calls made through the public API (an outbound campaign run to its end) are the newest;
// seeded history puts more than 100 calls behind them, where the API's listing of the newest
// calls does not reach and vap's record of the ids it listed is what finds them.

type Call = { id: string; status: string; calleeName: string };

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

let emu: TestEmulator;
let campaignId: string;
let calls: Call[];
let older: Call;
let state: string;

const vap = (argv: string[], opts: RunOptions & { key?: string } = {}) =>
  runCli(argv, { ...opts, env: { ...cliEnv(emu.url, opts.key ?? ORG_A.apiKey), VAP_STATE_DIR: state, COLUMNS: '80', ...opts.env } });
const short = (id: string) => id.slice(0, 8);
const sent = async () => (await emu.requests()).map((r) => `${r.method} ${r.path.replace(/\?.*/, '')}`);

beforeAll(async () => {
  emu = await startTestEmulator();
  const a = await emu.api('POST', '/api/v1/agents', {
    name: 'Ava',
    engine: 'pipeline',
    instructions: 'You call patients to remind them of their appointments.',
  });
  const l = await emu.api('POST', '/api/v1/contact-lists', {
    name: 'Patients',
    schema: {
      fields: [
        { name: 'name', type: 'string', required: true },
        { name: 'phone', type: 'phone', required: true },
      ],
    },
  });
  const job = await emu.api('POST', `/api/v1/contact-lists/${l.body.data.id}/contacts`, {
    contacts: Array.from({ length: 4 }, (_, i) => ({ name: `Patient ${i}`, phone: `+1415555010${i}` })),
  });
  await until('the import', async () => (await emu.api('GET', `/api/v1/import-jobs/${job.body.jobId}`)).body.status === 'completed');
  const contactIds = (await emu.api('GET', `/api/v1/contact-lists/${l.body.data.id}/contacts`)).body.data.map((c: { id: string }) => c.id);
  const c = await emu.api('POST', '/api/v1/campaigns', {
    name: 'November renewals',
    direction: 'outbound',
    contactListId: l.body.data.id,
    agentId: a.body.data.id,
  });
  campaignId = c.body.data.id;
  await emu.api('POST', `/api/v1/campaigns/${campaignId}/contacts`, { contactIds });
  await emu.api('POST', `/api/v1/campaigns/${campaignId}/calls`, { queueAllPending: true });
  await emu.api('POST', `/api/v1/campaigns/${campaignId}/start`);
  calls = await until('every call ended and analysed', async () => {
    const r = await emu.api('GET', `/api/v1/campaigns/${campaignId}/calls?pageSize=100`);
    if (r.body.data.summary.queued !== 0 || r.body.data.summary.active !== 0) return false;
    for (const x of r.body.data.calls)
      if (x.status === 'completed' && (await emu.api('GET', `/api/v1/calls/${x.id}`)).body.data.analysis === null) return false;
    return r.body.data.calls as Call[];
  });
  await emu.control('POST', '/calls/seed', { org: ORG_A.name, count: 150 });
  const page2 = (await emu.api('GET', '/api/v1/calls?page=2&pageSize=100')).body.data.calls as Call[];
  // A call the newest 100 do not hold, whose first eight digits no other call shares.
  const all = [...(await emu.api('GET', '/api/v1/calls?page=1&pageSize=100')).body.data.calls, ...page2] as Call[];
  older = page2.find((x) => all.filter((y) => y.id.startsWith(short(x.id))).length === 1)!;
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  state = mkdtempSync(join(tmpdir(), 'vap-ids-state-'));
  await emu.clearRequests();
});

describe('a call by the id `vap calls list` shows', () => {
  it('the eight digits of the table are taken by get, transcript, recording, audio and tail', async () => {
    const list = await vap(['calls', 'list'], { tty: true });
    expect(list.code, list.stderr).toBe(0);
    const call = calls.find((x) => x.status === 'completed')!;
    const row = list.stdout.split('\n').find((l) => l.startsWith(short(call.id)))!;
    expect(row, list.stdout).toBeDefined();
    expect(row).not.toContain(call.id);

    const get = await vap(['calls', 'get', short(call.id), '--json']);
    expect(get.code, get.stderr).toBe(0);
    expect(JSON.parse(get.stdout).id).toBe(call.id);
    const transcript = await vap(['calls', 'transcript', short(call.id), '--json']);
    expect(JSON.parse(transcript.stdout).callId).toBe(call.id);
    const recording = await vap(['calls', 'recording', short(call.id), '--json']);
    expect(JSON.parse(recording.stdout).callId).toBe(call.id);
    const audio = await vap(['calls', 'audio', short(call.id), '-O', join(state, 'call.mp3')]);
    expect(audio.code, audio.stderr).toBe(0);
    expect(readFileSync(join(state, 'call.mp3')).length).toBeGreaterThan(0);
    const tail = await vap(['calls', 'tail', short(call.id), '--json']);
    expect(tail.code, tail.stderr).toBe(0);
    const events = tail.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.at(-1).type).toBe('call.analysis.completed');
    expect(events.every((e) => e.callId === call.id)).toBe(true);
    // The id went into each path whole; the prefix was looked for in one listing of the newest calls.
    const paths = await sent();
    expect(paths.filter((p) => p.includes(short(call.id)))).toEqual(paths.filter((p) => p.includes(call.id)));
    expect(paths).toContain(`GET /api/v1/calls/${call.id}/events`);
  });

  it('the start of an id with its dashes, in capitals, or as a cut cell (…) is taken too; a whole id is sent as it is, with no listing', async () => {
    const call = calls[0]!;
    for (const ref of [call.id.slice(0, 13), short(call.id).toUpperCase(), `${short(call.id)}…`]) {
      const r = await vap(['calls', 'get', ref, '-q']);
      expect(r.code, `${ref}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toBe(`${call.id}\n`);
    }
    await emu.clearRequests();
    expect((await vap(['calls', 'get', call.id, '-q'])).stdout).toBe(`${call.id}\n`);
    expect(await sent()).toEqual([`GET /api/v1/calls/${call.id}`]);
  });

  it('a start several calls share is refused with exit 2, listing them, and nothing else is sent', async () => {
    const ids = [...calls.map((c) => c.id), ...((await emu.api('GET', '/api/v1/calls?pageSize=100')).body.data.calls as Call[]).map((c) => c.id)];
    const digit = [...'0123456789abcdef'].find((d) => new Set(ids.filter((id) => id.startsWith(d))).size >= 2)!;
    await emu.clearRequests();
    const r = await vap(['calls', 'cancel', digit]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^error: ${digit} is the start of \\d+ call ids: [0-9a-f-]{36} \\([a-z]+, [^)]+\\), [0-9a-f-]{36} \\(.*; give more of the id\\n$`),
    );
    expect(await sent()).toEqual(['GET /api/v1/calls']);
  });

  it('an unknown start says so in the same words for every command (exit 1), sending nothing but the listing', async () => {
    const ids = new Set([...calls.map((c) => c.id)]);
    const unknown = ['ca97174c', 'ca97174d', 'ca97174e'].find((p) => ![...ids].some((id) => id.startsWith(p)))!;
    const said = new Set<string>();
    for (const argv of [['get'], ['transcript'], ['recording'], ['audio', '-O', join(state, 'x.mp3')], ['cancel'], ['tail']]) {
      await emu.clearRequests();
      const r = await vap(['calls', argv[0]!, unknown, ...argv.slice(1)]);
      expect(r.code, argv[0]).toBe(1);
      said.add(r.stderr);
      expect(await sent()).toEqual(['GET /api/v1/calls']);
    }
    expect([...said]).toEqual([
      `error: call ${unknown} not found: no call id starts with ${unknown}; vap looked among the newest 100 calls and the calls it listed lately; give the whole id (\`vap calls list --wide\` shows it whole)\n`,
    ]);
    expect(existsSync(join(state, 'x.mp3'))).toBe(false);
  });

  it('a call beyond the newest 100 is found in the ids vap listed, read from the API first, and vap says so', async () => {
    // Not listed yet: not found, with where vap looked.
    const before = await vap(['calls', 'get', short(older.id)]);
    expect(before.code).toBe(1);
    expect(before.stderr).toContain(`no call id starts with ${short(older.id)}`);

    const list = await vap(['calls', 'list', '--page', '2', '--page-size', '100'], { tty: true });
    expect(list.stdout).toContain(`${short(older.id)}  `);
    await emu.clearRequests();
    const r = await vap(['calls', 'get', short(older.id), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(older.id);
    expect(r.stderr).toBe(`${short(older.id)} is call ${older.id} (from the calls vap listed lately; read from the API to make sure)\n`);
    expect(await sent()).toEqual(['GET /api/v1/calls', `GET /api/v1/calls/${older.id}`, `GET /api/v1/calls/${older.id}`]);

    // Per profile: another profile has a record of its own.
    const other = await vap(['calls', 'get', short(older.id)], { env: { VAP_PROFILE: 'other', VAP_API_KEY_OTHER: ORG_A.apiKey } });
    expect(other.code).toBe(1);
    // Another organization under the same profile does not read it either.
    const foreign = await vap(['calls', 'get', short(older.id)], { key: ORG_B.apiKey });
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain(`no call id starts with ${short(older.id)}`);
  });

  it('the record is only a hint: an id in it that the API does not know is dropped, not used', async () => {
    const ghost = 'c0ffee00-0000-4000-8000-000000000000';
    await vap(['calls', 'list', '--limit', '1'], { tty: true });
    const file = recentIdsPath({ VAP_STATE_DIR: state }, 'default');
    const data = JSON.parse(readFileSync(file, 'utf8'));
    data.ids.call.unshift(ghost);
    writeFileSync(file, JSON.stringify(data));
    await emu.clearRequests();
    const r = await vap(['calls', 'cancel', 'c0ffee00']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('call c0ffee00 not found: no call id starts with c0ffee00');
    expect(await sent()).toEqual(['GET /api/v1/calls', `GET /api/v1/calls/${ghost}`]);
    expect(JSON.parse(readFileSync(file, 'utf8')).ids.call).not.toContain(ghost);
    // A damaged record is no record.
    writeFileSync(file, '{"version":1,');
    expect((await vap(['calls', 'get', short(calls[0]!.id), '-q'])).stdout).toBe(`${calls[0]!.id}\n`);
  });

  it('piped listings record nothing: the ids they print are whole', async () => {
    await vap(['calls', 'list']);
    expect(existsSync(recentIdsPath({ VAP_STATE_DIR: state }, 'default'))).toBe(false);
    rmSync(state, { recursive: true, force: true });
  });
});

describe('a campaign by the id `vap campaigns list` shows, or by its name', () => {
  it('its first eight digits or its name, wherever a campaign is asked for', async () => {
    const list = await vap(['campaigns', 'list'], { tty: true });
    // At 80 columns the name is cut: as shown, with its `…`, it is taken too.
    const cell = new RegExp(`^${short(campaignId)}  (November ren\\S*…)`, 'm').exec(list.stdout)?.[1];
    expect(cell, list.stdout).toBeDefined();
    for (const ref of [short(campaignId), 'November renewals', 'november renewals', cell!]) {
      const get = await vap(['campaigns', 'get', ref, '-q']);
      expect(get.stdout, `${ref}: ${get.stderr}`).toBe(`${campaignId}\n`);
    }
    const byCampaign = await vap(['calls', 'list', '--campaign', short(campaignId), '-q']);
    expect(byCampaign.stdout.trim().split('\n').sort()).toEqual(calls.map((c) => c.id).sort());
    const campaignCalls = await vap(['campaigns', 'calls', 'list', 'November renewals', '-q']);
    expect(campaignCalls.stdout.trim().split('\n').sort()).toEqual(calls.map((c) => c.id).sort());
    const analytics = await vap(['campaigns', 'analytics', short(campaignId), '--summary', '--json']);
    expect(analytics.code, analytics.stderr).toBe(0);
    expect(JSON.parse(analytics.stdout).totalCalls).toBe(calls.length);
  });

  it('a run by the first digits `vap campaigns runs` shows', async () => {
    const runs = (await emu.api('GET', `/api/v1/campaigns/${campaignId}/runs`)).body.data.runs as Array<{ id: string }>;
    const table = await vap(['campaigns', 'runs', short(campaignId)], { tty: true });
    expect(table.stdout).toContain(short(runs[0]!.id));
    const run = await vap(['campaigns', 'runs', short(campaignId), short(runs[0]!.id), '--json']);
    expect(run.code, run.stderr).toBe(0);
    const unknown = await vap(['campaigns', 'runs', short(campaignId), 'ffffffff']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`error: run ffffffff not found: no run id starts with ffffffff; see \`vap campaigns runs ${campaignId}\`\n`);
  });

  it('an unknown name says so, and a name two campaigns share is refused listing both', async () => {
    const none = await vap(['campaigns', 'start', 'December renewals']);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe('error: campaign December renewals not found: no campaign is named "December renewals"; see `vap campaigns list`\n');
    const agentId = (await emu.api('GET', '/api/v1/agents')).body.data.agents[0].id;
    const a = await emu.api('POST', '/api/v1/campaigns', { name: 'Twin', direction: 'outbound', type: 'api', agentId });
    const b = await emu.api('POST', '/api/v1/campaigns', { name: 'Twin', direction: 'outbound', type: 'api', agentId });
    await emu.clearRequests();
    const twin = await vap(['campaigns', 'delete', 'Twin', '--yes']);
    expect(twin.code).toBe(2);
    expect(twin.stderr).toContain('2 campaigns are named "Twin": ');
    expect(twin.stderr).toContain(a.body.data.id);
    expect(twin.stderr).toContain(b.body.data.id);
    expect((await sent()).filter((p) => !p.startsWith('GET '))).toEqual([]);
  });
});
