import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
});

describe('vap agents list (skeleton)', () => {
  it('retries a 503 on GET and then succeeds', async () => {
    await emu.fault({ method: 'GET', path: '/api/v1/agents', status: 503, count: 2, retryAfter: 0 });
    const r = await runCli(['agents', 'list'], { env: cliEnv(emu.url, ORG_A.apiKey) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
