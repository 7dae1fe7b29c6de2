import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { IO } from '../../src/context.js';
import { JOBS, type StoredJob } from '../../src/emulator/contacts/model.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv } from '../helpers/run-cli.js';
import { testStateDir } from '../helpers/state-dir.js';

// The import's progress counts rows done (rejected here, or processed by the server as its
// import job says) out of the rows in the file, estimated while it is read. Under
// VAP_ACCESSIBLE=1 on a terminal it prints a line per tenth; each line is checked, as it is
// written, against what the emulator (in this process) has processed at that moment.

let emu: TestEmulator;
let dir: string;

beforeAll(async () => {
  // Jobs take simulated seconds (pending 1 s, 500 rows a second): at twice real time the
  // import reads and sends far ahead of what the server has processed.
  emu = await startTestEmulator({ timeScale: 2 });
  dir = mkdtempSync(join(tmpdir(), 'vap-progress-'));
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Rows the emulator has processed, now, in the import jobs of a list. */
function processedByServer(listId: string): number {
  let n = 0;
  for (const [, jobs] of emu.store.allCollections<StoredJob>(JOBS)) for (const j of jobs.values()) if (j.contactListId === listId) n += j.progress.processed;
  return n;
}

interface Said {
  line: string;
  percent: number;
  done: number;
  total: string;
  sent: number;
  /** What the server had processed when the line was written. */
  server: number;
}

const PROGRESS = /^progress: +(\d+)% {2}([\d,]+)(?: of (~?[\d,]+))? rows {2}([\d,]+) sent/;
const count = (s: string) => Number(s.replace(/[~,]/g, ''));

describe('contacts import progress under VAP_ACCESSIBLE', () => {
  it('a 10,000-row import: no line says more than the server has processed, and 100% is said once, at the end', { timeout: 60_000 }, async () => {
    const ROWS = 10_000;
    const listId = (
      await emu.api('POST', '/api/v1/contact-lists', {
        name: 'Leads',
        schema: {
          fields: [
            { name: 'name', type: 'string', required: true },
            { name: 'phone', type: 'phone', required: true },
          ],
        },
      })
    ).body.data.id as string;
    const file = join(dir, 'leads-10000.csv');
    writeFileSync(file, `name,phone\n${Array.from({ length: ROWS }, (_, i) => `Person ${i + 1},+1415555${String(i).padStart(4, '0')}`).join('\n')}\n`);

    const said: Said[] = [];
    let stderr = '';
    // stderr as a terminal: each write is seen as it happens, and the emulator read at that instant.
    const err = new Writable({
      write(chunk: Buffer, _enc, cb) {
        const text = chunk.toString();
        stderr += text;
        for (const line of text.split('\n')) {
          const m = PROGRESS.exec(line);
          if (m) said.push({ line, percent: Number(m[1]), done: count(m[2]!), total: m[3] ?? '', sent: count(m[4]!), server: processedByServer(listId) });
        }
        cb();
      },
    });
    const out = new PassThrough();
    let stdout = '';
    out.on('data', (c: Buffer) => (stdout += c.toString()));
    const io: IO = { stdin: Readable.from([]), stdout: out, stderr: err, stdinIsTTY: true, stdoutIsTTY: true, stderrIsTTY: true };
    const code = await main(['contacts', 'import', listId, file, '--batch-size', '1000'], {
      io,
      env: { NO_COLOR: '1', VAP_ACCESSIBLE: '1', VAP_STATE_DIR: testStateDir(), ...cliEnv(emu.url, ORG_A.apiKey) },
      signal: new AbortController().signal,
    });
    expect(code, stderr).toBe(0);
    expect(stderr).not.toContain('\r');

    const last = said.at(-1)!;
    const before = said.slice(0, -1);
    expect(before.length, stderr).toBeGreaterThanOrEqual(3);
    // The last line: every row, counted (no ~), at 100%; no line before it says 100%.
    expect(last).toMatchObject({ percent: 100, done: ROWS, total: '10,000', sent: ROWS, server: ROWS });
    expect(before.filter((s) => s.percent >= 100)).toEqual([]);
    for (const s of before) {
      // Done means processed by the server: never more than it had processed when the line was written.
      expect(s.done, s.line).toBeLessThanOrEqual(s.server);
      // The percentage is of rows done out of the rows in the file: against the true total,
      // within the estimate's slack (2 points: these rows grow longer from 21 to 24 bytes,
      // so the early estimates count more rows than there are, never fewer).
      expect(s.percent, s.line).toBeLessThanOrEqual((100 * s.done) / ROWS + 2);
      expect(s.percent, s.line).toBeLessThanOrEqual((100 * s.server) / ROWS + 2);
      expect(s.done, s.line).toBeLessThanOrEqual(s.sent);
    }
    // A line per tenth, in order.
    const percents = said.map((s) => s.percent);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    // Rows were sent well before the server had processed them: the figures are not the same.
    expect(
      before.some((s) => s.sent > s.done),
      stderr,
    ).toBe(true);
    expect(stdout).toMatch(/Imported .*leads-10000\.csv into list cl_\w+:\s+10,000 rows in /);
    expect(stdout).toMatch(/imported +10,000\n/);
  });
});
