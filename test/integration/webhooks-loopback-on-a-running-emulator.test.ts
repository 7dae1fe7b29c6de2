import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

// An emulator started without --allow-loopback-urls refuses a loopback webhook URL, as the
// platform refuses it, and says how to allow it without a restart (which would lose its state):
// the control path's switch. After it, the same command works; private addresses stay refused.

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-loopback-'));
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

const vap = (argv: string[]) => runCli(argv, { env: cliEnv(emu.url, ORG_A.apiKey) });
const create = (url: string, n: number) =>
  vap(['webhooks', 'create', '--name', `Local ${n}`, '--url', url, '--events', 'eval.run.completed', '--secret-file', join(dir, `secret-${n}`), '-q']);

describe('webhooks create with a loopback URL', () => {
  it('is refused by default, naming the switch of a running emulator; allowed after it, with the state kept', async () => {
    const agent = await vap(['agents', 'create', '--name', 'Front desk', '--engine', 'realtime', '--instructions', 'Greet callers.', '-q']);
    expect(agent.code).toBe(0);
    const refused = await create('http://127.0.0.1:3000/hook', 1);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /url refused: host 127\.0\.0\.1 is a loopback address \(start the emulator with --allow-loopback-urls to allow loopback\); a running emulator allows it at once after POST \/_emulator\/webhooks\/allow-loopback \{"allow": true\}/,
    );
    expect(await emu.control('POST', '/webhooks/allow-loopback', { allow: true })).toEqual({ allowLoopbackUrls: true });
    const allowed = await create('http://127.0.0.1:3000/hook', 2);
    expect([allowed.code, allowed.stderr]).toEqual([0, '']);
    expect(allowed.stdout.trim()).toMatch(/^we_\w+$/);
    // Nothing was lost: the agent made before is still there.
    expect((await vap(['agents', 'list', '-q'])).stdout.trim().split('\n')).toContain(agent.stdout.trim());
    // Loopback only: a private address is refused, without the loopback hint.
    const priv = await create('http://192.168.1.20/hook', 3);
    expect(priv.code).toBe(1);
    expect(priv.stderr).toMatch(/url refused: host 192\.168\.1\.20 is a private address/);
    expect(priv.stderr).not.toMatch(/allow-loopback/);
  });
});
