// A response cut off in the middle of its body is a connection error: a local proxy
// between vap and the emulator passes the status line and headers of the first response,
// half of its body, then closes both connections. A GET is retried and succeeds; a POST is
// not retried and is reported as "the connection closed before the answer was complete".
// Also: --verbose shows a password in the base URL as ***.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { IncompleteResponseError } from '../../src/api/errors.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;

/**
 * A TCP proxy to the emulator that cuts the next `cuts` responses after their headers and
 * half their body (Content-Length framed), closing the client's and the server's sockets.
 */
class CuttingProxy {
  private server: Server;
  cuts = 0;
  cutDone = 0;
  port = 0;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((client) => this.handle(client));
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  private handle(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    this.sockets.add(client).add(upstream);
    client.on('close', () => this.sockets.delete(client));
    upstream.on('close', () => this.sockets.delete(upstream));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream);
    let pending = Buffer.alloc(0);
    let cutting = false;
    upstream.on('data', (chunk: Buffer) => {
      if (!cutting && this.cutDone >= this.cuts) {
        client.write(chunk);
        return;
      }
      cutting = true;
      pending = Buffer.concat([pending, chunk]);
      const end = pending.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(pending.subarray(0, end).toString('latin1'))?.[1] ?? 0);
      const half = end + 4 + Math.floor(length / 2);
      if (length < 2 || pending.length < half) return;
      this.cutDone++;
      client.write(pending.subarray(0, half), () => {
        client.destroy();
        upstream.destroy();
      });
    });
    upstream.on('end', () => client.end());
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let proxy: CuttingProxy;

beforeAll(async () => {
  emu = await startTestEmulator();
  await emu.api('POST', '/api/v1/agents', { name: 'Front desk', instructions: 'Greet callers.', engine: 'realtime', variables: [] });
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  const u = new URL(emu.url);
  proxy = new CuttingProxy({ host: u.hostname, port: Number(u.port) });
  await proxy.listen();
  await emu.clearRequests();
});
afterEach(async () => {
  await proxy.close();
});

const viaProxy = () => `http://127.0.0.1:${proxy.port}`;

describe('a response cut off in the middle of its body', () => {
  it('a GET is retried like any connection error, and succeeds', async () => {
    proxy.cuts = 1;
    const r = await runCli(['agents', 'list', '--json', '--verbose'], { env: { VAP_BASE_URL: viaProxy(), VAP_API_KEY: ORG_A.apiKey } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((a: { name: string }) => a.name)).toContain('Front desk');
    expect(proxy.cutDone).toBe(1);
    expect(r.stderr).toMatch(/< the connection to http:\/\/127\.0\.0\.1:\d+ closed before the answer was complete after \d+ms/);
    expect(r.stderr).toMatch(/retrying in \d+\.\ds after the connection to .* closed before the answer was complete \(retry 1 of 3\)/);
    expect((await emu.requests()).map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/v1/agents', 'GET /api/v1/agents']);
  });

  it('a GET cut off every time ends as a one-line connection error, not an unexpected error', async () => {
    proxy.cuts = 100;
    const api = new ApiClient({ baseUrl: viaProxy(), apiKey: ORG_A.apiKey, userAgent: 'vap/test', retry: { baseDelayMs: 5, maxDelayMs: 10 } });
    await expect(api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer' })).rejects.toBeInstanceOf(IncompleteResponseError);
    await api.close();
    expect(proxy.cutDone).toBe(4);
    const r = await runCli(['agents', 'list'], { env: { VAP_BASE_URL: viaProxy(), VAP_API_KEY: ORG_A.apiKey } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: the connection to http:\/\/127\.0\.0\.1:\d+ closed before the answer was complete; it was retried and failed each time; run the command again\n$/,
    );
  }, 30_000);

  it('a POST is not retried: "the connection closed before the answer was complete"', async () => {
    proxy.cuts = 1;
    const r = await runCli(['agents', 'create', '--name', 'Cut', '--engine', 'realtime', '--instructions', 'Hi.'], {
      env: { VAP_BASE_URL: viaProxy(), VAP_API_KEY: ORG_A.apiKey },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: the connection to http:\/\/127\.0\.0\.1:\d+ closed before the answer was complete; the POST may have been carried out: check before running it again\n$/,
    );
    expect(r.stderr).not.toContain('unexpected');
    expect((await emu.requests()).map((q) => `${q.method} ${q.path}`)).toEqual(['POST /api/v1/agents']);
  });
});

describe('--verbose and a password in the base URL', () => {
  it('shows the password as ***, in the request lines and in messages', async () => {
    const base = viaProxy().replace('http://', 'http://ops:s3cret-pw@');
    const r = await runCli(['agents', 'list', '--verbose'], { env: { VAP_BASE_URL: base, VAP_API_KEY: ORG_A.apiKey } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^> GET http:\/\/ops:\*\*\*@127\.0\.0\.1:\d+\/api\/v1\/agents\?/m);
    const status = await runCli(['auth', 'status'], { env: { VAP_BASE_URL: base, VAP_API_KEY: ORG_A.apiKey } });
    const config = await runCli(['config', 'list'], { env: { VAP_BASE_URL: base, VAP_API_KEY: ORG_A.apiKey } });
    for (const out of [r, status, config]) expect(out.stdout + out.stderr).not.toContain('s3cret-pw');
    expect(config.stdout).toContain('http://ops:***@127.0.0.1');
  });
});
