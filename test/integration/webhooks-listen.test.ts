import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { IO } from '../../src/context.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

function startCli(argv: string[], env: Record<string, string>) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const io: IO = { stdin: Readable.from([]), stdout, stderr, stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false };
  const ac = new AbortController();
  const done = main(argv, { io, env: { NO_COLOR: '1', ...env }, signal: ac.signal }).then((code) => ({ code, stdout: out, stderr: err }));
  return { done, interrupt: () => ac.abort(new DOMException('interrupted', 'AbortError')), stdout: () => out, stderr: () => err };
}

async function until(what: string, pred: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  validSignature: boolean;
}

/** A local receiver that checks signatures on its own (createHmac), as a user's server would. */
async function receiver(secret: () => string, answer: (n: number, r: Received) => number) {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = String(req.headers['x-service-signature'] ?? '');
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
      let validSignature = false;
      if (m) {
        const expected = createHmac('sha256', secret()).update(`${m[1]}.${body}`).digest();
        const given = Buffer.from(m[2]!, 'hex');
        validSignature = given.length === expected.length && timingSafeEqual(given, expected) && Math.abs(Date.now() / 1000 - Number(m[1])) < 300;
      }
      const r = { headers: req.headers, body, validSignature };
      got.push(r);
      res.writeHead(answer(got.length, r), { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { got, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let emu: TestEmulator;
let configDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  emu = await startTestEmulator();
  configDir = mkdtempSync(join(tmpdir(), 'vap-listen-'));
  env = cliEnv(emu.url, ORG_A.apiKey, configDir);
});

afterAll(async () => {
  await emu?.close();
  rmSync(configDir, { recursive: true, force: true });
});

afterEach(async () => {
  await emu.control('DELETE', '/streams/drop').catch(() => undefined);
});

async function streamsOpen(): Promise<void> {
  await until('an open stream', async () => (await emu.control<{ open: number }>('GET', '/streams')).open >= 1);
}

const secretOf = async () => (await runCli(['webhooks', 'listen', '--print-secret'], { env })).stdout.trim();

describe('vap webhooks listen', () => {
  it('keeps one local secret from run to run, in the config', async () => {
    const a = await runCli(['webhooks', 'listen', '--print-secret'], { env });
    const b = await runCli(['webhooks', 'listen', '--print-secret'], { env });
    expect(a.code).toBe(0);
    expect(a.stdout.trim()).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect(b.stdout).toBe(a.stdout);
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toContain(a.stdout.trim());
    // No API request is needed for it.
    expect((await emu.requests()).length).toBe(0);
  });

  it('forwards each event as a signed delivery the receiver can verify', async () => {
    const secret = await secretOf();
    const rx = await receiver(
      () => secret,
      () => 200,
    );
    try {
      const listen = startCli(['webhooks', 'listen', '--forward-to', rx.url, '--json'], env);
      await streamsOpen();
      await emu.control('POST', '/events', { type: 'call.started', callId: 'call_w1', data: { status: 'in_progress', direction: 'inbound' } });
      await emu.control('POST', '/events', { type: 'call.ended', callId: 'call_w1', data: { status: 'completed', durationSeconds: 9, engine: 'realtime' } });
      await until('2 deliveries', () => rx.got.length === 2);
      await until('2 lines printed', () => listen.stdout().trim().split('\n').length === 2);
      listen.interrupt();
      const res = await listen.done;
      expect(res.code).toBe(130);
      expect(rx.got.every((r) => r.validSignature)).toBe(true);
      const bodies = rx.got.map((r) => JSON.parse(r.body));
      expect(bodies[0]).toMatchObject({ type: 'call.started', callId: 'call_w1', data: { status: 'in_progress', direction: 'inbound' } });
      expect(Object.keys(bodies[1]).sort()).toEqual(['callId', 'data', 'id', 'occurredAt', 'organizationId', 'type']);
      expect(bodies[1].organizationId).toEqual(expect.any(String));
      expect(rx.got.map((r) => r.headers['x-service-event-id'])).toEqual(bodies.map((b) => b.id));
      expect(rx.got[0]!.headers['content-type']).toBe('application/json');
      const lines = res.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => [l.type, l.eventId, l.status, l.outcome])).toEqual([
        ['call.started', bodies[0].id, 200, 'delivered'],
        ['call.ended', bodies[1].id, 200, 'delivered'],
      ]);
      expect(res.stderr).toContain(`resume with: vap --json webhooks listen --forward-to ${rx.url} --last-event-id ${bodies[1].id}`);
    } finally {
      await rx.close();
    }
  });

  it('retries a failing receiver with the same event id, and does not retry a refusal', async () => {
    const secret = await secretOf();
    // The first delivery fails twice (503, 500), then succeeds; the second is refused (400).
    const rx = await receiver(
      () => secret,
      (n) => (n === 1 ? 503 : n === 2 ? 500 : n === 3 ? 200 : 400),
    );
    try {
      const listen = startCli(['webhooks', 'listen', '--forward-to', rx.url, '--types', 'call.ended,eval.run.completed', '--json'], env);
      await streamsOpen();
      await emu.control('POST', '/events', { type: 'call.ended', callId: 'call_w2', data: { status: 'failed' } });
      await emu.control('POST', '/events', { type: 'eval.run.completed', data: { runId: 'run_9' } });
      await until('4 attempts', () => rx.got.length === 4);
      await until('the refusal printed', () => listen.stdout().includes('"refused"'));
      listen.interrupt();
      const res = await listen.done;
      expect(res.code).toBe(130);
      const ids = rx.got.map((r) => r.headers['x-service-event-id']);
      expect(ids[0]).toBe(ids[1]);
      expect(ids[1]).toBe(ids[2]);
      expect(ids[3]).not.toBe(ids[0]);
      expect(new Set(rx.got.slice(0, 3).map((r) => r.body)).size).toBe(1);
      expect(rx.got.every((r) => r.validSignature)).toBe(true);
      const lines = res.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => [l.status, l.outcome, l.attempt])).toEqual([
        [503, 'retry', 1],
        [500, 'retry', 2],
        [200, 'delivered', 3],
        [400, 'refused', 1],
      ]);
    } finally {
      await rx.close();
    }
  });

  it('refuses a missing or non-http --forward-to with exit 2', async () => {
    expect((await runCli(['webhooks', 'listen'], { env })).code).toBe(2);
    const res = await runCli(['webhooks', 'listen', '--forward-to', 'ftp://localhost/x'], { env });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('not an http(s) URL');
  });
});
