import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { StateFileError } from '../../src/emulator/persist/files.js';
import { startEmulator } from '../../src/emulator/server.js';
import { Store } from '../../src/emulator/store.js';

// What a start does with a data directory whose files were damaged after the emulator had
// acknowledged what they hold: a complete journal record that fails its checksum (anywhere,
// the last one included), a missing journal generation, an empty journal, a record taken
// out, a journal cut at a record boundary before the next generation, a journal of another
// snapshot. Each stops the start with one error naming the file and the byte or generation,
// and leaves the files as they were; --repair keeps what comes before the damage and moves
// the rest aside. Only a last record cut short (a crash mid-append, never acknowledged) is
// dropped by itself. Then the lock: one emulator per data directory.

const root = mkdtempSync(join(tmpdir(), 'vap-journal-damage-'));
let n = 0;
const fresh = () => join(root, `d${n++}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const J1 = 'state.journal.000001.jsonl';
const journal = (gen: number) => `state.journal.${String(gen).padStart(6, '0')}.jsonl`;

function dump(store: Store): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, id, v] of store.records()) out[`${k} ${id}`] = v;
  return out;
}

const keys = (count: number, from = 0) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`org/c k${from + i}`, from + i]));

/** A data directory with `count` records k0.. each acknowledged by its own commit (one journal line each). */
async function written(count: number, dir = fresh(), opts: { compactMinBytes?: number } = {}): Promise<string> {
  const s = await Store.open({ dataDir: dir, ...opts });
  const c = s.collection<number>('org', 'c');
  for (let i = 0; i < count; i++) {
    c.set(`k${i}`, i);
    await s.commit();
  }
  await s.close();
  return dir;
}

/** Byte offsets where each line of a file starts. */
function lineStarts(file: string): number[] {
  const buf = readFileSync(file);
  const starts = [0];
  for (let i = buf.indexOf(10); i >= 0 && i < buf.length - 1; i = buf.indexOf(10, i + 1)) starts.push(i + 1);
  return starts;
}

function flipBit(file: string, at: number, bit = 0x01): void {
  const buf = readFileSync(file);
  buf[at]! ^= bit;
  writeFileSync(file, buf);
}

/** Every file of the folder with its bytes: a refused start must leave them exactly as they were. */
function contents(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f)).toString('base64')]));
}

async function refused(dir: string): Promise<StateFileError> {
  const before = contents(dir);
  const err = await Store.open({ dataDir: dir }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(StateFileError);
  expect((err as Error).message).not.toContain('\n');
  expect(contents(dir)).toEqual(before);
  return err as StateFileError;
}

async function opened(dir: string, repair = false): Promise<{ state: Record<string, unknown>; warned: string[] }> {
  const warned: string[] = [];
  const s = await Store.open({ dataDir: dir, repair, warn: (l) => warned.push(l) });
  const state = dump(s);
  await s.close();
  return { state, warned };
}

describe('a complete record that fails its checksum', () => {
  it('stops the start when it is the last one (acknowledged with its fdatasync), naming the file and the byte; --repair keeps the records before it', async () => {
    const dir = await written(5);
    const file = join(dir, J1);
    const last = lineStarts(file).at(-1)!;
    flipBit(file, last + 20);
    const err = await refused(dir);
    expect(err.message).toContain(`${file} is damaged at byte ${last} (record 5 fails its checksum)`);
    expect(err.message).toMatch(/start with --repair to keep the 4 records before it/);

    const dropped = readFileSync(file).subarray(last);
    const r = await opened(dir, true);
    expect(r.state).toEqual(keys(4));
    expect(r.warned).toHaveLength(1);
    expect(r.warned[0]).toContain(
      `${file}: --repair kept the 4 records before byte ${last} and moved the ${dropped.length} bytes from there (1 record) to state.set-aside.`,
    );
    // what was dropped is kept aside, byte for byte
    const aside = readdirSync(dir).filter((f) => f.startsWith('state.set-aside.'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dir, aside[0]!))).toEqual(dropped);
    expect(statSync(file).size).toBe(last);
    // then it is a healthy folder again: new records after the kept ones, a silent start
    const s = await Store.open({ dataDir: dir });
    s.collection<number>('org', 'c').set('k9', 9);
    await s.commit();
    await s.close();
    expect(await opened(dir)).toEqual({ state: { ...keys(4), 'org/c k9': 9 }, warned: [] });
  });

  it.each([
    ['in the CRC of a middle record', 2, 3],
    ['in the body of the first record', 1, 30],
    ["that turns a record's newline into another byte (two records read as one)", 3, -1],
  ])('stops the start for a flipped bit %s', async (_what, line, at) => {
    const dir = await written(5);
    const file = join(dir, J1);
    const starts = lineStarts(file);
    const pos = at >= 0 ? starts[line]! + at : starts[line + 1]! - 1;
    flipBit(file, pos);
    const err = await refused(dir);
    expect(err.message).toContain(`${file} is damaged at byte ${starts[line]} (record ${line} fails its checksum)`);
    const r = await opened(dir, true);
    expect(r.state).toEqual(keys(line - 1));
  });

  it('stops the start for a damaged journal header (byte 0); --repair starts on what comes before the journal', async () => {
    // in its format name, then further on
    const early = await written(3);
    flipBit(join(early, J1), 15);
    expect((await refused(early)).message).toContain(`${join(early, J1)} is damaged at byte 0 (it does not begin with a journal header (damaged or missing))`);
    const dir = await written(3);
    const file = join(dir, J1);
    flipBit(file, 60);
    const err = await refused(dir);
    expect(err.message).toContain(`${file} is damaged at byte 0 (its header fails its checksum or is cut short)`);
    expect(err.message).toContain('keep none of its records');
    const r = await opened(dir, true);
    expect(r.state).toEqual({});
    expect(readdirSync(dir).filter((f) => f.startsWith('state.set-aside.'))).toHaveLength(1);
    expect(await opened(dir)).toEqual({ state: {}, warned: [] });
  });

  it('stops the start when a record was taken out of the middle (records are numbered)', async () => {
    const dir = await written(5);
    const file = join(dir, J1);
    const lines = readFileSync(file, 'utf8').split('\n');
    const starts = lineStarts(file);
    writeFileSync(file, [...lines.slice(0, 3), ...lines.slice(4)].join('\n'));
    const err = await refused(dir);
    expect(err.message).toContain(`${file} is damaged at byte ${starts[3]} (record 3 is numbered 4: a record is missing or out of place)`);
  });
});

describe('a last record cut short by a crash (written, never acknowledged)', () => {
  it('is dropped with one line, and everything before it kept', async () => {
    const dir = await written(4);
    const file = join(dir, J1);
    const size = statSync(file).size;
    const cut = '1a2b3c4d {"n":5,"t":1,"ids":{},"o":[["s","org/c","k4",';
    writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.from(cut)]));
    const r = await opened(dir);
    expect(r.state).toEqual(keys(4));
    expect(r.warned).toEqual([
      `${file}: dropped an incomplete last record (${cut.length} bytes, cut short by a crash while it was written, so never acknowledged); everything before it is kept`,
    ]);
    expect(statSync(file).size).toBe(size);
  });

  it('is kept when it is whole and only its newline is missing or damaged', async () => {
    for (const how of ['missing', 'damaged'] as const) {
      const dir = await written(3);
      const file = join(dir, J1);
      const buf = readFileSync(file);
      if (how === 'missing') writeFileSync(file, buf.subarray(0, buf.length - 1));
      else flipBit(file, buf.length - 1);
      const r = await opened(dir);
      expect(r.state).toEqual(keys(3));
      expect(r.warned).toHaveLength(1);
      expect(r.warned[0]).toContain(`its newline was ${how}; the record is kept`);
      expect(readFileSync(file)).toEqual(buf);
    }
  });
});

describe('journal generations', () => {
  /** Writes `count` records with compactions under way; returns the generation the snapshot names. */
  async function compacted(count: number): Promise<{ dir: string; gen: number }> {
    const dir = fresh();
    const s = await Store.open({ dataDir: dir, compactMinBytes: 400 });
    const c = s.collection<string>('org', 'c');
    for (let i = 0; i < count; i++) {
      c.set(`k${i}`, 'x'.repeat(40));
      await s.commit();
    }
    await new Promise((r) => setTimeout(r, 100));
    await s.close();
    const header = JSON.parse(readFileSync(join(dir, 'state.snapshot.jsonl'), 'utf8').split('\n')[0]!) as { journal: number };
    return { dir, gen: header.journal };
  }

  it('stops the start when the journal the snapshot names is deleted (nothing else names it)', async () => {
    const { dir, gen } = await compacted(30);
    expect(gen).toBeGreaterThan(1);
    const file = join(dir, journal(gen));
    expect(statSync(file).size).toBeGreaterThan(0);
    unlinkSync(file);
    const err = await refused(dir);
    expect(err.message).toContain(`${file} is missing (state.snapshot.jsonl continues into it, so the changes made after the snapshot would be lost)`);
    expect(err.message).toContain('--repair');
    // --repair starts from the snapshot alone, with a new journal for it
    const r = await opened(dir, true);
    expect(Object.keys(r.state).length).toBeGreaterThan(0);
    expect(Object.keys(r.state).length).toBeLessThan(30);
    expect(r.warned).toHaveLength(1);
    expect(existsSync(file)).toBe(true);
    expect((await opened(dir)).warned).toEqual([]);
  });

  it('reads a compaction that stopped before its rename (old snapshot naming N, journals N and N+1) whole; stops the start when N is deleted or cut at a record boundary', async () => {
    // The layout such a stop leaves: the old snapshot naming N, journal N, and journal N+1
    // (made by the compaction, its header naming the size N ended at).
    const { dir, gen } = await compacted(12);
    const keep = join(root, `keep${n++}`);
    mkdirSync(keep);
    const s = await Store.open({ dataDir: dir });
    s.collection<string>('org', 'c').set('late', 'y');
    await s.commit();
    copyFileSync(join(dir, 'state.snapshot.jsonl'), join(keep, 'snapshot'));
    copyFileSync(join(dir, journal(gen)), join(keep, 'journal'));
    await (s as unknown as { journal: { compact(): Promise<void> } }).journal.compact();
    s.collection<string>('org', 'c').set('later', 'z');
    await s.commit();
    const memory = dump(s);
    await s.close();
    expect(existsSync(join(dir, journal(gen)))).toBe(false);
    copyFileSync(join(keep, 'snapshot'), join(dir, 'state.snapshot.jsonl'));
    const restore = () => copyFileSync(join(keep, 'journal'), join(dir, journal(gen)));
    restore();
    expect(
      readdirSync(dir)
        .filter((f) => f.startsWith('state.journal.'))
        .sort(),
    ).toEqual([journal(gen), journal(gen + 1)]);
    expect(await opened(dir)).toEqual({ state: memory, warned: [] });
    // the start replaced the old snapshot by nothing: the layout is the same again
    copyFileSync(join(keep, 'snapshot'), join(dir, 'state.snapshot.jsonl'));
    restore();

    // Journal N deleted, N+1 there.
    unlinkSync(join(dir, journal(gen)));
    expect((await refused(dir)).message).toContain(`${join(dir, journal(gen))} is missing`);

    // Journal N cut at a record boundary: every record left checks out, but N+1's header says where N ended.
    restore();
    const starts = lineStarts(join(dir, journal(gen)));
    const size = statSync(join(dir, journal(gen))).size;
    truncateSync(join(dir, journal(gen)), starts.at(-1)!);
    const err = await refused(dir);
    expect(err.message).toContain(
      `${join(dir, journal(gen))} is damaged at byte ${starts.at(-1)} (it ends at byte ${starts.at(-1)}, but ${journal(gen + 1)} says it ended at byte ${size}: its last records were cut off)`,
    );
  });

  it('stops the start when the first journal continues another snapshot', async () => {
    const { dir, gen } = await compacted(10);
    const file = join(dir, journal(gen));
    const lines = readFileSync(file, 'utf8').split('\n');
    const header = JSON.parse(lines[0]!.slice(9)) as { snapshot: string };
    const mine = header.snapshot;
    header.snapshot = '0123456789abcdef';
    lines[0] = `${crc32(Buffer.from(JSON.stringify(header)))
      .toString(16)
      .padStart(8, '0')} ${JSON.stringify(header)}`;
    writeFileSync(file, lines.join('\n'));
    const err = await refused(dir);
    expect(err.message).toContain(`${file} is damaged at byte 0 (it continues snapshot 0123456789abcdef, but state.snapshot.jsonl is snapshot ${mine})`);
  });

  it('stops the start when the snapshot is deleted and the journal names it (no --repair for that)', async () => {
    const { dir, gen } = await compacted(10);
    unlinkSync(join(dir, 'state.snapshot.jsonl'));
    const err = await refused(dir);
    expect(err.message).toContain(`${join(dir, 'state.snapshot.jsonl')} is missing (the journal ${join(dir, journal(gen))} continues from`);
    const again = await Store.open({ dataDir: dir, repair: true }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(StateFileError);
  });
});

describe('an empty journal', () => {
  it('stops the start when the only journal (no snapshot yet) was truncated to 0 bytes', async () => {
    const dir = await written(30);
    const file = join(dir, J1);
    truncateSync(file, 0);
    const err = await refused(dir);
    expect(err.message).toContain(`${file} is damaged at byte 0 (it is empty, but a journal always begins with its header: its records were cut off)`);
    const r = await opened(dir, true);
    expect(r.state).toEqual({});
    expect(r.warned).toHaveLength(1);
  });

  it('stops the start when the journal the snapshot continues into was truncated to 0 bytes; --repair keeps the snapshot', async () => {
    const dir = fresh();
    const s = await Store.open({ dataDir: dir });
    const c = s.collection<number>('org', 'c');
    for (let i = 0; i < 5; i++) c.set(`k${i}`, i);
    await s.commit();
    await (s as unknown as { journal: { compact(): Promise<void> } }).journal.compact();
    for (let i = 5; i < 8; i++) {
      c.set(`k${i}`, i);
      await s.commit();
    }
    await s.close();
    const j = readdirSync(dir).find((f) => f.startsWith('state.journal.'))!;
    truncateSync(join(dir, j), 0);
    const err = await refused(dir);
    expect(err.message).toContain(`${join(dir, j)} is damaged at byte 0`);
    const r = await opened(dir, true);
    expect(r.state).toEqual(keys(5));
  });

  it('is the fresh state of a brand new folder only when there is no journal at all', async () => {
    const dir = fresh();
    const r = await opened(dir);
    expect(r).toEqual({ state: {}, warned: [] });
    // the new folder got its first journal, with its header, and an empty snapshot naming it, at once
    const lines = readFileSync(join(dir, J1), 'utf8').split('\n');
    expect(lines).toHaveLength(2);
    const snapshot = JSON.parse(readFileSync(join(dir, 'state.snapshot.jsonl'), 'utf8').split('\n')[0]!) as { id: string };
    expect(snapshot).toMatchObject({ format: 'vap-emulator-snapshot', version: 3, journal: 1, init: true });
    expect(JSON.parse(lines[0]!.slice(9))).toMatchObject({ format: 'vap-emulator-journal', version: 3, gen: 1, snapshot: snapshot.id, prev: null });
    expect(await opened(dir)).toEqual({ state: {}, warned: [] });
  });

  it("a folder never compacted: its only journal deleted stops the start (the new folder's snapshot names it); its empty snapshot deleted loses nothing", async () => {
    const dir = await written(30);
    unlinkSync(join(dir, J1));
    const err = await refused(dir);
    expect(err.message).toContain(`${join(dir, J1)} is missing (state.snapshot.jsonl continues into it`);

    const other = await written(30);
    unlinkSync(join(other, 'state.snapshot.jsonl'));
    expect(await opened(other)).toEqual({ state: keys(30), warned: [] });
  });
});

describe('folders written before journal headers (snapshot version 2, headerless journals)', () => {
  const line = (json: string) => `${crc32(Buffer.from(json)).toString(16).padStart(8, '0')} ${json}\n`;
  const batch = (ops: unknown[], ids: Record<string, number>) => line(JSON.stringify({ t: 1_800_000_000_000, ids, o: ops }));
  function snapshotV2(gen: number, records: Array<[string, string, unknown]>): string {
    const body = `${JSON.stringify({ format: 'vap-emulator-snapshot', version: 2, journal: gen, savedAt: '2026-11-24T09:49:03.540Z' })}\n${records.map((r) => `${JSON.stringify(r)}\n`).join('')}`;
    return `${body}${JSON.stringify({ end: true, records: records.length, crc32: crc32(Buffer.from(body)), meta: { simNowMs: 1_800_000_000_000, idCounters: { ag: 2 } } })}\n`;
  }

  it('are read whole (an empty old journal included) and rewritten in the current format', async () => {
    const dir = fresh();
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(
      join(dir, 'state.snapshot.jsonl'),
      snapshotV2(3, [
        ['org/c', 'a', 1],
        ['org/c', 'b', 2],
      ]),
    );
    writeFileSync(join(dir, journal(3)), '');
    writeFileSync(
      join(dir, journal(4)),
      batch(
        [
          ['s', 'org/c', 'c', 3],
          ['d', 'org/c', 'a'],
        ],
        { ag: 3 },
      ) + batch([['s', 'org/c', 'd', 4]], { ag: 4 }),
    );
    const warned: string[] = [];
    const s = await Store.open({ dataDir: dir, warn: (l) => warned.push(l) });
    expect(dump(s)).toEqual({ 'org/c b': 2, 'org/c c': 3, 'org/c d': 4 });
    expect(s.restored?.idCounters).toEqual({ ag: 4 });
    await s.close();
    expect(warned).toEqual([]);
    const snap = JSON.parse(readFileSync(join(dir, 'state.snapshot.jsonl'), 'utf8').split('\n')[0]!) as { version: number; journal: number };
    expect(snap.version).toBe(3);
    expect(readdirSync(dir).filter((f) => f.startsWith('state.journal.'))).toEqual([journal(snap.journal)]);
    expect(await opened(dir)).toEqual({ state: { 'org/c b': 2, 'org/c c': 3, 'org/c d': 4 }, warned: [] });
  });

  it('with no snapshot: a headerless journal 1 is read and rewritten; an empty one is refused, and --repair starts empty', async () => {
    const dir = fresh();
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, J1), batch([['s', 'org/c', 'x', 1]], { ag: 1 }));
    expect((await opened(dir)).state).toEqual({ 'org/c x': 1 });
    expect(existsSync(join(dir, 'state.snapshot.jsonl'))).toBe(true);

    const empty = fresh();
    mkdirSync(empty, { mode: 0o700 });
    writeFileSync(join(empty, J1), '');
    const err = await refused(empty);
    expect(err.message).toContain('is damaged at byte 0');
    expect((await opened(empty, true)).state).toEqual({});
  });
});

describe('the lock of a data directory', () => {
  it('refuses a second emulator while the first has it open, naming its pid; a clean stop releases it', async () => {
    const dir = await written(1);
    const first = await Store.open({ dataDir: dir });
    const lock = readFileSync(join(dir, 'state.lock'), 'utf8');
    expect(JSON.parse(lock)).toMatchObject({ pid: process.pid, host: hostname() });
    const err = await Store.open({ dataDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateFileError);
    expect((err as Error).message).toMatch(
      new RegExp(`${dir} is in use by another emulator \\(pid ${process.pid}, started [^)]+\\); stop that emulator first`),
    );
    // the refused start left the lock alone
    expect(readFileSync(join(dir, 'state.lock'), 'utf8')).toBe(lock);
    await first.close();
    expect(existsSync(join(dir, 'state.lock'))).toBe(false);
    const second = await Store.open({ dataDir: dir });
    expect(dump(second)).toEqual(keys(1));
    await second.close();
  });

  it('takes over the lock of a process that is gone, or of an earlier boot of this machine', async () => {
    const dir = await written(1);
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(gone.stdout);
    writeFileSync(join(dir, 'state.lock'), JSON.stringify({ pid: deadPid, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z', token: 'dead' }));
    expect((await opened(dir)).state).toEqual(keys(1));
    // pid 1 is alive on every machine, but this lock was written before the last boot
    writeFileSync(
      join(dir, 'state.lock'),
      JSON.stringify({ pid: 1, host: hostname(), boot: 'an-earlier-boot', startedAt: '2026-01-01T00:00:00.000Z', token: 'old' }),
    );
    if (existsSync('/proc/sys/kernel/random/boot_id')) expect((await opened(dir)).state).toEqual(keys(1));
    expect(existsSync(join(dir, 'state.lock'))).toBe(false);
  });

  it('is released when the emulator cannot listen (its port is taken)', async () => {
    const dir = await written(1);
    const taken = await startEmulator({ port: 0 });
    try {
      const err = await startEmulator({ port: taken.port, dataDir: dir }).catch((e: unknown) => e);
      expect((err as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
      expect(existsSync(join(dir, 'state.lock'))).toBe(false);
    } finally {
      await taken.close();
    }
  });

  it("never takes over a live process's lock, nor one written on another host", async () => {
    const dir = await written(1);
    writeFileSync(join(dir, 'state.lock'), JSON.stringify({ pid: 1, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z', token: 'init' }));
    expect((await refused(dir)).message).toContain('is in use by another emulator (pid 1,');
    writeFileSync(join(dir, 'state.lock'), JSON.stringify({ pid: 999_999_999, host: 'another-host', startedAt: '2026-01-01T00:00:00.000Z', token: 'far' }));
    expect((await refused(dir)).message).toContain('is in use by another emulator (pid 999999999 on another-host,');
  });
});
