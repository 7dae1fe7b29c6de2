import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

// `vap contacts import` of the demo's 20,000-row file in a real terminal at 80 and 40
// columns: while it runs, the bar's frames count rows done out of the file's rows and fit the
// pane; once every row is processed, its last frame, 100% with all 20,000 rows, stays on the
// screen above the summary.

let emu: TestEmulator;
let dir: string;
let file: string;

beforeAll(async () => {
  assertBuilt();
  // At real time the jobs take seconds (pending 1 s, then 500 rows a second): frames are drawn.
  emu = await startTestEmulator({ timeScale: 4 });
  dir = mkdtempSync(join(tmpdir(), 'vap-import-tty-'));
  file = join(dir, 'leads-20000.csv');
  const rows = Array.from(
    { length: 20_000 },
    (_, i) => `Lead ${i + 1},(415) ${String(200 + Math.floor(i / 10_000)).padStart(3, '0')}-${String(i % 10_000).padStart(4, '0')}`,
  );
  writeFileSync(file, `name,phone\n${rows.join('\n')}\n`);
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!hasTmux())('contacts import progress in a terminal', () => {
  for (const width of [80, 40]) {
    it(`at ${width} columns: frames of rows done out of the file's rows, within the pane; 100% with every row once all are processed`, {
      timeout: 60_000,
    }, async () => {
      const listId = (
        await emu.api('POST', '/api/v1/contact-lists', {
          name: `Leads ${width}`,
          schema: {
            fields: [
              { name: 'name', type: 'string', required: true },
              { name: 'phone', type: 'phone', required: true },
            ],
          },
        })
      ).body.data.id as string;
      const tty = new TmuxSession(`node ${shellQuote(BIN)} contacts import ${listId} ${shellQuote(file)} --default-country US`, {
        env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, VAP_STATE_DIR: join(dir, `state-${width}`), NO_COLOR: '1', TERM: 'xterm-256color' },
        width,
        height: 30,
      });
      try {
        // A frame while it runs: below 100%, the rows done out of the estimated (~) or counted rows.
        const running = await tty.waitFor(/^\S*\s*\d{1,2}%  [\d,]+ of ~?[\d,]+ rows/m, 30_000);
        expect(running).not.toMatch(/100%/);
        expect(await tty.exitCode(45_000)).toBe(0);
        const screen = tty.capture();
        const lines = screen.split('\n').map((l) => l.replace(/\s+$/, ''));
        for (const l of lines) expect([...l].length, `wider than ${width}: ${l}`).toBeLessThanOrEqual(width);
        // The last frame stays, above the summary: every row, counted, at 100%.
        const last = lines.findIndex((l) => /100%/.test(l));
        expect(lines[last], screen).toMatch(width >= 80 ? /^\[█+\] 100% {2}20,000 of 20,000 rows {2}20,000 sent/ : /^100% {2}20,000 of 20,000 rows$/);
        expect(lines.slice(last + 1).join('\n'), screen).toMatch(/^Imported /m);
        expect(
          lines.filter((l) => /\d%/.test(l)),
          screen,
        ).toHaveLength(1);
      } finally {
        tty.kill();
      }
    });
  }
});
