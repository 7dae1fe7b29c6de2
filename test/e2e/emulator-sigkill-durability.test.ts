import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/built.js';
import { startHookSink, type HookSink } from '../helpers/hook-sink.js';
import { startEmulatorProcess, type EmulatorProcess } from '../helpers/emulator-process.js';
import { emptyAcked, waitFor, writeBurst, type Acked, type Api } from '../helpers/emulator-workload.js';

// "Durable before acknowledged": the emulator (the built binary, --data-dir) is killed with
// SIGKILL at a random moment while four clients write at once and its calls run, ten times
// over, each time restarted on the same folder. Every agent and version, import job (with
// its exact row counts), campaign call and webhook endpoint whose creation was answered is
// there after each restart, and no deleted agent comes back. Compactions run under the
// load too (a small threshold), so kills also land while a snapshot is being written.

const ROUNDS = 10;
const WORKERS = 4;
const dir = mkdtempSync(join(tmpdir(), 'vap-sigkill-'));
const data = join(dir, 'state');
const ARGS = ['--data-dir', data, '--time-scale', '1000', '--allow-loopback-urls', '--seed', '3'];
const ENV = { VAP_EMULATOR_COMPACT_BYTES: '400000' };
let receiver: HookSink;
let hook: string;

beforeAll(async () => {
  assertBuilt();
  receiver = await startHookSink();
  hook = receiver.url;
});
afterAll(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Everything acknowledged is there (import jobs may still be running: their counts so far are consistent). */
async function check(emu: EmulatorProcess, acked: Acked, final: boolean): Promise<void> {
  const api = emu.api;
  for (const [id, a] of acked.agents) {
    const got = await api('GET', `/api/v1/agents/${id}`);
    expect(got.status, `agent ${id}`).toBe(200);
    expect(got.body.data.currentVersion, `agent ${id}`).toBeGreaterThanOrEqual(a.version);
    const versions = (await api('GET', `/api/v1/agents/${id}/versions?limit=200`)).body.data.versions as Array<{ versionNumber: number; instructions: string }>;
    for (const [n, text] of a.instructions) expect(versions.find((v) => v.versionNumber === n)?.instructions, `agent ${id} version ${n}`).toBe(text);
  }
  for (const id of acked.deletedAgents) expect((await api('GET', `/api/v1/agents/${id}`)).status, `deleted agent ${id}`).toBe(404);
  for (const [id, j] of acked.jobs) {
    const got = await api('GET', `/api/v1/import-jobs/${id}`);
    expect(got.status, `job ${id}`).toBe(200);
    const p = got.body.progress;
    expect(p.total, `job ${id}`).toBe(j.total);
    expect(p.processed, `job ${id}`).toBe(p.successful + p.failed);
    const count = (await api('GET', `/api/v1/contact-lists/${j.listId}`)).body.data.contactCount;
    // the list holds exactly the job's imported rows so far: none lost, none twice
    expect(count, `list of job ${id}`).toBe(p.successful);
    if (final) {
      expect(got.body.status, `job ${id}`).toBe('completed');
      expect(p, `job ${id}`).toEqual({ total: j.total, processed: j.total, successful: j.valid, failed: j.total - j.valid });
      expect(got.body.errors, `job ${id}`).toHaveLength(j.total - j.valid);
    }
  }
  for (const id of acked.calls) expect((await api('GET', `/api/v1/calls/${id}`)).status, `call ${id}`).toBe(200);
  for (const id of acked.endpoints) expect((await api('GET', `/api/v1/webhook-endpoints/${id}`)).status, `endpoint ${id}`).toBe(200);
}

describe('SIGKILL under concurrent writes, ten times', () => {
  it('loses nothing that was acknowledged', async () => {
    const acked = emptyAcked();
    for (let round = 1; round <= ROUNDS; round++) {
      const emu = await startEmulatorProcess(ARGS, ENV);
      await check(emu, acked, false);
      // Writes from four clients at once until the kill; a request cut off by it is not acknowledged.
      let killed = false;
      const api: Api = async (method, path, body) => {
        if (killed) throw new Error('killed');
        return emu.api(method, path, body);
      };
      const workers = Array.from({ length: WORKERS }, async (_, w) => {
        for (let i = 0; !killed; i++) await writeBurst(api, acked, `r${round}w${w}i${i}`, hook).catch(() => undefined);
      });
      await new Promise((r) => setTimeout(r, 150 + Math.random() * 900));
      killed = true;
      await emu.kill();
      await Promise.all(workers);
    }
    expect(acked.agents.size).toBeGreaterThan(ROUNDS);
    expect(acked.jobs.size).toBeGreaterThan(ROUNDS);
    expect(acked.calls.size).toBeGreaterThan(ROUNDS);
    // the state was compacted into a snapshot along the way (kills landed around compactions)
    expect(existsSync(join(data, 'state.snapshot.jsonl'))).toBe(true);
    const last = await startEmulatorProcess(ARGS, ENV);
    try {
      await check(last, acked, false);
      // The jobs a kill interrupted resume from their stored progress and end with exact counts.
      await waitFor(async () => {
        for (const id of acked.jobs.keys()) if ((await last.api('GET', `/api/v1/import-jobs/${id}`)).body.status !== 'completed') return false;
        return true;
      }, 60_000);
      await check(last, acked, true);
      // every start was silent: no torn record to report, no damaged file
      expect(last.stderr()).toBe('');
    } finally {
      await last.stop();
    }
  });
});
