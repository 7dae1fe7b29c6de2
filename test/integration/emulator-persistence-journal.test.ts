import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/emulator/store.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { everyKind } from '../helpers/emulator-workload.js';

// --data-dir: every change is journaled where it is made. After a workload that touches
// every kind of record (with compactions into a snapshot under way), what a restart reads
// from the folder is exactly the state the emulator held in memory.

let receiver: http.Server;
let url: string;
const dirs: string[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = req.url?.endsWith('/fail') ? 500 : 200;
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise((r) => receiver.close(r));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dump(store: Store): Map<string, string> {
  const m = new Map<string, string>();
  for (const [key, id, value] of store.records()) m.set(`${key} ${id}`, JSON.stringify(value));
  return m;
}

describe('what a restart reads back', () => {
  it('is the state held in memory, after every kind of change and several compactions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-journal-'));
    dirs.push(dir);
    const data = join(dir, 'state');
    const emu = await startTestEmulator({ dataDir: data, allowLoopbackUrls: true, timeScale: 2000, compactMinBytes: 64 * 1024 });
    await everyKind(emu.api, emu.control, url);
    await emu.close();

    const files = readdirSync(data);
    expect(files).toContain('state.snapshot.jsonl');
    expect(files.some((f) => /^state\.journal\.\d+\.jsonl$/.test(f))).toBe(true);
    // compacted at least once: the journal generation moved past 1
    expect(files.some((f) => f === 'state.journal.000001.jsonl')).toBe(false);
    // the files hold webhook secrets and contacts: 0600 in a 0700 folder
    expect(statSync(data).mode & 0o777).toBe(0o700);
    for (const f of files) expect(statSync(join(data, f)).mode & 0o777, f).toBe(0o600);

    const memory = dump(emu.store);
    const reread = await Store.open({ dataDir: data });
    const disk = dump(reread);
    await reread.close();
    const missing = [...memory.keys()].filter((k) => !disk.has(k));
    const extra = [...disk.keys()].filter((k) => !memory.has(k));
    const differ = [...memory.keys()].filter((k) => disk.has(k) && disk.get(k) !== memory.get(k));
    expect({ missing: missing.slice(0, 5), extra: extra.slice(0, 5), differ: differ.slice(0, 5) }).toEqual({ missing: [], extra: [], differ: [] });
    expect(memory.size).toBeGreaterThan(300);
  });
});
