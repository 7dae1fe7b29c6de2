import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// `vap webhooks list|create|get|update|enable|disable|rotate-secret|deliveries|delete`
// against a real emulator that delivers to a real local receiver (issue 8), and
// `webhooks verify` on what was actually delivered.

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

let emu: TestEmulator;
let dir: string;
let receiver: Server;
let hookUrl: string;
const received: Received[] = [];
/** The status the receiver answers with, by path. */
const answer = new Map<string, number>();

beforeAll(async () => {
  emu = await startTestEmulator({ allowLoopbackUrls: true });
  dir = mkdtempSync(join(tmpdir(), 'vap-webhooks-cli-'));
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.statusCode = answer.get(req.url ?? '') ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await emu.close();
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await emu.clearRequests();
});

const vap = (argv: string[], opts: RunOptions = {}, key = ORG_A.apiKey) => runCli(argv, { ...opts, env: { ...cliEnv(emu.url, key), ...opts.env } });

async function sent(): Promise<string[]> {
  return (await emu.requests()).map((r) => `${r.method} ${r.path}`);
}

async function publish(
  type: string,
  count = 1,
  data: Record<string, unknown> = { status: 'completed', durationSeconds: 61, engine: 'realtime' },
): Promise<void> {
  await emu.control('POST', '/events', { org: ORG_A.name, type, data, count });
}

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function endpoint(
  id: string,
): Promise<{ isEnabled: boolean; consecutiveFailures: number; secretPrefix: string; events: string[]; url: string; name: string }> {
  return (await emu.api('GET', `/api/v1/webhook-endpoints/${id}`)).body.data;
}

/** Creates an endpoint posting to `${hookUrl}${path}`, its secret written to a file; returns id and secret file. */
async function create(path: string, events = 'call.ended'): Promise<{ id: string; secretFile: string }> {
  const secretFile = join(dir, `secret-${path.replace(/\W/g, '')}`);
  const r = await vap(['webhooks', 'create', '--name', path, '--url', `${hookUrl}${path}`, '--events', events, '--secret-file', secretFile, '-q']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(readFileSync(secretFile, 'utf8')).toMatch(/^whsec_\S+\n$/);
  return { id: r.stdout.trim(), secretFile };
}

describe('vap webhooks create', () => {
  it('shows the secret once, with a warning; get and list never show it', async () => {
    const r = await vap([
      'webhooks',
      'create',
      '--name',
      'CRM',
      '--url',
      `${hookUrl}/crm`,
      '--events',
      'call.ended,call.analysis.completed',
      '--events',
      'call.ended',
    ]);
    expect(r.code).toBe(0);
    const fields = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t') as [string, string]),
    );
    expect(fields.id).toMatch(/^we_/);
    expect(fields.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect(fields.events).toBe('call.ended,call.analysis.completed');
    expect(r.stderr).toContain('Save the secret now: it is not shown again');
    expect(r.stderr).toContain(`Created webhook endpoint CRM (${fields.id}) for 2 event types`);
    expect(await sent()).toEqual(['GET /api/v1/events/types', 'POST /api/v1/webhook-endpoints']);

    const get = await vap(['webhooks', 'get', fields.id!], { tty: true });
    expect(get.code).toBe(0);
    expect(get.stdout).not.toContain(fields.secret);
    // only the recognisable prefix is readable, nothing of the secret part
    expect(get.stdout).toMatch(/secret prefix\s+whsec_…/);
    expect(get.stdout).toMatch(/enabled\s+yes/);
    expect(get.stdout).toMatch(/last success\s+never/);
    const list = await vap(['webhooks', 'list', '--json']);
    expect(list.stdout).not.toContain(fields.secret);
    expect(JSON.parse(list.stdout).map((e: { id: string }) => e.id)).toContain(fields.id);
    const json = await vap(['webhooks', 'create', '--name', 'J', '--url', `${hookUrl}/j`, '--events', 'call.ended', '--json']);
    expect(JSON.parse(json.stdout).secret).toMatch(/^whsec_/);
  });

  it('with --secret-file, writes the secret there (0600) and prints it nowhere; it verifies a real delivery', async () => {
    const secretFile = join(dir, 'crm-secret');
    const r = await vap([
      'webhooks',
      'create',
      '--name',
      'Filed',
      '--url',
      `${hookUrl}/filed`,
      '--events',
      'call.ended',
      '--secret-file',
      secretFile,
      '--json',
    ]);
    expect(r.code).toBe(0);
    const secret = readFileSync(secretFile, 'utf8').trim();
    expect(secret).toMatch(/^whsec_/);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(r.stdout + r.stderr).not.toContain(secret);
    expect(JSON.parse(r.stdout)).not.toHaveProperty('secret');
    expect(r.stderr).toContain(`The secret is in ${secretFile} (mode 0600); it is not shown again`);

    await publish('call.ended');
    const hit = await until('the delivery', () => received.find((x) => x.path === '/filed'));
    const header = String(hit.headers['x-service-signature']);
    const ok = await vap(['webhooks', 'verify', '--secret-file', secretFile, '--header', header], { stdin: hit.body.toString('utf8') });
    expect(ok.stderr).toContain('Valid signature');
    expect(ok.code).toBe(0);
    const tampered = await vap(['webhooks', 'verify', '--secret-file', secretFile, '--header', header], { stdin: `${hit.body.toString('utf8')} ` });
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain('signature mismatch');
  });

  it('refuses -q without --secret-file (the secret would be lost), and an unwritable --secret-file, before sending', async () => {
    const q = await vap(['webhooks', 'create', '--name', 'Q', '--url', `${hookUrl}/q`, '--events', 'call.ended', '-q']);
    expect(q.code).toBe(2);
    expect(q.stderr).toMatch(/-q prints only the id.*--secret-file/);
    const bad = await vap([
      'webhooks',
      'create',
      '--name',
      'Q',
      '--url',
      `${hookUrl}/q`,
      '--events',
      'call.ended',
      '--secret-file',
      join(dir, 'no', 'such', 'dir', 's'),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/cannot write --secret-file .*: no such directory/);
    expect(await sent()).toEqual([]);
  });

  it('checks event types against the live catalog: unknown and stream-only types are refused, nothing created', async () => {
    const base = ['webhooks', 'create', '--name', 'T', '--url', `${hookUrl}/t`];
    const streamOnly = await vap([...base, '--events', 'call.ended,call.transcript.updated']);
    expect(streamOnly.code).toBe(2);
    expect(streamOnly.stderr).toMatch(
      /"call.transcript.updated" is delivered on the call stream only, never to a webhook; follow it live with `vap calls tail <callId>/,
    );
    expect(streamOnly.stderr).toContain('eval.run.completed');
    expect(streamOnly.stderr).not.toMatch(/subscribe to: .*call\.voice\.updated/);
    const unknown = await vap([...base, '--events', 'call.exploded']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown event type "call.exploded"; webhooks can subscribe to: call.started/);
    expect(await sent()).toEqual(['GET /api/v1/events/types', 'GET /api/v1/events/types']);
  });

  it('refuses a URL that is not http(s) locally, and reports the service refusing a private address', async () => {
    const base = ['webhooks', 'create', '--name', 'U', '--events', 'call.ended'];
    for (const [url, err] of [
      ['ftp://example.com/x', /must be http or https, not ftp/],
      ['not a url', /is not a URL/],
      ['https://u:p@example.com/', /user name or password/],
    ] as const) {
      const r = await vap([...base, '--url', url]);
      expect(r.code, url).toBe(2);
      expect(r.stderr, url).toMatch(err);
    }
    expect(await sent()).toEqual([]);
    const priv = await vap([...base, '--url', 'http://10.0.0.7/hook']);
    expect(priv.code).toBe(1);
    expect(priv.stderr).toMatch(/HTTP 422/);
  });
});

describe('vap webhooks update, disable and enable', () => {
  it('changes URL, events and name; refuses an empty change', async () => {
    const { id } = await create('/upd');
    const r = await vap(['webhooks', 'update', id, '--url', `${hookUrl}/upd2`, '--events', 'eval.run.completed,call.ended', '--name', 'Renamed', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id, url: `${hookUrl}/upd2`, events: ['eval.run.completed', 'call.ended'], name: 'Renamed' });
    const bad = await vap(['webhooks', 'update', id, '--events', 'call.voice.updated']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('call stream only');
    const none = await vap(['webhooks', 'update', id]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/nothing to update/);
  });

  it('an endpoint that keeps failing is switched off; enable says it clears the failure count', async () => {
    answer.set('/flaky', 500);
    const { id } = await create('/flaky');
    await publish('call.ended', 12);
    await until('twelve failed attempts', async () => ((await endpoint(id)).consecutiveFailures >= 12 ? true : undefined));
    // Continuous failure is a matter of days (five, simulated), not of a burst.
    expect((await endpoint(id)).isEnabled).toBe(true);
    await emu.control('POST', '/clock/advance', { ms: 5 * 86_400_000 });
    await publish('call.ended');
    await until('the endpoint switched off', async () => ((await endpoint(id)).isEnabled ? undefined : true));
    // Attempts already under way when it was switched off still finish (and count); once
    // none is in flight the count stays put, since a disabled endpoint's queue waits.
    await until('no attempt in flight', async () => {
      const list = (await emu.api('GET', `/api/v1/webhook-endpoints/${id}/deliveries?limit=200`)).body.data.deliveries as Array<{ status: string }>;
      return list.some((x) => x.status === 'in_flight') ? undefined : true;
    });
    const off = await endpoint(id);
    expect(off.isEnabled).toBe(false);
    expect(off.consecutiveFailures).toBeGreaterThanOrEqual(10);

    const deliveries = await vap(['webhooks', 'deliveries', id, '--all', '--json']);
    const list = JSON.parse(deliveries.stdout) as Array<{ status: string; attemptCount: number; responseStatus: number | null }>;
    expect(list).toHaveLength(13);
    expect(list.filter((x) => x.attemptCount >= 1 && x.responseStatus === 500).length).toBeGreaterThanOrEqual(10);

    const r = await vap(['webhooks', 'enable', id, '--json']);
    answer.set('/flaky', 200);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id, isEnabled: true, consecutiveFailures: 0 });
    expect(r.stderr).toContain(`Enabled webhook endpoint ${id}; its failure count (${off.consecutiveFailures}) was cleared and its queued deliveries resume`);

    const d = await vap(['webhooks', 'disable', id]);
    expect(d.code).toBe(0);
    expect(d.stderr).toContain(`vap webhooks enable ${id}`);
    expect((await endpoint(id)).isEnabled).toBe(false);
    const again = await vap(['webhooks', 'enable', id]);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`Enabled webhook endpoint ${id}; its failure count \\(\\d+\\) was cleared`));
    expect((await endpoint(id)).isEnabled).toBe(true);
  });
});

describe('vap webhooks rotate-secret', () => {
  it('needs --yes without a terminal; shows the new secret once or writes it; the old one stops at once', async () => {
    const { id, secretFile } = await create('/rot');
    const old = readFileSync(secretFile, 'utf8').trim();
    await emu.clearRequests();
    const refused = await vap(['webhooks', 'rotate-secret', id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    expect(await sent()).toEqual([]);

    const shown = await vap(['webhooks', 'rotate-secret', id, '--yes']);
    expect(shown.code).toBe(0);
    const fields = Object.fromEntries(
      shown.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t') as [string, string]),
    );
    expect(fields).toMatchObject({ id, secret: expect.stringMatching(/^whsec_/) });
    expect(fields.secret).not.toBe(old);
    expect(shown.stderr).toContain('Save the secret now');

    const filed = await vap(['webhooks', 'rotate-secret', id, '--yes', '--secret-file', secretFile, '-q']);
    expect(filed.code).toBe(0);
    expect(filed.stdout.trim()).toBe(id);
    const newest = readFileSync(secretFile, 'utf8').trim();
    expect(newest).not.toBe(fields.secret);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(newest.startsWith((await endpoint(id)).secretPrefix)).toBe(true);

    const before = received.length;
    await publish('call.ended');
    const hit = await until('the delivery', () => received.slice(before).find((x) => x.path === '/rot'));
    const header = String(hit.headers['x-service-signature']);
    const body = hit.body.toString('utf8');
    expect((await vap(['webhooks', 'verify', '--secret-file', secretFile, '--header', header], { stdin: body })).code).toBe(0);
    const stale = await vap(['webhooks', 'verify', '--secret', old, '--header', header], { stdin: body });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('signature mismatch');
  });
});

describe('vap webhooks deliveries', () => {
  it('shows attempts and response status, filters by status, follows the cursor with --all', async () => {
    const { id } = await create('/log');
    await publish('call.ended', 5);
    await until('five successful deliveries', async () => {
      const list = (await emu.api('GET', `/api/v1/webhook-endpoints/${id}/deliveries?status=succeeded`)).body.data.deliveries;
      return list.length === 5 ? list : undefined;
    });
    const tsv = await vap(['webhooks', 'deliveries', id, '--status', 'succeeded']);
    expect(tsv.code).toBe(0);
    const rows = tsv.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toHaveLength(5);
    for (const row of rows) {
      expect(row[0]).toMatch(/^whd_/);
      expect(row.slice(1, 2).concat(row.slice(3, 6))).toEqual(['call.ended', 'succeeded', '1', '200']);
    }
    const table = await vap(['webhooks', 'deliveries', id], { tty: true });
    expect(table.stdout).toMatch(/ID\s+EVENT\s+EVENT ID\s+STATUS\s+ATTEMPTS\s+RESPONSE/);

    const two = await vap(['webhooks', 'deliveries', id, '--limit', '2', '-q']);
    expect(two.stdout.trim().split('\n')).toHaveLength(2);

    await emu.clearRequests();
    const all = await vap(['webhooks', 'deliveries', id, '--all', '--limit', '2', '-q']);
    expect(all.stdout.trim().split('\n')).toEqual(rows.map((r) => r[0]));
    const pages = (await sent()).filter((s) => s.includes('/deliveries'));
    expect(pages).toHaveLength(3);
    // (The request log keeps paths without the query; five distinct ids in order over three pages of two is the cursor followed.)

    const none = await vap(['webhooks', 'deliveries', id, '--status', 'dead_lettered'], { tty: true });
    expect(none.code).toBe(0);
    expect(none.stderr).toContain(`No dead_lettered deliveries for ${id}.`);
  });

  it('validates --status and --limit before sending', async () => {
    for (const [args, err] of [
      [['--status', 'lost'], /"lost" is not a delivery status.*pending, in_flight, succeeded, failed, dead_lettered/],
      [['--limit', '201'], /--limit "201" is out of range.*1\.\.200, or --all/],
      [['--limit', '0'], /out of range/],
    ] as const) {
      const r = await vap(['webhooks', 'deliveries', 'we_x', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(err);
    }
    expect(await sent()).toEqual([]);
  });
});

describe('vap webhooks delete', () => {
  it("needs --yes without a terminal, deletes, and another tenant's endpoint is not found", async () => {
    const { id } = await create('/del');
    const foreign = await vap(['webhooks', 'get', id], {}, ORG_B.apiKey);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/HTTP 404/);
    await emu.clearRequests();
    const refused = await vap(['webhooks', 'delete', id]);
    expect(refused.code).toBe(2);
    expect(await sent()).toEqual([]);
    const r = await vap(['webhooks', 'delete', id, '--yes']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Deleted webhook endpoint ${id}; its queued deliveries were abandoned`);
    expect((await vap(['webhooks', 'get', id])).code).toBe(1);
  });
});
