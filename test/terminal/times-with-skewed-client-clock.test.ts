import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

// The built binary in a real terminal on a machine whose clock is wrong: a preload sets the
// CLI process's clock 10 minutes fast (or slow); the emulator keeps the right time. Relative
// times are read against the server's clock (its Date header), so a version made just now
// reads "just now" (not "10 minutes ago", nor "in 9 minutes"), and a call scheduled 90
// minutes ahead by the server's clock reads "in 1 hour" (not "in 1 hour" minus the skew).

const SHIFT = fileURLToPath(new URL('../helpers/shifted-clock.cjs', import.meta.url));
let emu: TestEmulator;
let agent: string;
let campaign: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function data<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const r = await emu.api<{ data: T }>(method, path, body);
  expect(r.status, path).toBeLessThan(300);
  return r.body.data;
}

/** Runs vap with its clock shifted by `shiftMs`; returns the screen once it ended. */
async function run(args: string, shiftMs: number): Promise<string> {
  const tty = new TmuxSession(`node --require ${shellQuote(SHIFT)} ${shellQuote(BIN)} ${args}`, {
    width: 160,
    env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1', TERM: 'xterm-256color', VAP_TEST_CLOCK_SHIFT_MS: String(shiftMs) },
  });
  try {
    expect(await tty.exitCode()).toBe(0);
    return tty.capture();
  } finally {
    tty.kill();
  }
}

describe.skipIf(!hasTmux())('relative times with a client clock that is off (tmux, built binary)', () => {
  beforeAll(async () => {
    assertBuilt();
    emu = await startTestEmulator({ timeScale: 1 });
    agent = (await data<{ id: string }>('POST', '/api/v1/agents', { name: 'Skewed', engine: 'realtime', instructions: 'v1' })).id;
    await data('PATCH', `/api/v1/agents/${agent}`, { instructions: 'v2' });
    const list = (
      await data<{ id: string }>('POST', '/api/v1/contact-lists', {
        name: 'People',
        schema: {
          fields: [
            { name: 'name', type: 'string', required: true },
            { name: 'phone', type: 'phone', required: true },
          ],
        },
      })
    ).id;
    const job = await emu.api<{ jobId: string }>('POST', `/api/v1/contact-lists/${list}/contacts`, {
      contacts: [
        { name: 'A', phone: '+14155550101' },
        { name: 'B', phone: '+14155550102' },
      ],
    });
    for (let i = 0; (await emu.api<{ status: string }>('GET', `/api/v1/import-jobs/${job.body.jobId}`)).body.status !== 'completed'; i++) {
      if (i > 400) throw new Error('the import did not finish');
      await sleep(25);
    }
    const contacts = (await emu.api<{ data: Array<{ id: string }> }>('GET', `/api/v1/contact-lists/${list}/contacts?limit=10`)).body.data.map((c) => c.id);
    campaign = (await data<{ id: string }>('POST', '/api/v1/campaigns', { name: 'Later', direction: 'outbound', agentId: agent, contactListId: list })).id;
    await data('POST', `/api/v1/campaigns/${campaign}/contacts`, { contactIds: contacts });
    // A draft campaign keeps its calls queued: one scheduled 90 minutes ahead, one now.
    await data('POST', `/api/v1/campaigns/${campaign}/calls`, { contactIds: [contacts[0]], scheduledFor: new Date(Date.now() + 90 * 60_000).toISOString() });
    await data('POST', `/api/v1/campaigns/${campaign}/calls`, { contactIds: [contacts[1]] });
  });
  afterAll(async () => {
    await emu?.close();
  });

  for (const [what, shift] of [
    ['10 minutes fast', 600_000],
    ['10 minutes slow', -600_000],
  ] as const) {
    it(`${what}: versions made just now read as just made`, async () => {
      const screen = await run(`agents versions ${agent}`, shift);
      const rows = screen.split('\n').filter((l) => /^[12] +(created|prompt_updated) /.test(l));
      expect(rows, screen).toHaveLength(2);
      for (const row of rows) expect(row).toMatch(/ (just now|\d+ seconds? ago)( |$)/);
      expect(screen).not.toMatch(/\d+ minutes? ago|\bin \d+/);
    });

    it(`${what}: a call scheduled 90 minutes ahead reads "in 1 hour", one queued now reads as past`, async () => {
      const screen = await run(`campaigns calls list ${campaign}`, shift);
      const rows = screen.split('\n').filter((l) => / queued /.test(l));
      expect(rows, screen).toHaveLength(2);
      expect(rows.filter((r) => /in 1 hour/.test(r))).toHaveLength(1);
      for (const row of rows) expect(row).toMatch(/(just now|\d+ seconds? ago)\s*$/);
      expect(screen).not.toMatch(/\d+ minutes? ago|\bin \d+ minutes/);
    });
  }
});
