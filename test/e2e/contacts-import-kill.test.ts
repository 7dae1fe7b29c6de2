import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, vap } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/** The state file of an import of `file` (in VAP_STATE_DIR, found by the input path it records). */
function statePathOf(file: string): string {
  const d = join(env.VAP_STATE_DIR!, 'imports');
  for (const n of existsSync(d) ? readdirSync(d) : []) {
    if (!n.endsWith('.json')) continue;
    try {
      if (JSON.parse(readFileSync(join(d, n), 'utf8')).input?.path === resolvePath(file)) return join(d, n);
    } catch {
      // mid-rename or being written: not this one
    }
  }
  return join(d, 'none.json');
}

// A process killed with SIGKILL (no chance to clean up) at any moment, several
// times over, then resumed: every valid row ends in the list exactly once.

let emu: TestEmulator;
let env: Record<string, string>;
let dir: string;

const api = async <T = any>(method: string, path: string, body?: unknown): Promise<T> => (await emu.api<T>(method, path, body)).body;

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
  env = {
    VAP_BASE_URL: emu.url,
    VAP_API_KEY: ORG_A.apiKey,
    VAP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vap-e2e-')),
    VAP_STATE_DIR: mkdtempSync(join(tmpdir(), 'vap-e2e-state-')),
  };
  dir = mkdtempSync(join(tmpdir(), 'vap-e2e-kill-'));
});
afterAll(async () => {
  await emu.close();
});

function state(file: string): { jobs: Array<string | null>; open: Array<{ st: string; i: number }>; complete: boolean } | undefined {
  try {
    return JSON.parse(readFileSync(statePathOf(file), 'utf8'));
  } catch {
    return undefined; // not there yet (or mid-rename: never half written)
  }
}

describe('SIGKILL mid-import, then --resume', () => {
  it('imports every valid row exactly once', async () => {
    const listId = (
      await api<{ data: { id: string } }>('POST', '/api/v1/contact-lists', {
        name: 'kill',
        schema: {
          fields: [
            { name: 'name', type: 'string', required: true },
            { name: 'phone', type: 'phone', required: true },
          ],
        },
      })
    ).data.id;
    const valid = 400;
    const lines = ['name,phone'];
    for (let i = 0, v = 0; v < valid; i++) {
      if (i % 11 === 5) lines.push(`Bad ${i},0`);
      else lines.push(`P${v},+1415555${String(v++).padStart(4, '0')}`);
    }
    const file = join(dir, 'kill.csv');
    writeFileSync(file, `${lines.join('\n')}\n`);
    // Slow POSTs, so that kills land while batches are being sent.
    await emu.fault({ method: 'POST', path: `/api/v1/contact-lists/${listId}/contacts`, delayMs: 40, count: 10_000 });
    const args = ['contacts', 'import', listId, file, '--batch-size', '10', '--concurrency', '3', '--allow-invalid'];

    // Kill three times: after the first batches, then in the middle of a "sending" batch.
    for (const [round, atLeast] of [
      [0, 3],
      [1, 12],
      [2, 25],
    ] as const) {
      const child = execa('node', [BIN, ...args, ...(round === 0 ? [] : ['--resume'])], { env, reject: false, extendEnv: false });
      const deadline = Date.now() + 30_000;
      for (;;) {
        const s = state(file);
        const known = s ? s.jobs.filter(Boolean).length : 0;
        if (known >= atLeast && (round === 0 || s?.open.some((b) => b.st === 'sending'))) break;
        if (s?.complete) break;
        if (Date.now() > deadline) throw new Error(`round ${round}: no progress (${known} jobs known)`);
        await new Promise((r) => setTimeout(r, 2));
      }
      child.kill('SIGKILL');
      const res = await child;
      expect(res.signal).toBe('SIGKILL');
      expect(state(file)?.complete).toBe(false);
    }

    await fetch(`${emu.url}/_emulator/faults`, { method: 'DELETE' });
    const done = await vap([...args, '--resume', '--json'], { env });
    expect(done.exitCode).toBe(0);
    const summary = JSON.parse(done.stdout);
    expect(summary).toMatchObject({ complete: true, resumed: true, imported: valid, rejectedByServer: 0, jobs: valid / 10 });
    const list = await api<{ data: { contactCount: number } }>('GET', `/api/v1/contact-lists/${listId}`);
    expect(list.data.contactCount).toBe(valid);
    // Every phone once: no contact imported twice.
    const phones = new Set<string>();
    for (let page = 1; ; page++) {
      const r = await api<{ data: Array<{ phone: string }>; pagination: { totalPages: number } }>(
        'GET',
        `/api/v1/contact-lists/${listId}/contacts?limit=100&page=${page}`,
      );
      for (const c of r.data) phones.add(c.phone);
      if (page >= r.pagination.totalPages) break;
    }
    expect(phones.size).toBe(valid);
    const jobs = await api<{ data: unknown[]; pagination: { total: number } }>('GET', `/api/v1/import-jobs?contactListId=${listId}&limit=100`);
    expect(jobs.pagination.total).toBe(valid / 10);
    expect(existsSync(join(dir, 'kill.errors.csv'))).toBe(true);
  });
});
