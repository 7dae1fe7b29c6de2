import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/built.js';
import { failedStart, startEmulatorProcess, type EmulatorProcess } from '../helpers/emulator-process.js';

// `vap emulator start --data-dir` never forgets what it acknowledged: a journal damaged after
// the fact (a flipped bit in the last record answered 201, the generation the snapshot names
// deleted, a journal truncated to 0 bytes) stops the start with one line naming the file and
// the byte or generation (exit 1), and `--repair` starts on what comes before the damage. Two
// emulators never share a folder: the second refuses and names the first one's pid; the lock
// goes with a clean stop, and a SIGKILLed emulator's lock is taken over.

const root = mkdtempSync(join(tmpdir(), 'vap-data-dir-refusals-'));
let n = 0;
const fresh = () => join(root, `d${n++}`);

beforeAll(() => assertBuilt());
afterAll(() => rmSync(root, { recursive: true, force: true }));

const lines = (stderr: string) => stderr.split('\n').filter((l) => l.trim() !== '');
const journals = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /^state\.journal\.\d+\.jsonl$/.test(f))
    .sort();

async function createAgents(emu: EmulatorProcess, count: number, prefix = 'a'): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await emu.api('POST', '/api/v1/agents', { name: `${prefix}${i}`, instructions: 'x'.repeat(100), engine: 'realtime' });
    expect(res.status).toBe(201);
    ids.push(res.body.data.id);
  }
  return ids;
}

describe('a journal damaged after it was acknowledged', () => {
  it('a flipped bit in the last complete record stops the start (one line: the file, the byte, --repair); --repair keeps the records before it', async () => {
    const dir = fresh();
    const emu = await startEmulatorProcess(['--data-dir', dir]);
    const ids = await createAgents(emu, 5);
    await emu.stop();
    const file = join(dir, journals(dir).at(-1)!);
    const buf = readFileSync(file);
    const last = buf.lastIndexOf(10, buf.length - 2) + 1;
    buf[last + 40]! ^= 0x04;
    writeFileSync(file, buf);

    const bad = await failedStart(['--data-dir', dir, '--org', 'acme:k']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(lines(bad.stderr)).toHaveLength(1);
    expect(bad.stderr).toContain(`${file} is damaged at byte ${last} (record 5 fails its checksum)`);
    expect(bad.stderr).toContain('--repair');
    expect(readFileSync(file)).toEqual(buf);

    const repaired = await startEmulatorProcess(['--data-dir', dir, '--repair']);
    try {
      expect(lines(repaired.stderr())).toHaveLength(1);
      expect(repaired.stderr()).toContain(`--repair kept the 4 records before byte ${last}`);
      for (const id of ids.slice(0, 4)) expect((await repaired.api('GET', `/api/v1/agents/${id}`)).status).toBe(200);
      expect((await repaired.api('GET', `/api/v1/agents/${ids[4]}`)).status).toBe(404);
      await createAgents(repaired, 1, 'after');
    } finally {
      await repaired.stop();
    }
    const again = await startEmulatorProcess(['--data-dir', dir]);
    try {
      expect((await again.api('GET', '/api/v1/agents')).body.meta.pagination.total).toBe(5);
      expect(again.stderr()).toBe('');
    } finally {
      await again.stop();
    }
  });

  it('the journal generation the snapshot names, deleted, stops the start (30 agents, never 24)', async () => {
    const dir = fresh();
    const env = { VAP_EMULATOR_COMPACT_BYTES: '3000' };
    const emu = await startEmulatorProcess(['--data-dir', dir], env);
    await createAgents(emu, 30);
    await emu.stop();
    const snapshot = JSON.parse(readFileSync(join(dir, 'state.snapshot.jsonl'), 'utf8').split('\n')[0]!) as { journal: number };
    const named = `state.journal.${String(snapshot.journal).padStart(6, '0')}.jsonl`;
    expect(journals(dir)).toContain(named);
    unlinkSync(join(dir, named));
    const bad = await failedStart(['--data-dir', dir]);
    expect(bad.code).toBe(1);
    expect(lines(bad.stderr)).toHaveLength(1);
    expect(bad.stderr).toContain(`${join(dir, named)} is missing`);
  });

  it('a journal truncated to 0 bytes stops the start', async () => {
    const dir = fresh();
    const emu = await startEmulatorProcess(['--data-dir', dir]);
    await createAgents(emu, 3);
    await emu.stop();
    const file = join(dir, journals(dir).at(-1)!);
    truncateSync(file, 0);
    const bad = await failedStart(['--data-dir', dir]);
    expect(bad.code).toBe(1);
    expect(lines(bad.stderr)).toHaveLength(1);
    expect(bad.stderr).toContain(`${file} is damaged at byte 0 (it is empty`);
  });

  it('--repair without --data-dir is a usage error', async () => {
    const bad = await failedStart(['--repair']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--repair needs --data-dir');
  });
});

describe('two emulators on one --data-dir', () => {
  it("the second refuses to start and names the first one's pid; a clean stop releases the folder, a SIGKILLed emulator's lock is taken over", async () => {
    const dir = fresh();
    const first = await startEmulatorProcess(['--data-dir', dir]);
    let ids: string[];
    try {
      const second = await failedStart(['--data-dir', dir, '--org', 'acme:other']);
      expect(second.code).toBe(1);
      expect(second.stdout).toBe('');
      expect(lines(second.stderr)).toHaveLength(1);
      expect(second.stderr).toContain(`${dir} is in use by another emulator (pid ${first.child.pid},`);
      ids = await createAgents(first, 10);
    } finally {
      await first.stop();
    }
    expect(existsSync(join(dir, 'state.lock'))).toBe(false);

    const killed = await startEmulatorProcess(['--data-dir', dir]);
    ids.push(...(await createAgents(killed, 10, 'b')));
    await killed.kill();
    expect(JSON.parse(readFileSync(join(dir, 'state.lock'), 'utf8')).pid).toBe(killed.child.pid);

    const next = await startEmulatorProcess(['--data-dir', dir]);
    try {
      expect(next.stderr()).toBe('');
      for (const id of ids) expect((await next.api('GET', `/api/v1/agents/${id}`)).status).toBe(200);
      expect(JSON.parse(readFileSync(join(dir, 'state.lock'), 'utf8')).pid).toBe(next.child.pid);
    } finally {
      await next.stop();
    }
  });
});
