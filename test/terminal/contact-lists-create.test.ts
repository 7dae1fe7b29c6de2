import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

// `vap contact-lists create --from-csv` in a real terminal (tmux): the inferred
// schema is shown and the confirmation is answered with keys. Runs the built binary.

let emu: TestEmulator;
let dir = '';

const run = (name: string, csv: string) =>
  new TmuxSession(`node ${shellQuote(BIN)} contact-lists create --name ${shellQuote(name)} --from-csv ${shellQuote(csv)}`, {
    env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1', VAP_CONFIG_DIR: dir, TERM: 'xterm-256color' },
    width: 160,
    height: 50,
  });

describe.skipIf(!hasTmux())('contact-lists create --from-csv in a terminal', () => {
  beforeAll(async () => {
    assertBuilt();
    emu = await startTestEmulator();
    dir = mkdtempSync(join(tmpdir(), 'vap-term-'));
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('shows the inferred schema and creates the list when confirmed', async () => {
    const csv = join(dir, 'leads.csv');
    writeFileSync(csv, 'name,phone,email,age\nAda,+14155550100,ada@example.com,36\nBob,+14155550101,bob@example.org,41\n');
    const tty = run('Terminal leads', csv);
    try {
      const prompt = await tty.waitFor(/Create contact list "Terminal leads" with this schema\?/, 20_000);
      expect(prompt).toMatch(/FIELD\s+TYPE\s+REQUIRED\s+FILLED\s+EXAMPLE/);
      expect(prompt).toMatch(/phone\s+phone\s+no\s+2\/2\s+\+14155550100/);
      expect(prompt).toMatch(/age\s+number\s+no\s+2\/2\s+36/);
      tty.sendKeys('y', 'Enter');
      expect(await tty.exitCode(20_000)).toBe(0);
      const done = tty.capture();
      expect(done).toMatch(/Created contact list cl_\S+ \("Terminal leads"\) with 4 fields/);
      expect(done).toMatch(/email\s+email\s+no/);
    } finally {
      tty.kill();
    }
  });

  it('creates nothing when the answer is no', async () => {
    const csv = join(dir, 'other.csv');
    writeFileSync(csv, 'name,vip\nAda,yes\n');
    const tty = run('Declined', csv);
    try {
      await tty.waitFor(/Create contact list "Declined" with this schema\?/, 20_000);
      tty.sendKeys('n', 'Enter');
      expect(await tty.exitCode(20_000)).toBe(0);
      expect(tty.capture()).toContain('nothing created: contact list "Declined" was not made');
      const lists = (await (await fetch(`${emu.url}/api/v1/contact-lists`, { headers: { 'x-api-key': ORG_A.apiKey } })).json()) as {
        data: Array<{ name: string }>;
      };
      expect(lists.data.map((l) => l.name)).not.toContain('Declined');
    } finally {
      tty.kill();
    }
  });
});
