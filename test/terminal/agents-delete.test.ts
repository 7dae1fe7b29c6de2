import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

let emu: TestEmulator;

async function createAgent(name: string): Promise<string> {
  const res = await fetch(`${emu.url}/api/v1/agents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ORG_A.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, instructions: 'Answer the phone politely.', engine: 'realtime' }),
  });
  return ((await res.json()) as { data: { id: string } }).data.id;
}

async function agentStatus(id: string): Promise<number> {
  return (await fetch(`${emu.url}/api/v1/agents/${id}`, { headers: { authorization: `Bearer ${ORG_A.apiKey}` } })).status;
}

describe.skipIf(!hasTmux())('agents delete in a real terminal (tmux)', () => {
  beforeAll(async () => {
    assertBuilt();
    emu = await startTestEmulator();
  });
  afterAll(async () => {
    await emu?.close();
  });

  const run = (id: string) =>
    new TmuxSession(`node ${shellQuote(BIN)} agents delete ${id}`, {
      env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1', TERM: 'xterm-256color' },
    });

  it('asks for confirmation and deletes when answered yes', async () => {
    const id = await createAgent('Doomed');
    const tty = run(id);
    try {
      const screen = await tty.waitFor(/delete/i);
      expect(screen).toContain(id);
      tty.sendKeys('y', 'Enter');
      expect(await tty.exitCode()).toBe(0);
      expect(await agentStatus(id)).toBe(404);
    } finally {
      tty.kill();
    }
  });

  it('keeps the agent when answered no', async () => {
    const id = await createAgent('Kept');
    const tty = run(id);
    try {
      await tty.waitFor(/delete/i);
      tty.sendKeys('n', 'Enter');
      expect(await tty.exitCode()).not.toBe(0);
      expect(await agentStatus(id)).toBe(200);
    } finally {
      tty.kill();
    }
  });
});
