import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

// A call that never connected has no conversation, so no analysis ("once completed, AI
// analysis", document 2 part 1): `vap calls get` says so instead of promising one, and
// `vap calls tail` ends after its call.ended instead of waiting for an analysis.

let emu: TestEmulator;
let failed: string;

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  emu = await startTestEmulator();
  const agent = (await emu.api('POST', '/api/v1/agents', { name: 'Caller', instructions: 'You call people.', engine: 'realtime' })).body.data.id;
  const c = (await emu.api('POST', '/api/v1/campaigns', { name: 'API', type: 'api', agentId: agent })).body.data.id;
  await emu.api('POST', `/api/v1/campaigns/${c}/start`);
  // Triggered calls until one of them fails (12% do not answer, 5% are busy).
  failed = await until('a call that did not connect', async () => {
    await emu.api('POST', `/api/v1/campaigns/${c}/trigger`, { phoneNumber: '+14155550123' });
    const list = (await emu.api('GET', `/api/v1/calls?campaignId=${c}&status=failed&pageSize=1`)).body.data.calls;
    return list[0]?.id as string | undefined;
  });
});
afterAll(async () => {
  await emu.close();
});

describe('a call that did not connect', () => {
  it('vap calls get says it has no analysis because it did not connect', async () => {
    const r = await runCli(['calls', 'get', failed], { env: cliEnv(emu.url, ORG_A.apiKey), tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No analysis: the call did not connect, so there was no conversation to analyse.');
  });

  it('vap calls tail ends after its call.ended', async () => {
    const r = await runCli(['calls', 'tail', failed, '--timeout', '20s'], { env: cliEnv(emu.url, ORG_A.apiKey) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('call.ended');
    expect(r.stderr).toContain(`call ${failed} is over: it did not connect, so no analysis follows`);
  });
});
