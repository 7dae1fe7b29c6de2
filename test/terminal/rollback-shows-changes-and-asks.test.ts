import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

// `vap agents rollback` in a real terminal: it prints what will change (the instructions as a
// diff, the voice, the tools) and asks, as `delete` does; "no" changes nothing and exits 0,
// "yes" rolls back.

let emu: TestEmulator;

async function data<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const r = await emu.api<{ data: T }>(method, path, body);
  expect(r.status, path).toBeLessThan(300);
  return r.body.data;
}

/** An agent at version 4: instructions changed, then a voice, then two tools. */
async function agentWithHistory(name: string): Promise<string> {
  const id = (await data<{ id: string }>('POST', '/api/v1/agents', { name, engine: 'realtime', instructions: 'Greet callers.' })).id;
  await data('PATCH', `/api/v1/agents/${id}`, { instructions: 'Greet callers.\nBook appointments.' });
  const voices = (await data<{ voices: Array<{ id: string; name: string }> }>('GET', '/api/v1/voices')).voices;
  await data('PUT', `/api/v1/agents/${id}/voice`, { voiceId: voices.find((v) => v.name === 'Lucía')!.id });
  const tools = (await emu.control<{ orgs: Array<{ tools: Array<{ id: string }> }> }>('GET', `/tools?org=${ORG_A.name}`)).orgs[0]!.tools;
  await data('PUT', `/api/v1/agents/${id}/tools`, { toolIds: [tools[0]!.id, tools[1]!.id] });
  return id;
}

describe.skipIf(!hasTmux())('agents rollback in a real terminal (tmux)', () => {
  beforeAll(async () => {
    assertBuilt();
    emu = await startTestEmulator();
  });
  afterAll(async () => {
    await emu?.close();
  });

  async function answer(id: string, key: 'y' | 'n'): Promise<{ screen: string; code: number }> {
    const tty = new TmuxSession(`node ${shellQuote(BIN)} agents rollback ${id} --version 1 --reason ${shellQuote('start over')}`, {
      env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1', TERM: 'xterm-256color' },
    });
    try {
      const asked = await tty.waitFor(/Roll agent .* back to version 1\?/);
      // The changes are on screen before the question.
      expect(asked).toContain('back to version 1 changes:');
      expect(asked).toMatch(/ {4}-Book appointments\./);
      expect(asked).toContain('voice: Lucía (es-ES) → Ava (en-US)');
      expect(asked).toContain('tools: - Calendar booking, - CRM lookup');
      tty.sendKeys(key, 'Enter');
      const code = await tty.exitCode();
      return { screen: tty.capture(), code };
    } finally {
      tty.kill();
    }
  }

  it('no: nothing changes, it says so, exit 0', async () => {
    const id = await agentWithHistory('Kept desk');
    const r = await answer(id, 'n');
    expect(r.code).toBe(0);
    expect(r.screen).toContain(`nothing changed: agent Kept desk (${id}) was kept as it is`);
    expect((await data<{ currentVersion: number }>('GET', `/api/v1/agents/${id}`)).currentVersion).toBe(4);
  });

  it('yes: rolls back to version 1, voice and tools included', async () => {
    const id = await agentWithHistory('Reset desk');
    const r = await answer(id, 'y');
    expect(r.code).toBe(0);
    expect(r.screen).toContain(`Rolled agent ${id} back to version 1; the new current version is 5`);
    expect((await data<{ voice: { name: string } }>('GET', `/api/v1/agents/${id}`)).voice.name).toBe('Ava');
    expect((await data<{ tools: unknown[] }>('GET', `/api/v1/agents/${id}/tools`)).tools).toEqual([]);
  });
});
