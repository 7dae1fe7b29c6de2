import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// `vap api`: one output shape (the envelope's data) for every group of both documents,
// the next page said on stderr, --paginate over page numbers and cursors, --include.

let emu: TestEmulator;
let receiver: Server;
let agentIds: string[] = [];

const vap = (argv: string[], opts: RunOptions = {}) => runCli(['api', ...argv], { ...opts, env: { ...cliEnv(emu.url, ORG_A.apiKey), ...opts.env } });

async function post<T = any>(path: string, body: unknown): Promise<T> {
  const r = await emu.api<{ data: T }>('POST', path, body);
  expect(r.status, path).toBeLessThan(300);
  return r.body.data;
}

/** The paths (with their query) a `vap api` run requested, from its --verbose log. */
async function requested(argv: string[]): Promise<string[]> {
  const r = await vap([...argv, '--verbose']);
  return [...r.stderr.matchAll(/^> GET (\S+)/gm)].map((m) => new URL(m[1]!).pathname + new URL(m[1]!).search);
}

beforeAll(async () => {
  emu = await startTestEmulator({ allowLoopbackUrls: true });
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  agentIds = [];
  for (let i = 1; i <= 5; i++)
    agentIds.push((await post<{ id: string }>('/api/v1/agents', { name: `Agent ${i}`, instructions: 'Greet callers.', engine: 'realtime', variables: [] })).id);
  await post('/api/v1/contact-lists', { name: 'Leads', schema: { fields: [{ name: 'name', type: 'string' }] } });
  await emu.control('POST', '/calls/seed', { org: ORG_A.name, count: 7 });
});
afterAll(async () => {
  await emu?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});
beforeEach(async () => {
  await emu.clearRequests();
});

describe('vap api prints the envelope’s data, whatever the group', () => {
  it('document 1 (meta envelope): the data object, and the help’s own --query example works', async () => {
    const r = await vap(['GET', '/api/v1/agents', '--query', 'agents[].name']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(['Agent 1', 'Agent 2', 'Agent 3', 'Agent 4', 'Agent 5']);
    const whole = await vap(['GET', '/api/v1/agents']);
    const data = JSON.parse(whole.stdout);
    expect(Object.keys(data)).toEqual(['agents']);
    expect(data.agents.map((a: { id: string }) => a.id)).toEqual(agentIds);
    // One page holds them all: no next page to speak of.
    expect(whole.stderr).toBe('');
  });

  it('document 2: contact lists (a bare array under data), calls (data with its own pagination and summary)', async () => {
    const lists = await vap(['GET', '/api/v1/contact-lists']);
    expect(lists.code).toBe(0);
    const arr = JSON.parse(lists.stdout);
    expect(Array.isArray(arr)).toBe(true);
    expect(arr[0]).toMatchObject({ name: 'Leads' });

    const calls = await vap(['GET', '/api/v1/calls?pageSize=100']);
    const data = JSON.parse(calls.stdout);
    expect(Object.keys(data).sort()).toEqual(['calls', 'pagination', 'summary']);
    expect(data.calls).toHaveLength(7);
    expect(data.summary.total).toBe(7);
  });

  it("a single object is its data, byte for byte the same JSON as --json of the verb (which adds the agent's tools)", async () => {
    const raw = await vap(['GET', `/api/v1/agents/${agentIds[0]}`]);
    const verb = await runCli(['agents', 'get', agentIds[0]!, '--json'], { env: cliEnv(emu.url, ORG_A.apiKey) });
    const { tools, ...rest } = JSON.parse(verb.stdout);
    expect(Array.isArray(tools)).toBe(true);
    expect(raw.stdout).toBe(`${JSON.stringify(rest, null, 2)}\n`);
  });
});

describe('paged listings', () => {
  it('say on stderr where the next page is (page numbers), and that command reads it', async () => {
    const r = await vap(['GET', '/api/v1/agents?pageSize=2', '--query', 'agents[].name']);
    expect(JSON.parse(r.stdout)).toEqual(['Agent 1', 'Agent 2']);
    expect(r.stderr).toBe("more: the next page is `vap api GET '/api/v1/agents?pageSize=2&page=2'`; --paginate follows every page\n");
    const next = await vap(['GET', '/api/v1/agents?pageSize=2&page=2', '--query', 'agents[].name']);
    expect(JSON.parse(next.stdout)).toEqual(['Agent 3', 'Agent 4']);
    const last = await vap(['GET', '/api/v1/agents?pageSize=2&page=3', '--query', 'agents[].name']);
    expect(JSON.parse(last.stdout)).toEqual(['Agent 5']);
    expect(last.stderr).toBe('');
  });

  it('-q keeps stderr quiet', async () => {
    const r = await vap(['GET', '/api/v1/agents?pageSize=2', '-q']);
    expect(r.stderr).toBe('');
  });

  it('--paginate follows page numbers and prints one JSON array of every item', async () => {
    const r = await vap(['GET', '/api/v1/agents?pageSize=2', '--paginate']);
    expect(r.code).toBe(0);
    const items = JSON.parse(r.stdout) as Array<{ id: string }>;
    expect(items.map((a) => a.id)).toEqual(agentIds);
    expect(r.stderr).toBe('');
    expect(await requested(['GET', '/api/v1/agents?pageSize=2', '--paginate'])).toEqual([
      '/api/v1/agents?pageSize=2',
      '/api/v1/agents?pageSize=2&page=2',
      '/api/v1/agents?pageSize=2&page=3',
    ]);
  });

  it('--paginate with --query applies the expression to each page, as without --paginate, and joins the results', async () => {
    const r = await vap(['GET', '/api/v1/agents?pageSize=2', '--paginate', '--query', 'agents[].name']);
    expect(JSON.parse(r.stdout)).toEqual(['Agent 1', 'Agent 2', 'Agent 3', 'Agent 4', 'Agent 5']);
    const nd = await vap(['GET', '/api/v1/agents?pageSize=2', '--paginate', '--query', 'agents[].name', '-o', 'ndjson']);
    expect(nd.stdout).toBe('"Agent 1"\n"Agent 2"\n"Agent 3"\n"Agent 4"\n"Agent 5"\n');
  });

  it('--paginate -o ndjson streams one item per line; -q prints ids; the calls listing pages too', async () => {
    const nd = await vap(['GET', '/api/v1/calls?pageSize=3', '--paginate', '-o', 'ndjson']);
    const lines = nd.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string });
    expect(lines).toHaveLength(7);
    expect(new Set(lines.map((c) => c.id)).size).toBe(7);
    const ids = await vap(['GET', '/api/v1/agents?pageSize=2', '--paginate', '-q']);
    expect(ids.stdout).toBe(`${agentIds.join('\n')}\n`);
  });

  it('--paginate follows nextCursor where that is all a listing gives (agent versions)', async () => {
    const id = agentIds[0]!;
    for (let v = 2; v <= 4; v++) await emu.api('PATCH', `/api/v1/agents/${id}`, { instructions: `Version ${v}.` });
    const one = await vap(['GET', `/api/v1/agents/${id}/versions?limit=3`, '--query', 'versions[].versionNumber']);
    expect(JSON.parse(one.stdout)).toEqual([4, 3, 2]);
    expect(one.stderr).toContain(`vap api GET '/api/v1/agents/${id}/versions?limit=3&cursor=3'`);
    const all = await vap(['GET', `/api/v1/agents/${id}/versions?limit=3`, '--paginate', '--query', 'versions[].versionNumber']);
    expect(JSON.parse(all.stdout)).toEqual([4, 3, 2, 1]);
  });

  it('--paginate follows the webhook deliveries cursor (the spec’s cursor listing)', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const ep = await post<{ id: string }>('/api/v1/webhook-endpoints', { name: 'Log', url, events: ['call.ended'] });
    await emu.control('POST', '/events', {
      org: ORG_A.name,
      type: 'call.ended',
      data: { status: 'completed', durationSeconds: 61, engine: 'realtime' },
      count: 5,
    });
    for (let i = 0; i < 400; i++) {
      const list = (await emu.api('GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?limit=200`)).body.data.deliveries;
      if (list.length === 5) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const r = await vap(['GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?limit=2`, '--paginate', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(5);
    const paths = await requested(['GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries?limit=2`, '--paginate', '-q']);
    expect(paths).toHaveLength(3);
    expect(paths[1]).toMatch(/deliveries\?limit=2&cursor=/);
  });

  it('--paginate is for GET only, refused before anything is sent', async () => {
    const r = await vap(['POST', '/api/v1/agents', '--paginate', '--data', '{}']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --paginate follows the pages of a listing, which is read with GET (not POST); drop --paginate, or use GET\n');
    expect(await emu.requests()).toEqual([]);
  });
});

describe('--include', () => {
  it('prints the status line, the headers and the pagination on stderr; stdout stays the data', async () => {
    const r = await vap(['GET', '/api/v1/agents?pageSize=2', '--include', '--query', 'agents[].name']);
    expect(JSON.parse(r.stdout)).toEqual(['Agent 1', 'Agent 2']);
    const [head] = r.stderr.split('\n\n');
    const lines = head!.split('\n');
    expect(lines[0]).toBe('HTTP/1.1 200 OK');
    expect(lines).toContain('content-type: application/json; charset=utf-8');
    expect(lines.some((l) => /^x-request-id: req_/.test(l))).toBe(true);
    expect(lines[lines.length - 1]).toBe('pagination: {"nextCursor":"2","page":1,"limit":2,"total":5}');
    expect(r.stderr).toContain('more: the next page is');
  });

  it('shows the error response’s status and headers too, before the one-line error', async () => {
    const r = await vap(['GET', '/api/v1/agents/ag_nope', '-i']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^HTTP\/1\.1 404 Not Found\n/);
    expect(r.stderr).toMatch(/\n\nerror: agent ag_nope not found \(HTTP 404, request id req_\w+\)\n$/);
  });
});
