import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// `vap campaigns …` against a real emulator: every verb, the local checks that send
// nothing, and the delete that never removes an active campaign without pausing it.
// State is built through the public API (agent, contact list, contacts).

let emu: TestEmulator;
let dir: string;
let agentId: string;
let listId: string;
let contactIds: string[];
let phoneNumberId: string;

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

const vap = (argv: string[], opts: RunOptions = {}) => runCli(argv, { ...opts, env: { ...cliEnv(emu.url, ORG_A.apiKey), ...opts.env } });
const sent = async () => (await emu.requests()).map((r) => `${r.method} ${r.path}`);

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-campaigns-cli-'));
  const a = await emu.api('POST', '/api/v1/agents', {
    name: 'Ava',
    engine: 'realtime',
    instructions: 'You are Ava from Bright Dental. You remind patients of appointments.',
  });
  agentId = a.body.data.id;
  const l = await emu.api('POST', '/api/v1/contact-lists', {
    name: 'Patients',
    schema: {
      fields: [
        { name: 'name', type: 'string', required: true },
        { name: 'phone', type: 'phone', required: true },
      ],
    },
  });
  listId = l.body.data.id;
  const contacts = Array.from({ length: 6 }, (_, i) => ({ name: `Patient ${i}`, phone: `+1415555${String(100 + i).padStart(4, '0')}` }));
  const job = await emu.api('POST', `/api/v1/contact-lists/${listId}/contacts`, { contacts });
  await until('the import', async () => (await emu.api('GET', `/api/v1/import-jobs/${job.body.jobId}`)).body.status === 'completed');
  contactIds = (await emu.api('GET', `/api/v1/contact-lists/${listId}/contacts?limit=100`)).body.data.map((c: { id: string }) => c.id);
  const pns = await emu.control<{ orgs: Array<{ org: string; phoneNumbers: Array<{ id: string }> }> }>('GET', '/phone-numbers?org=acme');
  phoneNumberId = pns.orgs.find((o) => o.org === 'acme')!.phoneNumbers[0]!.id;
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await emu.clearRequests();
});

async function create(extra: string[]): Promise<string> {
  const r = await vap(['campaigns', 'create', '--agent', agentId, '-q', ...extra]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

describe('vap campaigns create', () => {
  it('creates outbound, inbound and API campaigns as drafts', async () => {
    const out = await vap(['campaigns', 'create', '--name', 'Renewals', '--agent', agentId, '--contact-list', listId, '--description', 'Nov', '--json']);
    expect(out.code).toBe(0);
    const c = JSON.parse(out.stdout);
    expect(c).toMatchObject({ name: 'Renewals', description: 'Nov', status: 'draft', direction: 'outbound', type: 'standard', contactListId: listId, agentId });
    expect(out.stderr).toContain(`Created outbound campaign Renewals (${c.id}) as a draft`);

    expect(phoneNumberId).toMatch(/^pn_/);
    const inbound = JSON.parse(
      (
        await vap(['campaigns', 'create', '--name', 'Front desk', '--direction', 'inbound', '--phone-number-id', phoneNumberId, '--json'], {
          env: { VAP_AGENT: agentId },
        })
      ).stdout,
    );
    expect(inbound).toMatchObject({ direction: 'inbound', provisionedPhoneNumberId: phoneNumberId, contactListId: null, agentId });

    const api = JSON.parse((await vap(['campaigns', 'create', '--name', 'Web', '--agent', agentId, '--type', 'api', '--json'])).stdout);
    expect(api).toMatchObject({ type: 'api', direction: 'outbound', contactListId: null });

    const tsv = await vap(['campaigns', 'create', '--name', 'Piped', '--agent', agentId, '--contact-list', listId]);
    expect(tsv.stdout).toMatch(/^id\t[0-9a-f-]{36}\nname\tPiped\n/);
  });

  it('refuses wrong combinations with exit 2 and sends nothing', async () => {
    const cases: Array<{ argv: string[]; err: RegExp; env?: Record<string, string> }> = [
      { argv: ['--agent', agentId, '--contact-list', listId], err: /missing --name/ },
      { argv: ['--name', ' ', '--agent', agentId, '--contact-list', listId], err: /--name must not be empty/ },
      { argv: ['--name', 'x'.repeat(201), '--agent', agentId, '--contact-list', listId], err: /at most 200/ },
      { argv: ['--name', 'x', '--agent', agentId, '--contact-list', listId, '--description', 'd'.repeat(2001)], err: /at most 2000/ },
      { argv: ['--name', 'x', '--contact-list', listId], err: /missing --agent.*VAP_AGENT/ },
      { argv: ['--name', 'x', '--agent', agentId], err: /outbound campaign needs --contact-list/ },
      { argv: ['--name', 'x', '--agent', agentId, '--direction', 'inbound'], err: /inbound campaign needs --phone-number-id/ },
      { argv: ['--name', 'x', '--agent', agentId, '--type', 'api', '--contact-list', listId], err: /API campaign has no contact list/ },
      { argv: ['--name', 'x', '--agent', agentId, '--type', 'api', '--direction', 'inbound'], err: /API campaign is outbound/ },
      { argv: ['--name', 'x', '--agent', agentId, '--contact-list', listId, '--phone-number-id', 'pn_1'], err: /--phone-number-id is for inbound/ },
      { argv: ['--name', 'x', '--agent', agentId, '--direction', 'sideways', '--contact-list', listId], err: /--direction/ },
    ];
    for (const c of cases) {
      const r = await vap(['campaigns', 'create', ...c.argv], { env: c.env });
      expect(r.code, c.argv.join(' ')).toBe(2);
      expect(r.stderr, c.argv.join(' ')).toMatch(c.err);
      expect(r.stdout).toBe('');
    }
    expect(await sent()).toEqual([]);
  });

  it('passes the server’s refusal through (unknown list)', async () => {
    const r = await vap(['campaigns', 'create', '--name', 'x', '--agent', agentId, '--contact-list', 'cl_nope']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/contact/i);
  });
});

describe('list, get, update', () => {
  it('lists with filters and paging, gets and updates', async () => {
    const a = await create(['--name', 'Alpha list test', '--contact-list', listId]);
    const b = await create(['--name', 'Beta list test', '--contact-list', listId]);
    const ids = (await vap(['campaigns', 'list', '--search', 'LIST TEST', '-q'])).stdout.trim().split('\n');
    expect(ids).toEqual([b, a]);
    const one = await vap(['campaigns', 'list', '--search', 'list test', '--limit', '1', '-q']);
    expect(one.stdout.trim()).toBe(b);
    const page2 = await vap(['campaigns', 'list', '--search', 'list test', '--limit', '1', '--page', '2', '-q']);
    expect(page2.stdout.trim()).toBe(a);
    const all = (await vap(['campaigns', 'list', '--all', '-o', 'ndjson'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(all.length).toBeGreaterThanOrEqual(2);
    const inbound = (await vap(['campaigns', 'list', '--direction', 'inbound', '--json'])).stdout;
    expect(JSON.parse(inbound).every((c: { direction: string }) => c.direction === 'inbound')).toBe(true);
    const table = await vap(['campaigns', 'list', '--search', 'list test'], { tty: true });
    expect(table.stdout).toMatch(/^ID\s+NAME\s+STATUS\s+DIRECTION/);
    expect(table.stdout).toContain('Beta list test');
    const bad = await vap(['campaigns', 'list', '--status', 'sleeping']);
    expect(bad.code).toBe(2);

    const got = await vap(['campaigns', 'get', a], { tty: true });
    expect(got.stdout).toMatch(/name\s+Alpha list test/);
    expect(got.stdout).toMatch(/contact list\s+Patients/);

    const up = await vap(['campaigns', 'update', a, '--name', 'Alpha renamed', '--description', 'new', '--json']);
    expect(up.code).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({ id: a, name: 'Alpha renamed', description: 'new' });
    await emu.clearRequests();
    const none = await vap(['campaigns', 'update', a]);
    expect([none.code, none.stderr]).toEqual([2, expect.stringMatching(/nothing to update/)]);
    expect(await sent()).toEqual([]);
    const missing = await vap(['campaigns', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(1);
  });
});

describe('contacts, queue, start, pause, runs, delete', () => {
  it('adds, lists and removes contacts; queues calls; starts, pauses; lists calls and runs', async () => {
    const id = await create(['--name', 'Lifecycle', '--contact-list', listId]);
    const file = join(dir, 'ids.txt');
    writeFileSync(file, `# two from a file\n${contactIds[2]}\n${contactIds[3]}\n`);
    const add = await vap(['campaigns', 'contacts', 'add', id, '--contacts', `${contactIds[0]},${contactIds[1]}`, '--file', file, '--json']);
    expect(add.code).toBe(0);
    expect(JSON.parse(add.stdout)).toEqual({ added: 4, skipped: 0 });
    const again = await vap(['campaigns', 'contacts', 'add', id, '--contacts', contactIds[0]!]);
    expect(again.stderr).toContain('Added 0 contacts');
    expect(again.stderr).toContain('1 already there, skipped');
    const stdinAdd = await vap(['campaigns', 'contacts', 'add', id, '--file', '-', '--json'], { stdin: `${contactIds[4]}\n` });
    expect(JSON.parse(stdinAdd.stdout)).toEqual({ added: 1, skipped: 0 });
    const listed = JSON.parse((await vap(['campaigns', 'contacts', 'list', id, '--json'])).stdout);
    expect(listed.map((c: { contactId: string }) => c.contactId).sort()).toEqual(contactIds.slice(0, 5).sort());
    expect(listed.every((c: { status: string }) => c.status === 'pending')).toBe(true);
    const rm = await vap(['campaigns', 'contacts', 'remove', id, contactIds[4]!]);
    expect(rm.code).toBe(0);
    expect(rm.stderr).toContain(`Removed contact ${contactIds[4]}`);
    expect((await vap(['campaigns', 'contacts', 'list', id, '-q'])).stdout.trim().split('\n')).toHaveLength(4);
    const notInList = await vap(['campaigns', 'contacts', 'add', id, '--contacts', 'ct_nope']);
    expect(notInList.code).toBe(1);

    // Queue: local validation sends nothing.
    await emu.clearRequests();
    const bad: Array<[string[], RegExp]> = [
      [[], /no contacts to queue/],
      [['--all-pending', '--contacts', contactIds[0]!], /one way/],
      [['--all-pending', '--priority', '11'], /--priority must be a whole number from 1 to 10/],
      [['--all-pending', '--priority', '0'], /--priority/],
      [['--all-pending', '--at', 'tomorrow'], /--at must be an ISO time/],
      [['--all-pending', '--at', '2020-01-01T00:00:00Z'], /--at .* is in the past/],
    ];
    for (const [argv, err] of bad) {
      const r = await vap(['campaigns', 'calls', 'queue', id, ...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(err);
    }
    expect(await sent()).toEqual([]);

    const q1 = await vap(['campaigns', 'calls', 'queue', id, '--contacts', contactIds[0]!, '--priority', '9', '--json']);
    expect(q1.code).toBe(0);
    const calls1 = JSON.parse(q1.stdout);
    expect(calls1).toHaveLength(1);
    expect(calls1[0]).toMatchObject({ status: 'queued', priority: 9, contactId: contactIds[0] });
    const q2 = await vap(['campaigns', 'calls', 'queue', id, '--all-pending']);
    expect(q2.code).toBe(0);
    expect(q2.stderr).toContain('Queued 3 calls');
    const queued = await vap(['campaigns', 'calls', 'list', id, '--status', 'queued', '-q']);
    expect(queued.stdout.trim().split('\n')).toHaveLength(4);
    const tableCalls = await vap(['campaigns', 'calls', 'list', id], { tty: true });
    expect(tableCalls.stdout).toMatch(/^ID\s+STATUS\s+PHONE/);
    expect(tableCalls.stderr).toContain('4 calls: 0 completed, 0 failed, 0 active, 4 queued');
    // Piped: stdout is TSV data only; the counts go to stderr, as `vap calls list` says them.
    const piped = await vap(['campaigns', 'calls', 'list', id]);
    expect(piped.stdout.trim().split('\n')).toHaveLength(4);
    expect(piped.stdout).not.toContain('calls:');
    expect(piped.stderr).toBe('4 calls: 0 completed, 0 failed, 0 active, 4 queued\n');
    const two = await vap(['campaigns', 'calls', 'list', id, '--limit', '2', '-o', 'ndjson']);
    expect(two.stdout.trim().split('\n')).toHaveLength(2);
    expect(two.stderr).toBe('4 calls: 0 completed, 0 failed, 0 active, 4 queued (showing 2; --all for every one)\n');
    expect((await vap(['campaigns', 'calls', 'list', id, '-q'])).stderr).toBe('');
    await emu.clearRequests();
    for (const argv of [
      ['--from', '2026-13-01'],
      ['--status', 'ringing'],
      ['--min-duration', '5m', '--max-duration', '1m'],
      ['--from', '2026-11-08', '--to', '2026-11-01'],
    ]) {
      const r = await vap(['campaigns', 'calls', 'list', id, ...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
    }
    expect(await sent()).toEqual([]);
    const synonym = await vap(['campaigns', 'calls', 'list', id, '--status', 'in_progress', '--min-duration', '0s', '-q']);
    expect([synonym.code, synonym.stdout]).toEqual([0, '']);

    const start = await vap(['campaigns', 'start', id]);
    expect(start.code).toBe(0);
    expect(start.stderr).toContain('active');
    // Active: delete refuses in a script, naming pause and --pause; nothing deleted.
    const refused = await vap(['campaigns', 'delete', id, '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is active: it must be paused before it is deleted.*vap campaigns pause.*--pause/);
    expect((await emu.requests()).some((r) => r.method === 'DELETE')).toBe(false);

    await until('the calls to end', async () => {
      const r = JSON.parse((await vap(['campaigns', 'calls', 'list', id, '--json'])).stdout);
      return r.length === 4 && r.every((c: { status: string }) => c.status === 'completed' || c.status === 'failed');
    });
    const paused = await vap(['campaigns', 'pause', id, '--json']);
    // An outbound campaign with nothing left completes by itself; pause then says so.
    if (paused.code === 0) expect(JSON.parse(paused.stdout).status).toBe('paused');
    else expect(paused.stderr).toMatch(/completed|invalid_transition|cannot/i);

    const runs = await vap(['campaigns', 'runs', id, '--json']);
    const runList = JSON.parse(runs.stdout);
    expect(runList).toHaveLength(1);
    expect(runList[0].totalCalls).toBe(4);
    const runTable = await vap(['campaigns', 'runs', id, runList[0].id], { tty: true });
    expect(runTable.code).toBe(0);
    expect(runTable.stdout).toContain(`run ${runList[0].id}`);
    expect(runTable.stdout).toMatch(/Calls\n\s+Total\s+4\n/);
    const runJson = JSON.parse((await vap(['campaigns', 'runs', id, runList[0].id, '--json'])).stdout);
    expect(runJson.run.id).toBe(runList[0].id);
    expect(runJson.metrics.callStats.totalCalls).toBe(4);
  });

  it('trigger: an API campaign takes a call; E.164 is checked locally', async () => {
    const id = await create(['--name', 'Triggered', '--type', 'api']);
    await emu.clearRequests();
    const bad = await vap(['campaigns', 'trigger', id, '--phone', '4155550123']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--phone must be an E\.164 number/);
    const missing = await vap(['campaigns', 'trigger', id]);
    expect(missing.code).toBe(2);
    expect(await sent()).toEqual([]);
    // Refusals name the command to run, not the API's path.
    const draft = await vap(['campaigns', 'trigger', id, '--phone', '+14155550199']);
    expect(draft.code).toBe(1);
    expect(draft.stderr).toContain(`start it with \`vap campaigns start ${id}\``);
    const queue = await vap(['campaigns', 'calls', 'queue', id, '--all-pending']);
    expect(queue.code).toBe(1);
    expect(queue.stderr).toContain(`vap campaigns trigger ${id} --phone`);
    const add = await vap(['campaigns', 'contacts', 'add', id, '--contacts', contactIds[0]!]);
    expect(add.code).toBe(1);
    expect(add.stderr).toContain(`vap campaigns trigger ${id} --phone`);
    for (const r of [draft, queue, add]) expect(r.stderr).not.toContain('/api/v1/');
    expect((await vap(['campaigns', 'start', id])).code).toBe(0);
    // The open run: "(running)" in a table, an empty field in TSV (no made-up value for scripts).
    const openTsv = (await vap(['campaigns', 'runs', id])).stdout;
    expect(openTsv).toMatch(/^[0-9a-f-]{36}\t\S+\t\t0\t0\n$/);
    expect((await vap(['campaigns', 'runs', id], { tty: true })).stdout).toContain('(running)');
    const r = await vap(['campaigns', 'trigger', id, '--phone', '+14155550199', '--name', 'Ada', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ phoneNumber: '+14155550199', calleeName: 'Ada', priority: 10, campaignId: id });
    expect(r.stderr).toContain('vap calls tail');
    const notApi = await create(['--name', 'Not API', '--contact-list', listId]);
    const refused = await vap(['campaigns', 'trigger', notApi, '--phone', '+14155550199']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`vap campaigns calls queue ${notApi}`);
    expect(refused.stderr).not.toContain('/api/v1/');
  });

  it('delete: asks on a terminal, needs --yes in scripts, offers to pause an active one', async () => {
    const draft = await create(['--name', 'To delete', '--contact-list', listId]);
    const script = await vap(['campaigns', 'delete', draft]);
    expect(script.code).toBe(2);
    expect(script.stderr).toContain('--yes');
    const yes = await vap(['campaigns', 'delete', draft, '--yes']);
    expect(yes.code).toBe(0);
    expect(yes.stderr).toContain('Deleted campaign To delete');
    expect((await vap(['campaigns', 'get', draft])).code).toBe(1);

    // On a terminal: an active campaign is explained, and pausing it is offered first.
    const api = await create(['--name', 'Active one', '--type', 'api']);
    await vap(['campaigns', 'start', api]);
    const no = await vap(['campaigns', 'delete', api], { tty: true, stdin: 'n\n' });
    // Wrapped at word boundaries on a terminal.
    expect(no.stderr.replace(/\s+/g, ' ')).toContain('is active: it must be paused before it is deleted');
    expect(no.stderr).toContain('Pause it now and delete it?');
    // Declining is a choice, not a failure.
    expect(no.code).toBe(0);
    expect(no.stderr.replace(/\s+/g, ' ')).toContain(`nothing deleted: campaign Active one (${api}) was kept (still active)`);
    expect(JSON.parse((await vap(['campaigns', 'get', api, '--json'])).stdout).status).toBe('active');

    await emu.clearRequests();
    const both = await vap(['campaigns', 'delete', api, '--pause', '--yes']);
    expect(both.code).toBe(0);
    expect(both.stderr).toContain('Paused campaign Active one');
    expect(both.stderr).toContain('Deleted campaign Active one');
    const order = (await sent()).filter((s) => !s.startsWith('GET'));
    expect(order).toEqual([`POST /api/v1/campaigns/${api}/pause`, `DELETE /api/v1/campaigns/${api}`]);
  });
});
