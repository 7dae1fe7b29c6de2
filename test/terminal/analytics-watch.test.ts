import { execFileSync, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

// `vap campaigns analytics <id> --realtime --watch` in a real terminal: the screen is
// redrawn in place (the stamp moves, the header is never repeated in the scrollback),
// the cursor is hidden while it runs, and Ctrl-C exits 130 with the cursor shown again.
// Calls run at a slow time scale so that the figures are live while we watch.

let emu: TestEmulator;
let campaignId: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether tmux shows the pane's cursor (DECTCEM). */
const cursorVisible = (tty: TmuxSession) =>
  execFileSync('tmux', ['display-message', '-p', '-t', tty.name, '#{cursor_flag}'], { encoding: 'utf8' }).trim() === '1';
const count = (text: string, s: string) => text.split(s).length - 1;

async function waitUntil<T>(fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting for the figures to change');
    await sleep(200);
  }
}

describe.skipIf(!hasTmux())('campaigns analytics --realtime --watch in a real terminal (tmux)', () => {
  beforeAll(async () => {
    assertBuilt();
    emu = await startTestEmulator({ timeScale: 20 });
    const agentId = (
      await emu.api('POST', '/api/v1/agents', { name: 'Ava', engine: 'realtime', instructions: 'You are Ava. You remind patients of appointments.' })
    ).body.data.id;
    const listId = (
      await emu.api('POST', '/api/v1/contact-lists', {
        name: 'P',
        schema: {
          fields: [
            { name: 'name', type: 'string', required: true },
            { name: 'phone', type: 'phone', required: true },
          ],
        },
      })
    ).body.data.id;
    const contacts = Array.from({ length: 8 }, (_, i) => ({ name: `Patient ${i}`, phone: `+1415555${String(200 + i).padStart(4, '0')}` }));
    const job = await emu.api('POST', `/api/v1/contact-lists/${listId}/contacts`, { contacts });
    for (let i = 0; i < 200; i++) {
      if ((await emu.api('GET', `/api/v1/import-jobs/${job.body.jobId}`)).body.status === 'completed') break;
      await sleep(50);
    }
    const ids = (await emu.api('GET', `/api/v1/contact-lists/${listId}/contacts?limit=100`)).body.data.map((c: { id: string }) => c.id);
    campaignId = (await emu.api('POST', '/api/v1/campaigns', { name: 'Live', direction: 'outbound', contactListId: listId, agentId })).body.data.id;
    expect((await emu.api('POST', `/api/v1/campaigns/${campaignId}/contacts`, { contactIds: ids })).status).toBe(200);
    expect((await emu.api('POST', `/api/v1/campaigns/${campaignId}/calls`, { queueAllPending: true })).status).toBe(201);
    expect((await emu.api('POST', `/api/v1/campaigns/${campaignId}/start`)).status).toBe(200);
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('refreshes in place every --interval seconds and exits 130 on Ctrl-C with the cursor restored', async () => {
    const tty = new TmuxSession(`node ${shellQuote(BIN)} campaigns analytics ${campaignId} --realtime --watch --interval 5`, {
      env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1', TERM: 'xterm-256color' },
      width: 100,
      height: 30,
    });
    try {
      const first = await tty.waitFor(/updated at (\d\d:\d\d:\d\d) UTC · every 5 s/);
      const stamp1 = /updated at (\d\d:\d\d:\d\d)/.exec(first)![1];
      expect(first).toMatch(/Campaign Live \(.+\) · realtime/);
      expect(first).toMatch(/Active calls\s+\d+/);
      // "Last call at" is relative (the emulator's clock runs ahead of this one, at 20×), never an ISO time.
      expect(first).toMatch(/Last call at\s+(—|just now|(in )?\d+ (second|minute|hour)s?( ago)?)\n/);
      expect(first).not.toMatch(/Last call at\s+\d{4}-/);
      // The trend starts with the second reading.
      expect(first).toMatch(/Trend\n {2}Completed per refresh +\(from the next refresh on\)/);
      expect(cursorVisible(tty)).toBe(false);

      // The next refresh: a new stamp, drawn over the old screen (one header, one stamp).
      const second = await tty.waitFor(new RegExp(`updated at (?!${stamp1})\\d\\d:\\d\\d:\\d\\d UTC`), 15_000);
      expect(count(second, '· realtime')).toBe(1);
      expect(count(second, 'Active calls')).toBe(1);
      expect(count(second, 'updated at')).toBe(1);
      expect(second).not.toContain(`updated at ${stamp1}`);
      // A sparkline of the calls completed in each interval of the session, with its range.
      expect(second).toMatch(/Completed per refresh +[▁▂▃▄▅▆▇█]{1,2}  \d+(–\d+)? per 5 s \(last [12] refresh(es)?\)/);

      // While calls run (20× time), the figures themselves change from one refresh to another.
      const figures = (screen: string) => /Now\n([\s\S]*?)\n\n/.exec(screen)?.[1];
      const before = figures(first);
      expect(before).toMatch(/Queued calls\s+\d+/);
      const changed = await waitUntil(async () => {
        const screen = tty.capture();
        const now = figures(screen);
        return now !== undefined && now !== before ? screen : undefined;
      }, 40_000);
      expect(count(changed, 'Active calls')).toBe(1);
      const bars = (screen: string) => /Completed per refresh +([▁▂▃▄▅▆▇█]+)/.exec(screen)?.[1] ?? '';
      expect(bars(changed).length).toBeGreaterThanOrEqual(bars(second).length);

      tty.sendKeys('C-c');
      expect(await tty.exitCode()).toBe(130);
      const after = tty.capture();
      expect(cursorVisible(tty)).toBe(true);
      // The last screen stays, once, above the shell's next line; nothing garbled after it.
      expect(count(after, '· realtime')).toBe(1);
      expect(count(after, 'updated at')).toBe(1);
      expect(after).toMatch(/Ctrl-C to stop\n(\^C)?\[exit 130\]/);
      expect(after).not.toMatch(/error/i);
    } finally {
      tty.kill();
    }
  });

  it('with VAP_ACCESSIBLE=1, writes a plain line when a figure changes instead of redrawing, cursor left alone', async () => {
    const tty = new TmuxSession(`node ${shellQuote(BIN)} campaigns analytics ${campaignId} --realtime --watch --interval 5`, {
      env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1', TERM: 'xterm-256color', VAP_ACCESSIBLE: '1' },
      width: 160,
      height: 30,
    });
    const lines = (screen: string) =>
      screen
        .split('\n')
        .filter((l) =>
          /^\d\d:\d\d:\d\d UTC {2}Active calls \d+ · Queued calls \d+ · Completed today \d+ · Call rate [\d.]+ \/ min · Last call at (—|just now|(in )?\d+ \w+( ago)?)/.test(
            l,
          ),
        );
    try {
      const first = await tty.waitFor(/UTC {2}Active calls/);
      expect(first).toMatch(/^Campaign Live \(.+\) · realtime; a line when a figure changes, every 5 s; Ctrl-C to stop$/m);
      expect(lines(first)).toHaveLength(1);
      expect(cursorVisible(tty)).toBe(true);
      // Calls run at 20×: the figures change, and each change is a line added below the last (the first kept as it was).
      const later = await waitUntil(async () => {
        const screen = tty.capture();
        return lines(screen).length >= 2 ? screen : undefined;
      }, 40_000);
      const [l1, l2] = lines(later);
      expect(l1).toBe(lines(first)[0]);
      expect(l2!.slice(14)).not.toBe(l1!.slice(14));
      expect(count(later, '· realtime')).toBe(1);
      tty.sendKeys('C-c');
      expect(await tty.exitCode()).toBe(130);
    } finally {
      tty.kill();
    }
  });

  it('draws the screen in a pseudo-terminal that reports no size (0 rows, 0 columns)', async () => {
    // script(1) without a controlling terminal opens a 0×0 pty, as `docker exec -t` and some
    // CI runners do; log-update clipped every frame to 0 lines there and drew nothing.
    const hasScript = (() => {
      try {
        execFileSync('script', ['--version'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    })();
    if (!hasScript) return;
    const cmd = `stty rows 0 cols 0; exec node ${shellQuote(BIN)} campaigns analytics ${campaignId} --realtime --watch --interval 5`;
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        VAP_BASE_URL: emu.url,
        VAP_API_KEY: ORG_A.apiKey,
        NO_COLOR: '1',
        TERM: 'xterm-256color',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    try {
      await waitUntil(async () => (/Ctrl-C to stop/.test(out) ? true : undefined), 15_000);
      expect(out).toMatch(/Campaign Live \(.+\) · realtime/);
      expect(out).toMatch(/Active calls\s+\d+/);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.stdin.write('\x03');
      expect(await exited).toBe(130);
    } finally {
      child.kill();
    }
  });
});
