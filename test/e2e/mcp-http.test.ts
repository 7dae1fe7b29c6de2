// `vap mcp --http`: Streamable HTTP on 127.0.0.1, the URL and a bearer token printed once.
// A request whose Host or Origin is not local is refused (DNS rebinding), as is one with no
// token or another one; the SDK's client works with the token; and the scenarios of
// @modelcontextprotocol/conformance pass (run under a Node 22, through a local proxy that
// adds the token, since the runner sends none).
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, ROOT } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { node22 } from '../helpers/node22.mjs';
import { testStateDir } from '../helpers/state-dir.js';

let emu: TestEmulator;
let server: ResultPromise;
let url: URL;
let token: string;

/** One raw HTTP request (fetch cannot set Host): status, headers and body text. */
function raw(headers: Record<string, string>, body = INITIALIZE): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
  await emu.api('POST', '/api/v1/agents', { name: 'Front desk', instructions: 'Greet callers.', engine: 'realtime', variables: [] });
  const home = mkdtempSync(join(tmpdir(), 'vap-mcp-http-'));
  server = execa('node', [BIN, 'mcp', '--http', '0'], {
    env: {
      HOME: home,
      PATH: process.env.PATH ?? '',
      NO_COLOR: '1',
      VAP_BASE_URL: emu.url,
      VAP_API_KEY: ORG_A.apiKey,
      VAP_CONFIG_DIR: join(home, 'config'),
      VAP_STATE_DIR: testStateDir(),
    },
    extendEnv: false,
    reject: false,
  });
  const lines = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
  url = new URL((await lines.next()).value as string);
  token = /^Authorization: Bearer (\S+)$/.exec((await lines.next()).value as string)![1]!;
}, 60_000);

afterAll(async () => {
  server?.kill('SIGINT');
  await server;
  await emu?.close();
});

describe('vap mcp --http', () => {
  it('listens on 127.0.0.1 and prints the URL and a token once', () => {
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.pathname).toBe('/mcp');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses a request whose Host is not local (DNS rebinding), before the token is even read', async () => {
    for (const host of ['evil.example.com', `evil.example.com:${url.port}`, `127.0.0.1.evil.example.com:${url.port}`]) {
      const r = await raw({ host, authorization: `Bearer ${token}` });
      expect(r.status, host).toBe(403);
      expect(r.body, host).toContain('Invalid Host');
    }
  });

  it('refuses a request whose Origin is not a local page', async () => {
    for (const origin of ['http://evil.example.com', `http://evil.example.com:${url.port}`, 'null', 'file://']) {
      const r = await raw({ host: `127.0.0.1:${url.port}`, origin, authorization: `Bearer ${token}` });
      expect(r.status, origin).toBe(403);
      expect(r.body, origin).toContain('Invalid Origin');
    }
  });

  it('refuses a missing or wrong token, with WWW-Authenticate', async () => {
    const missing = await raw({ host: `127.0.0.1:${url.port}` });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    for (const authorization of [`Bearer ${token}x`, `Bearer ${token.slice(1)}`, `Basic ${token}`, 'Bearer']) {
      const r = await raw({ host: `127.0.0.1:${url.port}`, authorization });
      expect(r.status, authorization).toBe(401);
    }
  });

  it('answers a local Host and Origin with the token', async () => {
    for (const [host, origin] of [
      [`localhost:${url.port}`, `http://localhost:${url.port}`],
      [`127.0.0.1:${url.port}`, 'http://127.0.0.1:3000'],
    ]) {
      const r = await raw({ host: host!, origin: origin!, authorization: `Bearer ${token}` });
      expect(r.status, host).toBe(200);
      expect(r.headers['mcp-session-id']).toBeTypeOf('string');
    }
  });

  it('a port in use is a usage error (exit 2), as the emulator says it', async () => {
    const r = await execa('node', [BIN, 'mcp', '--http', url.port], {
      env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), VAP_API_KEY: ORG_A.apiKey, VAP_BASE_URL: emu.url },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(`error: port ${url.port} is already in use; pick another with --http, or --http 0 for any free one (the URL is printed)`);
    expect(r.stdout).toBe('');
  });

  it('serves the SDK client that sends the token: tools and a call', async () => {
    const client = new Client({ name: 'vap-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      expect((await client.listTools()).tools.length).toBe(36);
      const r = await client.callTool({ name: 'vap_agents_list', arguments: {} });
      expect((r.structuredContent as { data: { agents: Array<{ name: string }> } }).data.agents.map((a) => a.name)).toEqual(['Front desk']);
      const refused = await client.callTool({ name: 'vap_agents_rollback', arguments: { agentId: 'ag_x', version: 1, reason: 'x', confirm: 'ag_x' } });
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});

/** A local proxy in front of the server that adds the token to every request (the conformance runner sends none); Host, Origin and the rest pass unchanged. */
function tokenProxy(): Promise<Server> {
  const proxy = createServer((req, res) => {
    const up = request(
      { host: '127.0.0.1', port: url.port, path: req.url, method: req.method, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
    res.on('close', () => up.destroy());
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy)));
}

const NODE22 = node22();
const CONFORMANCE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

describe.skipIf(!NODE22.bin)(`@modelcontextprotocol/conformance scenarios, under Node 22 ${NODE22.bin ? '' : `(skipped: ${NODE22.why})`}`, () => {
  let proxy: Server;
  beforeAll(async () => {
    proxy = await tokenProxy();
  });
  afterAll(() => {
    proxy?.close();
    proxy?.closeAllConnections();
  });

  // The server declares logging (not prompts): logging-set-level applies, prompts-list does not.
  it.each(['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection', 'server-sse-multiple-streams', 'logging-set-level'])(
    '%s',
    async (scenario) => {
      const out = mkdtempSync(join(tmpdir(), 'vap-conformance-'));
      const target = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
      const r = await execa(NODE22.bin!, [CONFORMANCE, 'server', '--url', target, '--scenario', scenario, '--output-dir', out], {
        cwd: out,
        reject: false,
        timeout: 60_000,
      });
      const checks = readdirSync(out, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('checks.json'))
        .flatMap((f) => JSON.parse(readFileSync(join(out, f), 'utf8')) as Array<{ id: string; status: string; errorMessage?: string }>);
      expect(checks.length, r.stdout + r.stderr).toBeGreaterThan(0);
      expect(
        checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING'),
        r.stdout,
      ).toEqual([]);
      expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    },
  );
});
