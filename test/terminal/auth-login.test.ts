import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

let emu: TestEmulator;

describe.skipIf(!hasTmux())('auth login in a real terminal (tmux)', () => {
  beforeAll(async () => {
    assertBuilt();
    emu = await startTestEmulator();
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('prompts for the key without echoing it, checks it and stores it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-login-'));
    const tty = new TmuxSession(`node ${shellQuote(BIN)} auth login --base-url ${emu.url}`, {
      env: { VAP_CONFIG_DIR: dir, NO_COLOR: '1', TERM: 'xterm-256color' },
    });
    try {
      await tty.waitFor(/API key/);
      tty.sendKeys('-l', ORG_A.apiKey);
      tty.sendKeys('Enter');
      expect(await tty.exitCode()).toBe(0);
      const screen = tty.capture();
      expect(screen).toContain('Logged in to');
      expect(screen).not.toContain(ORG_A.apiKey);
      const file = join(dir, 'config.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.apiKey).toBe(ORG_A.apiKey);
    } finally {
      tty.kill();
    }
  });
});
