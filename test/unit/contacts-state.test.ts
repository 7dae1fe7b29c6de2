import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultStatePath, ImportState, inputIdentity, StateFileError } from '../../src/contacts/state.js';

function fresh(dir: string) {
  return ImportState.fresh(join(dir, 'leads.csv.vap-import.json'), {
    listId: 'cl_1',
    input: { path: join(dir, 'leads.csv'), size: 10, mtimeMs: 1, head: 'abc' },
    options: { format: 'csv', delimiter: ',', mapping: { phone: 'phone' }, batchSize: 2, defaultCountry: null },
    baseline: { createdAt: null, ids: [] },
  });
}

describe('import state file', () => {
  it("is in the state directory by default, keyed by server, organization, list and the file's content, never the key itself", () => {
    const env = { VAP_STATE_DIR: '/s' };
    const key = { baseUrl: 'http://127.0.0.1:4010', apiKey: 'key_secret_1', listId: 'cl_1', input: { size: 10, head: 'abc' } };
    const p = defaultStatePath(env, key);
    expect(p).toMatch(/^\/s\/imports\/cl_1-[0-9a-f]{24}\.json$/);
    expect(p).not.toContain('key_secret_1');
    expect(defaultStatePath(env, { ...key, baseUrl: 'http://127.0.0.1:4010/' })).toBe(p);
    for (const other of [
      { baseUrl: 'http://127.0.0.1:4011' },
      { apiKey: 'key_secret_2' },
      { listId: 'cl_2' },
      { input: { size: 11, head: 'abc' } },
      { input: { size: 10, head: 'abd' } },
    ]) {
      expect(defaultStatePath(env, { ...key, ...other })).not.toBe(p);
    }
    expect(defaultStatePath({ XDG_STATE_HOME: '/x' }, key)).toMatch(/\/vap\/imports\/cl_1-[0-9a-f]{24}\.json$/);
  });

  it('saves atomically (no temporary file left, mode 0600) and reads back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-state-'));
    const s = fresh(dir);
    s.beginSend({ i: 0, from: 1, to: 3, n: 2 });
    await s.save();
    expect(readdirSync(dir)).toEqual(['leads.csv.vap-import.json']);
    expect(statSync(s.path).mode & 0o777).toBe(0o600);
    const back = await ImportState.read(s.path);
    expect(back?.open).toEqual([{ i: 0, from: 1, to: 3, n: 2, st: 'sending', at: expect.any(String) }]);
    expect(new ImportState(s.path, back!).sending()?.i).toBe(0);
  });

  it('folds finished batches at the front into the prefix, keeping job ids and batches with rejected rows', () => {
    const s = fresh(mkdtempSync(join(tmpdir(), 'vap-state-')));
    for (const [i, from] of [
      [0, 1],
      [1, 3],
      [2, 6],
    ] as const) {
      s.beginSend({ i, from, to: from + 1, n: 2 });
      s.sent(i, `job_${i}`);
    }
    s.finished(1, { status: 'completed', ok: 1, bad: 1, createdAt: '2026-01-01T00:00:02.000Z' });
    expect(s.data.prefix.batches).toBe(0); // batch 0 still open
    s.finished(0, { status: 'completed', ok: 2, bad: 0, createdAt: '2026-01-01T00:00:01.000Z' });
    expect(s.data.prefix).toEqual({ batches: 2, rows: 4, ok: 3, bad: 1, to: 4 });
    expect(s.data.withErrors).toEqual([[1, 'job_1', 1]]);
    expect(s.data.open.map((r) => r.i)).toEqual([2]);
    expect(s.record(0)).toBe('done');
    expect(s.record(2)).toMatchObject({ st: 'sent', job: 'job_2' });
    expect(s.record(3)).toBeUndefined();
    expect([...s.knownJobIds()].sort()).toEqual(['job_0', 'job_1', 'job_2']);
    expect(s.data.lastCreatedAt).toBe('2026-01-01T00:00:02.000Z');
    expect(s.doneTotals()).toEqual({ batches: 2, rows: 4, ok: 3, bad: 1 });
  });

  it('forgets a batch that never reached the server', () => {
    const s = fresh(mkdtempSync(join(tmpdir(), 'vap-state-')));
    s.beginSend({ i: 0, from: 1, to: 2, n: 2 });
    s.forget(0);
    expect(s.record(0)).toBeUndefined();
    expect(s.sending()).toBeUndefined();
  });

  it('refuses a file that is not a state file, or is damaged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-state-'));
    writeFileSync(join(dir, 'a.json'), '{"kind":"other"}');
    writeFileSync(join(dir, 'b.json'), '{"kind":');
    await expect(ImportState.read(join(dir, 'a.json'))).rejects.toThrow(StateFileError);
    await expect(ImportState.read(join(dir, 'b.json'))).rejects.toThrow(/not valid JSON/);
    expect(await ImportState.read(join(dir, 'none.json'))).toBeUndefined();
  });

  it('knows a live owner on this machine from a dead one', () => {
    const s = fresh(mkdtempSync(join(tmpdir(), 'vap-state-')));
    expect(ImportState.runningOwner(s.data)).toBeUndefined(); // this process
    s.data.owner = { pid: process.ppid, host: hostname() };
    expect(ImportState.runningOwner(s.data)).toBe(process.ppid);
    s.data.owner = { pid: 2 ** 22 + 12345, host: hostname() };
    expect(ImportState.runningOwner(s.data)).toBeUndefined();
    s.data.owner = { pid: process.ppid, host: 'elsewhere' };
    expect(ImportState.runningOwner(s.data)).toBeUndefined();
  });

  it('identifies the input by size, mtime and a hash of its first bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-state-'));
    const p = join(dir, 'x.csv');
    writeFileSync(p, 'a,b\n1,2\n');
    const a = await inputIdentity(p);
    writeFileSync(p, 'a,b\n1,3\n');
    const b = await inputIdentity(p);
    expect(a.size).toBe(b.size);
    expect(a.head).not.toBe(b.head);
  });
});
