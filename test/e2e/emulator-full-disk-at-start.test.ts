import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/built.js';
import { failedStart, startEmulatorProcess, type EmulatorProcess } from '../helpers/emulator-process.js';
import { mountTmpfs, tmpfsUnavailable, type Tmpfs } from '../helpers/tmpfs.js';

// `vap emulator start --data-dir` on a disk that is full (a small tmpfs: a real ENOSPC): the
// writes it cannot journal are answered 503 and never shown, a stop is clean, and a start on the
// full disk is refused in one line naming the folder and the fix (exit 1), leaving the folder as
// it found it: no state.lock.takeover, no lock, no journal or snapshot cut short.

if (tmpfsUnavailable) console.warn(`skipped: the full-disk start tests: ${tmpfsUnavailable}`);

beforeAll(() => assertBuilt());

const lines = (stderr: string) => stderr.split('\n').filter((l) => l.trim() !== '');
/** Every file of the folder with its size. */
const files = (dir: string) => Object.fromEntries(readdirSync(dir).map((f) => [f, statSync(join(dir, f)).size]));

async function withTmpfs(bytes: number, fn: (disk: Tmpfs) => Promise<void>): Promise<void> {
  const disk = mountTmpfs(bytes);
  try {
    await fn(disk);
  } finally {
    disk.unmount();
  }
}

/** Creates agents until the disk is full: the names acknowledged, and the first one refused. */
async function fillWithAgents(emu: EmulatorProcess): Promise<{ acked: string[]; refused: string }> {
  const acked: string[] = [];
  for (let i = 0; i < 1000; i++) {
    const name = `agent-${i}`;
    const res = await emu.api('POST', '/api/v1/agents', { name, instructions: 'x'.repeat(3000), engine: 'realtime' });
    if (res.status === 201) {
      acked.push(name);
      continue;
    }
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('persistence_failed');
    return { acked, refused: name };
  }
  throw new Error('the disk never filled up');
}

async function listedNames(emu: EmulatorProcess): Promise<string[]> {
  const res = await emu.api('GET', '/api/v1/agents?pageSize=200');
  expect(res.status).toBe(200);
  return res.body.data.agents.map((a: { name: string }) => a.name);
}

function expectFullDiskLine(res: { code: number | null; stdout: string; stderr: string }, dir: string): void {
  expect(res.code).toBe(1);
  expect(res.stdout).toBe('');
  expect(lines(res.stderr)).toHaveLength(1);
  expect(res.stderr).toContain(`${dir} cannot be written: its disk is full (ENOSPC`);
  expect(res.stderr).toContain('free space on that disk, or pass another --data-dir');
  expect(res.stderr).not.toContain('unexpected');
}

describe.skipIf(tmpfsUnavailable !== undefined)('vap emulator start --data-dir on a full disk (a small tmpfs)', () => {
  it('after the emulator that filled it was SIGKILLed (its lock left behind): one line naming the folder and the fix, exit 1, the folder as it was; once there is space, everything acknowledged and nothing refused', async () => {
    await withTmpfs(512 * 1024, async (disk) => {
      const dir = join(disk.dir, 'state');
      const emu = await startEmulatorProcess(['--data-dir', dir]);
      const { acked, refused } = await fillWithAgents(emu);
      expect(acked.length).toBeGreaterThan(0);
      // Said once on stderr, when it happened; every later request is refused too, reads included.
      expect(lines(emu.stderr())).toHaveLength(1);
      expect(emu.stderr()).toContain(`could not write the journal in ${dir} (ENOSPC`);
      expect((await emu.api('GET', '/api/v1/agents')).status).toBe(503);
      await emu.kill();

      const filler = disk.fill();
      const before = files(dir);
      expect(before['state.lock']).toBeGreaterThan(0);
      expectFullDiskLine(await failedStart(['--data-dir', dir]), dir);
      expect(files(dir)).toEqual(before);

      rmSync(filler);
      const again = await startEmulatorProcess(['--data-dir', dir]);
      try {
        expect(lines(again.stderr())).toEqual([]);
        const names = await listedNames(again);
        expect(names).toEqual(acked);
        expect(names).not.toContain(refused);
      } finally {
        await again.stop();
      }
    });
  });

  it('after a clean stop (SIGTERM, no lock left): the stop says nothing more, and the start on the full disk leaves no lock', async () => {
    await withTmpfs(512 * 1024, async (disk) => {
      const dir = join(disk.dir, 'state');
      const emu = await startEmulatorProcess(['--data-dir', dir]);
      await fillWithAgents(emu);
      await emu.stop();
      expect(emu.child.exitCode).toBe(0);
      expect(lines(emu.stderr())).toEqual([expect.stringContaining(`could not write the journal in ${dir} (ENOSPC`), 'emulator stopped']);
      expect(existsSync(join(dir, 'state.lock'))).toBe(false);

      disk.fill();
      const before = files(dir);
      expectFullDiskLine(await failedStart(['--data-dir', dir]), dir);
      expect(files(dir)).toEqual(before);
    });
  });

  it('a new --data-dir on a full disk: one line naming it, and no folder left behind', async () => {
    await withTmpfs(256 * 1024, async (disk) => {
      disk.fill();
      const dir = join(disk.dir, 'new', 'state');
      expectFullDiskLine(await failedStart(['--data-dir', dir]), dir);
      expect(existsSync(join(disk.dir, 'new'))).toBe(false);
    });
  });
});
