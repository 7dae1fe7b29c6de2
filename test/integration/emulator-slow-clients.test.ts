import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// Slow clients cannot hold the emulator: a request whose headers or body trickle in (one byte
// at a time, forever) is answered 408 in the one error envelope and its connection closed, and
// one client address holds at most so many connections at once, beyond which a new one is
// answered 503 and closed (a request sent on it is never handled). Meanwhile every other
// client is served. The timeouts are shortened for the test (0.5 s for the headers, 1 s for
// the whole request); nothing here measures time: the test waits for the closes themselves.

const LIMIT = 10;
let emu: TestEmulator;
/** A second loopback address (Linux routes all of 127/8 to lo), to be another client. */
const OTHER = '127.0.0.2';
let otherAddressWorks = false;

beforeAll(async () => {
  emu = await startTestEmulator({ headersTimeoutMs: 500, requestTimeoutMs: 1000, maxConnectionsPerClient: LIMIT });
  otherAddressWorks = await new Promise<boolean>((resolve) => {
    const s = net.connect({ port: emu.port, host: '127.0.0.1', localAddress: OTHER });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
});
afterAll(async () => {
  await emu?.close();
});

interface Raw {
  socket: net.Socket;
  /** Resolves with everything received once the server closed the connection. */
  closed: Promise<string>;
}

/** A raw TCP client; `trickle` writes one more byte every 100 ms until the server closes it. */
function raw(opts: { first?: string; trickle?: string; local?: string }): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port: emu.port, host: '127.0.0.1', localAddress: opts.local });
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (data += c));
    const closed = new Promise<string>((r) => socket.once('close', () => r(data)));
    socket.on('error', () => {}); // a reset after the answer is the server closing on a client still writing
    socket.once('connect', () => {
      if (opts.first !== undefined) socket.write(opts.first);
      if (opts.trickle !== undefined) {
        const timer = setInterval(() => {
          if (!socket.destroyed && socket.writable) socket.write(opts.trickle!);
        }, 100);
        socket.once('close', () => clearInterval(timer));
      }
      resolve({ socket, closed });
    });
    socket.once('error', reject);
  });
}

const postAgentHead = (_name: string, length: number) =>
  `POST /api/v1/agents HTTP/1.1\r\nhost: emulator\r\nauthorization: Bearer ${ORG_A.apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`;

function answer(text: string): { status: number; body: any } {
  const m = /^HTTP\/1\.1 (\d{3}) [^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(text);
  expect(m, `an HTTP answer: ${JSON.stringify(text.slice(0, 200))}`).not.toBeNull();
  expect(m![2]).toMatch(/content-type: application\/json/);
  return { status: Number(m![1]), body: JSON.parse(m![3]!) };
}

async function agentNames(): Promise<string[]> {
  const res = await emu.api<{ data: { agents: Array<{ name: string }> } }>('GET', '/api/v1/agents?pageSize=200');
  return res.body.data.agents.map((a) => a.name);
}

describe('a request that trickles in', () => {
  it('is answered 408 in the error envelope when its body is sent one byte at a time, and nothing is created', async () => {
    const body = JSON.stringify({ name: 'trickled', instructions: 'x', engine: 'realtime' });
    // all of the body but its last byte, then spaces one at a time: it never completes
    const c = await raw({ first: postAgentHead('trickled', body.length + 1000) + body.slice(0, -1), trickle: ' ' });
    const got = answer(await c.closed);
    expect(got.status).toBe(408);
    expect(got.body.error.code).toBe('request_timeout');
    expect(got.body.error.message).toBe('the request was not received in time: its headers must arrive within 500 ms and the whole request within 1 s');
    expect(got.body.meta.requestId).toMatch(/^req_[0-9a-f]{20}$/);
    expect(await agentNames()).not.toContain('trickled');
  });

  it('is answered 408 when its headers trickle in, and so is a connection that sends nothing', async () => {
    const headers = await raw({ first: 'GET /api/v1/agents HTTP/1.1\r\nx-slow: ', trickle: 'a' });
    const silent = await raw({});
    for (const c of [headers, silent]) {
      const got = answer(await c.closed);
      expect(got.status).toBe(408);
      expect(got.body.error.code).toBe('request_timeout');
    }
  });

  it('does not cut an event stream: only receiving the request is timed, not the answer', async () => {
    const stream = await fetch(`${emu.url}/api/v1/events`, { headers: { authorization: `Bearer ${ORG_A.apiKey}` } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    // A slow request opened now is closed once the request timeout has passed (for the stream too).
    const slow = await raw({ first: postAgentHead('x', 1000), trickle: ' ' });
    expect(answer(await slow.closed).status).toBe(408);
    await emu.control('POST', '/events', { type: 'call.started', callId: 'call_after_timeout', data: {} });
    let text = '';
    while (!text.includes('call_after_timeout')) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      text += Buffer.from(value!).toString('utf8');
    }
    await reader.cancel();
  });
});

describe('connections per client address', () => {
  it('are bounded: beyond the bound a connection is answered 503 and closed, a request on it never handled, and other clients are served meanwhile', async (ctx) => {
    if (!otherAddressWorks) ctx.skip();
    // Forty slow connections from one address: the first LIMIT are held (until their timeout),
    // the rest are refused at once.
    const slow = await Promise.all(Array.from({ length: 40 }, () => raw({ local: OTHER, first: postAgentHead('slow', 1000), trickle: ' ' })));
    // One more from that address sends a whole request: it is refused, and never created.
    const body = JSON.stringify({ name: 'refused-connection', instructions: 'x', engine: 'realtime' });
    const extra = await raw({ local: OTHER, first: postAgentHead('refused-connection', body.length) + body });
    const refused = answer(await extra.closed);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toEqual({
      code: 'too_many_connections',
      message: `this client already has ${LIMIT} connections open, the most one address may hold; close some (or reuse them with keep-alive) and try again`,
    });
    // Another client is served while the slow ones hold their connections.
    const created = await emu.api('POST', '/api/v1/agents', { name: 'served', instructions: 'x', engine: 'realtime' });
    expect(created.status).toBe(201);

    const answers = (await Promise.all(slow.map((c) => c.closed))).map((t) => answer(t).status);
    expect(answers.filter((s) => s === 408)).toHaveLength(LIMIT);
    expect(answers.filter((s) => s === 503)).toHaveLength(40 - LIMIT);
    const names = await agentNames();
    expect(names).toContain('served');
    expect(names).not.toContain('refused-connection');

    // Once they are closed, that address is served again.
    const again = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${emu.url}/_emulator/health`, { localAddress: OTHER }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end();
    });
    expect(again).toBe(200);
  });
});
