import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StateFileError } from '../../src/emulator/persist/files.js';
import { Store } from '../../src/emulator/store.js';

// The store's journal and snapshot, in-process: what a restart reads back, how concurrent
// commits share one write, and how damaged or left-over files are handled at start.

const root = mkdtempSync(join(tmpdir(), 'vap-store-'));
let n = 0;
const fresh = () => join(root, `d${n++}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

// The records of every journal (each file begins with its header line, left out here).
const journalLines = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith('state.journal.'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean).slice(1));

function dump(store: Store): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, id, v] of store.records()) out[`${k} ${id}`] = v;
  return out;
}

describe('the journal', () => {
  it('keeps sets, in-place changes, deletes and clears across a restart, with the id counters and the clock', async () => {
    const dir = fresh();
    const s = await Store.open({ dataDir: dir });
    let ids = 0;
    s.setMeta(() => ({ simNowMs: 1000 + ids, idCounters: { ag: ids } }));
    const a = s.collection<{ n: number }>('org', 'agents');
    ids = 3;
    a.set('a1', { n: 1 });
    a.set('a2', { n: 2 });
    a.set('a3', { n: 3 });
    await s.commit();
    a.get('a1')!.n = 10;
    a.touch('a1');
    a.delete('a2');
    const b = s.collection<number>('org', 'other');
    b.set('x', 1);
    b.clear();
    b.set('y', 2);
    await s.commit();
    await s.close();
    const again = await Store.open({ dataDir: dir });
    expect(dump(again)).toEqual({ 'org/agents a1': { n: 10 }, 'org/agents a3': { n: 3 }, 'org/other y': 2 });
    expect(again.restored).toEqual({ simNowMs: 1003, idCounters: { ag: 3 } });
    // insertion order survives too
    expect([...again.collection('org', 'agents').keys()]).toEqual(['a1', 'a3']);
    await again.close();
  });

  it('writes the changes of concurrent commits together: one line per group, each change once', async () => {
    const dir = fresh();
    const s = await Store.open({ dataDir: dir });
    const c = s.collection<number>('org', 'c');
    const commits: Array<Promise<void>> = [];
    for (let i = 0; i < 50; i++) {
      c.set(`k${i}`, i);
      commits.push(s.commit());
    }
    await Promise.all(commits);
    const lines = journalLines(dir);
    expect(lines.length).toBeLessThan(50);
    expect(lines.length).toBeGreaterThanOrEqual(1);
    const ops = lines.flatMap((l) => JSON.parse(l.slice(9)).o as unknown[][]);
    expect(ops.filter((o) => o[0] === 's').map((o) => o[2])).toEqual(Array.from({ length: 50 }, (_, i) => `k${i}`));
    await s.close();
  });

  it('runs afterDurable callbacks in order, once what came before them is on disk (at once without a data directory)', async () => {
    const mem = await Store.open();
    const seen: number[] = [];
    mem.afterDurable(() => seen.push(0));
    expect(seen).toEqual([0]);
    const dir = fresh();
    const s = await Store.open({ dataDir: dir });
    const c = s.collection<number>('org', 'e');
    for (let i = 1; i <= 5; i++) {
      c.set(String(i), i);
      s.afterDurable(() => {
        seen.push(i);
        // its own change is in the journal already
        expect(journalLines(dir).some((l) => l.includes(`"${i}",${i}]`))).toBe(true);
      });
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
    await s.close();
  });
});

describe('compaction', () => {
  it('rewrites the state as a snapshot while changes go on, then drops the journals it replaces', async () => {
    const dir = fresh();
    const s = await Store.open({ dataDir: dir, compactMinBytes: 20_000 });
    const c = s.collection<{ i: number; pad: string }>('org', 'big');
    for (let i = 0; i < 2000; i++) {
      c.set(`r${i}`, { i, pad: 'x'.repeat(50) });
      if (i % 100 === 0) await s.commit();
      if (i % 7 === 0 && i > 0) c.delete(`r${i - 1}`);
    }
    await s.commit();
    await new Promise((r) => setTimeout(r, 300));
    const memory = dump(s);
    await s.close();
    const files = readdirSync(dir);
    expect(files).toContain('state.snapshot.jsonl');
    expect(files).not.toContain('state.journal.000001.jsonl');
    const again = await Store.open({ dataDir: dir });
    expect(dump(again)).toEqual(memory);
    await again.close();
  });
});

describe('at start', () => {
  it('refuses a journal damaged anywhere but its last record, naming the file', async () => {
    const dir = fresh();
    const s = await Store.open({ dataDir: dir });
    const c = s.collection<number>('org', 'c');
    for (let i = 0; i < 3; i++) {
      c.set(`k${i}`, i);
      await s.commit();
    }
    await s.close();
    const file = join(dir, 'state.journal.000001.jsonl');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"k1",1', '"k1",7'));
    const err = await Store.open({ dataDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateFileError);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toMatch(/damaged at byte \d+ \(record 2 fails its checksum\)/);
  });

  // Changed by the rule that a complete record is acknowledged: a last record that fails its
  // checksum used to be dropped as torn; it now stops the start (test/unit/emulator-journal-damage.test.ts).
  it('refuses a last complete record that fails its checksum, and --repair keeps the records before it', async () => {
    const dir = fresh();
    const s = await Store.open({ dataDir: dir });
    s.collection<number>('org', 'c').set('k', 1);
    await s.commit();
    s.collection<number>('org', 'c').set('j', 2);
    await s.commit();
    await s.close();
    const file = join(dir, 'state.journal.000001.jsonl');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"j",2', '"j",3'));
    const err = await Store.open({ dataDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateFileError);
    const warned: string[] = [];
    const again = await Store.open({ dataDir: dir, repair: true, warn: (l) => warned.push(l) });
    expect(dump(again)).toEqual({ 'org/c k': 1 });
    expect(warned).toHaveLength(1);
    await again.close();
  });

  it('needs every journal generation from the snapshot on', async () => {
    const dir = fresh();
    const s = await Store.open({ dataDir: dir, compactMinBytes: 100 });
    const c = s.collection<string>('org', 'c');
    for (let i = 0; i < 30; i++) {
      c.set(`k${i}`, 'x'.repeat(40));
      await s.commit();
    }
    await new Promise((r) => setTimeout(r, 200));
    await s.close();
    // a journal older than the snapshot (left by a compaction that stopped before its clean-up) goes
    writeFileSync(join(dir, 'state.journal.000001.jsonl'), '');
    const journals = readdirSync(dir)
      .filter((f) => f.startsWith('state.journal.'))
      .sort();
    const reread = await Store.open({ dataDir: dir });
    expect(existsSync(join(dir, 'state.journal.000001.jsonl'))).toBe(false);
    await reread.close();
    // a missing generation after the snapshot's is a damaged state
    const gens = readdirSync(dir)
      .filter((f) => f.startsWith('state.journal.'))
      .sort();
    appendFileSync(join(dir, `state.journal.${String(Number(gens.at(-1)!.slice(14, 20)) + 2).padStart(6, '0')}.jsonl`), '');
    const err = await Store.open({ dataDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateFileError);
    expect((err as Error).message).toMatch(/is missing/);
    expect(journals.length).toBeGreaterThan(0);
  });
});
