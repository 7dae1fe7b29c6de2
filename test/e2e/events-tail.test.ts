import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { shellQuote } from '../helpers/tmux.js';

let emu: TestEmulator;
let env: Record<string, string>;

async function until(what: string, pred: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const openStreams = async () => (await emu.control<{ open: number }>('GET', '/streams')).open;

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NO_COLOR: '1',
    VAP_BASE_URL: emu.url,
    VAP_API_KEY: ORG_A.apiKey,
    VAP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vap-e2e-events-')),
  };
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  await until('no stream left open', async () => (await openStreams()) === 0);
});

describe('vap events tail (built binary)', () => {
  it('--json | head -3 prints three events and exits 0 when the pipe closes', async () => {
    const child = execa('bash', ['-c', `node ${shellQuote(BIN)} events tail --json | head -3; echo "vap exited \${PIPESTATUS[0]}" >&2`], {
      env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    let exited = false;
    void child.finally(() => (exited = true));
    await until('the stream open', async () => (await openStreams()) >= 1);
    // A live stream: events keep coming. A closed pipe is seen on the first write after head
    // has gone (no process can see it sooner), and vap exits 0 then.
    for (let i = 0; i < 200 && !exited; i++) {
      await emu.control('POST', '/events', {
        type: 'call.status.updated',
        callId: 'call_pipe',
        data: { status: 'ringing', previousStatus: 'initiated' },
        count: 3,
      });
      await new Promise((r) => setTimeout(r, 50));
    }
    const r = await child;
    expect(r.exitCode).toBe(0);
    const lines = String(r.stdout).trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(['call.status.updated', 'call.status.updated', 'call.status.updated']);
    expect(String(r.stderr)).toContain('vap exited 0');
  });

  it('Ctrl-C (SIGINT) prints the last id with the command that resumes, and exits 130', async () => {
    const child = execa('node', [BIN, 'events', 'tail', '--types', 'call.ended'], { env, extendEnv: false, reject: false, stdin: 'ignore' });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    await until('the stream open', async () => (await openStreams()) >= 1);
    await emu.control('POST', '/events', { type: 'call.ended', callId: 'call_sigint', data: { status: 'completed', durationSeconds: 3, engine: 'realtime' } });
    await until('the event printed', () => out.includes('call_sigint'));
    const id = out.trim().split('\t')[0]!;
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(String(r.stderr)).toContain(`last event id ${id}; resume with: vap events tail --types call.ended --last-event-id ${id}`);
  });
});
