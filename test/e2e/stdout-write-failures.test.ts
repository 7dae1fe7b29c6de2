// A failed write to stdout other than a closed pipe (EPIPE) is one line on stderr and
// exit 1, not a Node stack trace: `vap agents list > /dev/full` (ENOSPC), for a table, for
// JSON, for ids, and for a tail that writes as events arrive. A closed pipe stays exit 0.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
let env: Record<string, string>;

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
  for (let i = 0; i < 3; i++) await emu.api('POST', '/api/v1/agents', { name: `Agent ${i}`, instructions: 'Hi.', engine: 'realtime', variables: [] });
  await emu.control('POST', '/events', { type: 'call.started', callId: 'call_full_1', data: { calleeName: 'Ana' } });
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NO_COLOR: '1',
    VAP_BASE_URL: emu.url,
    VAP_API_KEY: ORG_A.apiKey,
    VAP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vap-full-')),
  };
});
afterAll(async () => {
  await emu?.close();
});

/** Runs vap with stdout on /dev/full (every write fails with ENOSPC); returns its exit code and stderr. */
function toDevFull(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync('/dev/full', 'w');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', fd, 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      closeSync(fd);
      resolve({ code, stderr });
    });
  });
}

const ONE_LINE =
  /^error: cannot write to standard output: no space left on the device \(ENOSPC\); check where the output goes \(a full disk, a closed file\)\n$/;

describe.skipIf(!existsSync('/dev/full'))('stdout that cannot be written (/dev/full)', () => {
  for (const args of [
    ['agents', 'list'],
    ['agents', 'list', '--json'],
    ['agents', 'list', '-q'],
    ['agents', 'list', '-o', 'ndjson'],
  ]) {
    it(`vap ${args.join(' ')} > /dev/full: one line, exit 1`, async () => {
      const r = await toDevFull(args);
      expect(r.stderr).toMatch(ONE_LINE);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(r.code).toBe(1);
    });
  }

  it('a tail writing as events arrive: one line, exit 1', async () => {
    const r = await toDevFull(['events', 'tail', '--last-event-id', '0', '--timeout', '5s']);
    expect(r.stderr).toMatch(/^error: cannot write to standard output: no space left on the device \(ENOSPC\)/m);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error: '))).toHaveLength(1);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.code).toBe(1);
  });

  it('a closed pipe is still not an error', async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'agents', 'list', '-q'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.stdout.destroy();
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
