// `vap mcp` (the built binary) answers a message it cannot read with a JSON-RPC error and
// goes on serving the same connection. Over real stdio: three 12 MiB lines (a request whose
// id opens the line, one whose id closes it as the SDK's client writes it, and garbage), a
// line that is not JSON, a JSON array and a number, then `tools/list` gets its answer. Over
// Streamable HTTP: a 12 MiB POST gets 413 and a JSON-RPC error, a body that is not JSON or
// not a message gets 400 and one, then `tools/list` is answered on the same TCP connection.
import { mkdtempSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { testStateDir } from '../helpers/state-dir.js';

const MiB = 1024 * 1024;
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const TOOLS_LIST = { jsonrpc: '2.0', id: 5, method: 'tools/list' };

interface Answer {
  jsonrpc: string;
  id: unknown;
  result?: { tools?: unknown[]; protocolVersion?: string };
  error?: { code: number; message: string; data?: unknown };
}

let emu: TestEmulator;

function envFor(home: string): Record<string, string> {
  return {
    HOME: home,
    PATH: process.env.PATH ?? '',
    NO_COLOR: '1',
    VAP_BASE_URL: emu.url,
    VAP_API_KEY: ORG_A.apiKey,
    VAP_CONFIG_DIR: join(home, 'config'),
    VAP_STATE_DIR: testStateDir(),
  };
}

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
}, 60_000);

afterAll(async () => {
  await emu?.close();
});

describe('vap mcp over stdio', () => {
  let server: ResultPromise;
  let next: () => Promise<Answer>;
  const write = (text: string) => new Promise<void>((resolve, reject) => server.stdin!.write(text, (err) => (err ? reject(err) : resolve())));

  beforeAll(async () => {
    const home = mkdtempSync(join(tmpdir(), 'vap-mcp-malformed-'));
    server = execa('node', [BIN, 'mcp'], {
      env: envFor(home),
      extendEnv: false,
      reject: false,
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      buffer: { stdout: false },
    });
    const lines = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
    next = async () => {
      const r = await lines.next();
      if (r.done) throw new Error(`vap mcp closed its stdout (exit ${(await server).exitCode}): ${String((await server).stderr)}`);
      return JSON.parse(r.value as string) as Answer;
    };
    await write(`${JSON.stringify(INITIALIZE)}\n`);
    expect((await next()).result?.protocolVersion).toBe('2025-06-18');
    await write(`${JSON.stringify(INITIALIZED)}\n`);
  }, 60_000);

  afterAll(async () => {
    server?.stdin?.end();
    await server;
  });

  it('answers each oversized, non-JSON or non-message line with its JSON-RPC error, then serves tools/list on the same connection', async () => {
    const filler = 'x'.repeat(12 * MiB);
    // The id first, as a hand-written client puts it; then last, as the SDK's client serialises a request.
    const idFirst = `{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"name":"vap_agents_list","arguments":{"note":"${filler}"}}}`;
    const idLast = `{"method":"tools/call","params":{"name":"vap_agents_list","arguments":{"note":"${filler}"}},"jsonrpc":"2.0","id":2}`;
    for (const line of [idFirst, idLast, filler, 'not json at all {', '[1,2,3]', '42']) await write(`${line}\n`);
    await write(`${JSON.stringify(TOOLS_LIST)}\n`);

    const answers: Answer[] = [];
    for (let a = await next(); ; a = await next()) {
      answers.push(a);
      if (a.id === 5) break;
    }
    const errors = answers.slice(0, -1);
    expect(errors.map((a) => [a.id, a.error?.code])).toEqual([
      ['big-1', -32600],
      [2, -32600],
      [null, -32600],
      [null, -32700],
      [null, -32600],
      [null, -32600],
    ]);
    expect(errors[0]!.error!.message).toBe(
      `Invalid Request: the message is ${idFirst.length} bytes, over vap mcp's limit of ${10 * MiB} bytes for one message; it was skipped`,
    );
    expect(errors[0]!.error!.data).toEqual({ size: idFirst.length, limit: 10 * MiB });
    expect(errors.every((a) => a.jsonrpc === '2.0' && a.result === undefined)).toBe(true);
    const list = answers.at(-1)!;
    expect(list.error).toBeUndefined();
    expect(list.result!.tools).toHaveLength(36);
  }, 60_000);

  it('still serves a tool call after them', async () => {
    await write(`${JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'vap_agents_list', arguments: {} } })}\n`);
    const a = await next();
    expect(a.id).toBe(6);
    expect((a.result as { isError?: boolean }).isError).toBeUndefined();
    expect(server.exitCode).toBeNull();
  });
});

describe('vap mcp --http', () => {
  let server: ResultPromise;
  let url: URL;
  let token: string;
  let session: string;
  // One socket, kept alive: a request that finds it reused proves the connection was not dropped.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  function post(
    body: string | Buffer,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: string; reusedSocket: boolean }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent,
          host: '127.0.0.1',
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${token}`,
            ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}),
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text, reusedSocket: req.reusedSocket }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** The JSON-RPC message of an answer: the body itself, or the data of its server-sent event. */
  const messageOf = (body: string): Answer => JSON.parse(/^data: (.*)$/m.exec(body)?.[1] ?? body) as Answer;

  beforeAll(async () => {
    const home = mkdtempSync(join(tmpdir(), 'vap-mcp-http-malformed-'));
    server = execa('node', [BIN, 'mcp', '--http', '0'], { env: envFor(home), extendEnv: false, reject: false });
    const lines = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
    url = new URL((await lines.next()).value as string);
    token = /^Authorization: Bearer (\S+)$/.exec((await lines.next()).value as string)![1]!;
    const init = await post(JSON.stringify(INITIALIZE));
    expect(init.status).toBe(200);
    session = init.headers['mcp-session-id'] as string;
    expect((await post(JSON.stringify(INITIALIZED))).status).toBe(202);
  }, 60_000);

  afterAll(async () => {
    agent.destroy();
    server?.kill('SIGINT');
    await server;
  });

  it('answers a 12 MiB POST with 413 and a JSON-RPC error, then tools/list on the same connection', async () => {
    const big = await post(
      Buffer.from(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"vap_agents_list","arguments":{"note":"${'x'.repeat(12 * MiB)}"}}}`),
    );
    expect(big.status).toBe(413);
    expect(big.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(big.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `Invalid Request: the body is over vap mcp's limit of ${100 * 1024} bytes for one request; it was skipped` },
    });

    const list = await post(JSON.stringify(TOOLS_LIST));
    expect(list.status).toBe(200);
    expect(list.reusedSocket).toBe(true);
    const m = messageOf(list.body);
    expect(m.id).toBe(5);
    expect(m.result!.tools).toHaveLength(36);
  }, 60_000);

  it('answers a body that is not JSON (-32700) or JSON that is no message (-32600) with 400, and serves on', async () => {
    const cases: Array<[string, number, unknown]> = [
      ['not json at all {', -32700, null],
      ['42', -32600, null],
      ['{"hello":"world"}', -32600, null],
      ['{"jsonrpc":"2.0","id":11,"method":7}', -32600, null],
      ['{"jsonrpc":"1.0","id":12,"method":"tools/list"}', -32600, 12],
    ];
    for (const [body, code, id] of cases) {
      const r = await post(body);
      expect(r.status, body).toBe(400);
      expect(JSON.parse(r.body), body).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
    }
    const list = await post(JSON.stringify(TOOLS_LIST));
    expect(list.status).toBe(200);
    expect(list.reusedSocket).toBe(true);
    expect(messageOf(list.body).result!.tools).toHaveLength(36);
  });
});
