import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/emulator/store.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { mountTmpfs, tmpfsUnavailable } from '../helpers/tmpfs.js';

// A change the emulator answers 503 because its journal could not be written (a full or
// failing disk) is seen by no one: not by a read, a stream or a webhook, before or after a
// restart on the same --data-dir. What was acknowledged before the failure survives it.
// The disk fails on demand (POST /_emulator/faults/journal), and for real on a small tmpfs.

const root = mkdtempSync(join(tmpdir(), 'vap-refused-writes-'));
let n = 0;
const fresh = () => join(root, `d${n++}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

if (tmpfsUnavailable) console.warn(`skipped: the full-disk (tmpfs) tests: ${tmpfsUnavailable}`);

type Warned = string[];
async function emulatorOn(dataDir: string, warned: Warned = [], timeScale = 1000): Promise<TestEmulator> {
  return startTestEmulator({ dataDir, allowLoopbackUrls: true, timeScale, warn: (line) => warned.push(line) });
}

function dump(records: Iterable<[string, string, unknown]>): Map<string, string> {
  const m = new Map<string, string>();
  for (const [key, id, value] of records) m.set(`${key} ${id}`, JSON.stringify(value));
  return m;
}

const agentBody = (name: string, size = 100) => ({ name, instructions: 'x'.repeat(size), engine: 'realtime' });

/** The agents the emulator holds in memory by name: a refused create is there, which is the danger. */
function agentsInMemory(emu: TestEmulator): Map<string, string> {
  const byName = new Map<string, string>();
  for (const [key, id, value] of emu.store.records()) {
    if (key.endsWith('/agents')) byName.set((value as { config: { name: string } }).config.name, id);
  }
  return byName;
}

async function listedNames(emu: TestEmulator): Promise<string[]> {
  const names: string[] = [];
  for (let page = 1; ; page++) {
    const res = await emu.api('GET', `/api/v1/agents?pageSize=200&page=${page}`);
    expect(res.status).toBe(200);
    names.push(...res.body.data.agents.map((a: { name: string }) => a.name));
    if (!res.body.meta.pagination.nextCursor) return names;
  }
}

function expectRefused(res: { status: number; body: any }, ...absent: string[]): void {
  expect(res.status).toBe(503);
  expect(res.body.error.code).toBe('persistence_failed');
  const text = JSON.stringify(res.body);
  for (const a of absent) expect(text).not.toContain(a);
}

/** An event stream read as it comes; `ended` resolves when the emulator closes it. */
function openStream(url: string): { text: () => string; ended: Promise<void>; close: () => void } {
  const ac = new AbortController();
  let text = '';
  const ended = (async () => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${ORG_A.apiKey}` }, signal: ac.signal });
    expect(res.status).toBe(200);
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
    } catch (err) {
      if (!ac.signal.aborted) throw err;
    }
  })();
  return { text: () => text, ended, close: () => ac.abort() };
}

interface Frame {
  id: string;
  event: string;
  data: string;
}
function frames(text: string): Frame[] {
  const out: Frame[] = [];
  for (const block of text.split('\n\n')) {
    const id = /^id: (.*)$/m.exec(block)?.[1];
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (id !== undefined && event !== undefined && data !== undefined) out.push({ id, event, data });
  }
  return out;
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never happened: ${what}`);
}

describe('a journal write that fails (injected)', () => {
  it.each([
    ['ENOSPC with every byte of the line but its newline written', { code: 'ENOSPC', torn: true }],
    ['ENOSPC before any byte is written', { code: 'ENOSPC' }],
    ['EIO at the fdatasync of a whole line', { code: 'EIO', during: 'sync' }],
  ])('%s: the creates answered 503 are in no listing and no GET, before or after a restart; those acknowledged survive', async (_title, fault) => {
    const dir = fresh();
    const warned: Warned = [];
    const emu = await emulatorOn(dir, warned);
    const acked: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await emu.api('POST', '/api/v1/agents', agentBody(`kept-${i}`));
      expect(res.status).toBe(201);
      acked.push(res.body.data.id);
    }

    expect(await emu.control('POST', '/faults/journal', fault)).toEqual({ journal: { during: 'write', torn: false, ...fault } });
    // Sent at once: their changes share group writes, the first of which fails.
    const refused = ['refused-0', 'refused-1', 'refused-2', 'refused-3', 'refused-4'];
    const answers = await Promise.all(refused.map((name) => emu.api('POST', '/api/v1/agents', agentBody(name))));
    for (const a of answers) expectRefused(a);
    expect(answers[0]!.body.error.message).toContain(`could not write the journal in ${dir} (${fault.code}`);
    expect(warned.filter((l) => l.includes('could not write the journal'))).toHaveLength(1);

    // Memory holds those whose handler ran before the failure (the attack is real; a request
    // that arrived after it was refused before its handler). No read shows them, nor anything else now.
    const memory = agentsInMemory(emu);
    const refusedIds = refused.filter((name) => memory.has(name)).map((name) => memory.get(name)!);
    expect(refusedIds.length).toBeGreaterThan(0);
    expectRefused(await emu.api('GET', '/api/v1/agents?pageSize=200'), ...refused, ...refusedIds);
    for (const id of refusedIds) expectRefused(await emu.api('GET', `/api/v1/agents/${id}`), ...refused);
    expectRefused(await emu.api('GET', `/api/v1/agents?search=refused`), ...refused);
    expectRefused(await emu.api('GET', `/api/v1/agents/${acked[0]}`));
    expectRefused(await emu.api('POST', '/api/v1/agents', agentBody('after-the-failure')));
    const health = await emu.control<{ ok: boolean; persistence: { dataDir: string; failed: string } }>('GET', '/health');
    expect(health.ok).toBe(false);
    expect(health.persistence).toEqual({ dataDir: dir, failed: expect.stringContaining(fault.code) });
    const log = await emu.requests();
    expect(log.filter((r) => r.method === 'POST' && r.status === 503)).toHaveLength(6);

    // A stop after the failure is clean: nothing more is written, the lock goes.
    await emu.close();
    expect(existsSync(join(dir, 'state.lock'))).toBe(false);
    const journal = readdirSync(dir).filter((f) => f.startsWith('state.journal.'));
    expect(readFileSync(join(dir, journal.at(-1)!)).toString('utf8')).not.toContain('refused-');

    const restartWarned: Warned = [];
    const again = await emulatorOn(dir, restartWarned);
    try {
      // Nothing to drop or keep at the end of the journal: the refused line was taken back out.
      expect(restartWarned).toEqual([]);
      expect((await listedNames(again)).sort()).toEqual(['kept-0', 'kept-1', 'kept-2']);
      for (const id of acked) expect((await again.api('GET', `/api/v1/agents/${id}`)).status).toBe(200);
      for (const id of refusedIds) expect((await again.api('GET', `/api/v1/agents/${id}`)).status).toBe(404);
      expect((await again.api('POST', '/api/v1/agents', agentBody('after-the-restart'))).status).toBe(201);
    } finally {
      await again.close();
    }
  });

  it('an event of a refused change is never streamed nor delivered to a webhook, before or after a restart', async () => {
    const received: string[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push(body);
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const dir = fresh();
    const emu = await emulatorOn(dir);
    const publish = (e: TestEmulator, marker: string) =>
      fetch(`${e.url}/_emulator/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'campaign.status.updated', data: { marker } }),
      });
    try {
      const endpoint = await emu.api('POST', '/api/v1/webhook-endpoints', { name: 'sink', url: hook, events: ['campaign.status.updated'] });
      expect(endpoint.status).toBe(201);
      const deliveries = `/api/v1/webhook-endpoints/${endpoint.body.data.id}/deliveries`;
      const stream = openStream(`${emu.url}/api/v1/events`);
      await until('the stream is open', async () => (await emu.control<{ open: number }>('GET', '/streams')).open === 1);
      expect((await publish(emu, 'before')).status).toBe(201);
      await until('the first event is streamed and delivered', () => stream.text().includes('"before"') && received.some((b) => b.includes('"before"')));
      // Its delivery is recorded as made (or a restart would, rightly, make it again).
      await until('the delivery is recorded', async () => (await emu.api('GET', deliveries)).body.data.deliveries?.[0]?.status === 'succeeded');

      await emu.control('POST', '/faults/journal', { code: 'ENOSPC', torn: true });
      const refused = await publish(emu, 'refused');
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('persistence_failed');
      // The emulator ends the streams when its disk fails; a new one is refused.
      await stream.ended;
      expect(stream.text()).not.toContain('"refused"');
      expect(frames(stream.text()).map((f) => JSON.parse(f.data).data.marker)).toEqual(['before']);
      expect((await fetch(`${emu.url}/api/v1/events`, { headers: { authorization: `Bearer ${ORG_A.apiKey}` } })).status).toBe(503);
      await emu.close();

      const again = await emulatorOn(dir);
      try {
        const replay = openStream(`${again.url}/api/v1/events?lastEventId=0`);
        expect((await publish(again, 'after')).status).toBe(201);
        await until('the next event is streamed and delivered', () => replay.text().includes('"after"') && received.some((b) => b.includes('"after"')));
        replay.close();
        expect(frames(replay.text()).map((f) => JSON.parse(f.data).data.marker)).toEqual(['before', 'after']);
        expect(received.map((b) => JSON.parse(b).data.marker)).toEqual(['before', 'after']);
      } finally {
        await again.close();
      }
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });

  it('background changes (calls of a running campaign) written in the failed batch are refused with it: every event streamed before is on disk after a restart, as it was streamed', async () => {
    const dir = fresh();
    // Slow enough that calls are still ringing and talking when the disk fails.
    const emu = await emulatorOn(dir, [], 50);
    const stream = openStream(`${emu.url}/api/v1/events`);
    const must = async (method: string, path: string, body?: unknown) => {
      const res = await emu.api(method, path, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    const agent = (await must('POST', '/api/v1/agents', agentBody('caller'))).data.id;
    const campaign = (await must('POST', '/api/v1/campaigns', { name: 'api', type: 'api', agentId: agent })).data.id;
    await must('POST', `/api/v1/campaigns/${campaign}/start`);
    for (let i = 0; i < 10; i++) await must('POST', `/api/v1/campaigns/${campaign}/trigger`, { phoneNumber: `+1415555${1000 + i}`, calleeName: `Callee ${i}` });
    await until('calls are under way', () => frames(stream.text()).length >= 5);

    // No request now: the next write is the simulator's own, in the background.
    await emu.control('POST', '/faults/journal', { code: 'ENOSPC', torn: true });
    await stream.ended;
    const seen = frames(stream.text());
    expectRefused(await emu.api('GET', '/api/v1/calls'));
    expectRefused(await emu.api('GET', `/api/v1/campaigns/${campaign}`));
    const memory = dump(emu.store.records());
    await emu.close();

    const reread = await Store.open({ dataDir: dir });
    const disk = dump(reread.records());
    await reread.close();
    // The failed batch held the simulator's changes: memory was ahead of the disk.
    expect([...memory].filter(([k, v]) => disk.get(k) !== v).length).toBeGreaterThan(0);

    const again = await emulatorOn(dir, [], 50);
    try {
      const replay = openStream(`${again.url}/api/v1/events?lastEventId=0`);
      await until('the replay is sent', () => /: replayed \d+/.test(replay.text()));
      replay.close();
      const replayed = frames(replay.text().slice(0, replay.text().search(/: replayed \d+/)));
      const onDisk = new Map(replayed.map((f) => [f.id, f]));
      expect(seen.length).toBeGreaterThanOrEqual(5);
      for (const f of seen) expect(onDisk.get(f.id), `event ${f.id} was streamed before the failure`).toEqual(f);
      expect((await again.api('GET', '/api/v1/calls')).status).toBe(200);
    } finally {
      await again.close();
    }
  });

  it('is armed only with --data-dir, and checked', async () => {
    const emu = await startTestEmulator();
    try {
      const res = await fetch(`${emu.url}/_emulator/faults/journal`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(409);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('no_data_dir');
    } finally {
      await emu.close();
    }
    const persisted = await emulatorOn(fresh());
    try {
      const bad = await fetch(`${persisted.url}/_emulator/faults/journal`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: 'EPERM' }),
      });
      expect(bad.status).toBe(400);
      await persisted.control('POST', '/faults/journal', { code: 'EIO' });
      expect((await persisted.control<{ journal: unknown }>('GET', '/faults')).journal).toEqual({ code: 'EIO', during: 'write', torn: false });
      await persisted.control('DELETE', '/faults');
      expect((await persisted.control<{ journal: unknown }>('GET', '/faults')).journal).toBeNull();
      expect((await persisted.api('POST', '/api/v1/agents', agentBody('written'))).status).toBe(201);
    } finally {
      await persisted.close();
    }
  });
});

describe.skipIf(tmpfsUnavailable !== undefined)('a disk that fills up for real (a 256 KiB tmpfs)', () => {
  let disk: ReturnType<typeof mountTmpfs>;
  beforeAll(() => {
    disk = mountTmpfs(256 * 1024);
  });
  afterAll(() => disk?.unmount());

  it('the creates answered 503 are in no listing and no GET, before or after a restart; every one acknowledged survives', async () => {
    const dir = join(disk.dir, 'state');
    const emu = await emulatorOn(dir);
    const acked = new Map<string, string>();
    const refused: string[] = [];
    for (let i = 0; i < 400 && refused.length < 20; i++) {
      const name = `agent-${i}`;
      const res = await emu.api('POST', '/api/v1/agents', agentBody(name, 3000));
      if (res.status === 201) acked.set(name, res.body.data.id);
      else {
        expectRefused(res);
        refused.push(name);
      }
    }
    expect(acked.size).toBeGreaterThan(0);
    expect(refused).toHaveLength(20);
    expect(refused[0]).toBe(`agent-${acked.size}`);

    // The first one refused reached its handler: memory holds it.
    const memory = agentsInMemory(emu);
    const refusedIds = refused.filter((name) => memory.has(name)).map((name) => memory.get(name)!);
    expect(memory.has(refused[0]!)).toBe(true);
    expectRefused(await emu.api('GET', '/api/v1/agents?pageSize=200'), ...refusedIds);
    for (const id of refusedIds.slice(0, 3)) expectRefused(await emu.api('GET', `/api/v1/agents/${id}`));
    await emu.close();

    const again = await emulatorOn(dir);
    try {
      const names = await listedNames(again);
      expect(names.sort()).toEqual([...acked.keys()].sort());
      for (const id of acked.values()) expect((await again.api('GET', `/api/v1/agents/${id}`)).status).toBe(200);
      for (const id of refusedIds) expect((await again.api('GET', `/api/v1/agents/${id}`)).status).toBe(404);
    } finally {
      await again.close();
    }
  });
});
