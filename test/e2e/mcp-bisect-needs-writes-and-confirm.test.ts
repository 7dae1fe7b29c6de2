// vap_agents_bisect places eval calls on preview copies: the built `vap mcp` refuses it
// without --allow-writes, and without confirm equal to the agent id, sending nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { connectStdio, textOf } from '../helpers/mcp.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu?.close();
});

describe('vap_agents_bisect', () => {
  it('is refused read-only and without confirm; nothing is written', async () => {
    const agentId = (await emu.api('POST', '/api/v1/agents', { name: 'Front desk', engine: 'realtime', instructions: 'Greet callers.' })).body.data
      .id as string;
    const args = { agentId, suite: 'ev_x', good: 1, bad: 2, maxCalls: 100 };
    await emu.clearRequests();
    const ro = await connectStdio(emu);
    try {
      const r = await ro.call('vap_agents_bisect', { ...args, confirm: agentId });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/vap_agents_bisect was refused: this server is read-only/);
    } finally {
      await ro.close();
    }
    const rw = await connectStdio(emu, ['--allow-writes']);
    try {
      const r = await rw.call('vap_agents_bisect', args);
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/vap_agents_bisect was refused: it changes agent .* no confirm was given/);
    } finally {
      await rw.close();
    }
    expect((await emu.requests()).filter((x) => x.method !== 'GET')).toEqual([]);
  }, 60_000);
});
