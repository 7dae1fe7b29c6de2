import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

// The built vap in a real terminal at 80 and 40 columns, typed as a newcomer types it: an id
// copied from the `vap calls list` table (its first eight digits) is taken by `calls get` and
// `calls tail`, and a tail of a call that is over ends with no resume hint; an unknown start
// is said the same way by both; and in an organization with no agent, `vap tools list` and
// `agents create --tool "Calendar booking"` say where a tool's id is. vap's own lines fit.

const FRESH = { name: 'fresh', apiKey: 'key_fresh_terminal' };
let emu: TestEmulator;
let state: string;

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator({ orgs: [ORG_A, FRESH] });
  state = mkdtempSync(join(tmpdir(), 'vap-ids-terminal-'));
  await emu.control('POST', '/calls/seed', { org: ORG_A.name, count: 12 });
  // Each seeded call's own stream: its events, up to the analysis (the last after-call event).
  const calls = (await emu.api('GET', '/api/v1/calls?pageSize=100')).body.data.calls as Array<{ id: string }>;
  for (const { id } of calls) {
    await emu.control('POST', '/events', {
      org: ORG_A.name,
      type: 'call.started',
      callId: id,
      data: { status: 'in_progress', direction: 'outbound', calleeName: 'Ana Ruiz', phoneNumber: '+15550123' },
    });
    await emu.control('POST', '/events', {
      org: ORG_A.name,
      type: 'call.ended',
      callId: id,
      data: { status: 'completed', durationSeconds: 61, engine: 'realtime' },
    });
    await emu.control('POST', '/events', {
      org: ORG_A.name,
      type: 'call.analysis.completed',
      callId: id,
      data: { summary: 'Confirmed the appointment.', overallSentiment: 'positive', resolved: true },
    });
  }
});
afterAll(async () => {
  await emu?.close();
});

const env = (key = ORG_A.apiKey) => ({
  VAP_BASE_URL: emu.url,
  VAP_API_KEY: key,
  VAP_CONFIG_DIR: join(state, 'config'),
  VAP_STATE_DIR: state,
  NO_COLOR: '1',
  TERM: 'xterm-256color',
});

async function typed(command: string, width: number, key?: string): Promise<{ screen: string; code: number }> {
  const tty = new TmuxSession(`node ${shellQuote(BIN)} ${command}`, { env: env(key), width, height: 60 });
  try {
    const code = await tty.exitCode(30_000);
    return { screen: tty.capture(), code };
  } finally {
    tty.kill();
  }
}

const tooWide = (text: string, width: number) => text.split('\n').filter((l) => stringWidth(l.trimEnd()) > width);
/** The screen's lines joined, as the terminal wrapped them between words. */
const joined = (screen: string) =>
  screen
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');
/** The text without white space: a word longer than a narrow pane (a URL) is cut where it must be. */
const squeezed = (text: string) => text.replace(/\s+/g, '');

describe.skipIf(!hasTmux())('ids and tools as a newcomer types them, in a real terminal', () => {
  for (const width of [80, 40]) {
    it(`at ${width} columns: calls get and calls tail take the id the calls list table shows`, async () => {
      const list = await typed('calls list', width);
      expect(list.code).toBe(0);
      const shown = /^([0-9a-f]{8})\s/m.exec(list.screen)?.[1];
      expect(shown, list.screen).toBeDefined();
      const whole = ((await emu.api('GET', '/api/v1/calls?pageSize=100')).body.data.calls as Array<{ id: string }>).find((c) => c.id.startsWith(shown!))!.id;

      const get = await typed(`calls get ${shown}`, width);
      expect(get.code, get.screen).toBe(0);
      expect(get.screen.replace(/\s+/g, '')).toContain(whole);

      const tail = await typed(`calls tail ${shown}`, width);
      expect(tail.code, tail.screen).toBe(0);
      expect(joined(tail.screen)).toContain('Confirmed the appointment.');
      expect(joined(tail.screen)).toContain(`call ${whole} is over: its analysis is in (3 events); --follow keeps listening`);
      expect(tail.screen).not.toContain('resume with');
      expect(tooWide(tail.screen, width)).toEqual([]);
    });

    it(`at ${width} columns: an unknown start is said in the same words by calls get and calls tail`, async () => {
      const get = await typed('calls get ca97174c', width);
      const tail = await typed('calls tail ca97174c', width);
      expect([get.code, tail.code]).toEqual([1, 1]);
      const said = 'error: call ca97174c not found: no call id starts with ca97174c; see `vap calls list`';
      expect(joined(get.screen).replace(/ \[exit 1\]$/, '')).toBe(said);
      expect(joined(tail.screen).replace(/ \[exit 1\]$/, '')).toBe(said);
      expect(tooWide(get.screen, width)).toEqual([]);
    });

    it(`at ${width} columns: with no agent, tools list and agents create --tool by name say where a tool's id is`, async () => {
      const tools = await typed('tools list', width, FRESH.apiKey);
      expect(tools.code).toBe(0);
      expect(squeezed(tools.screen)).toContain(
        squeezed(
          `No tools seen: this key can read no agent yet (the API lists tools only through agents). Give a tool by its id, from the product's tool page (on vap's emulator: \`curl ${emu.url}/_emulator/tools\`).`,
        ),
      );
      expect(tooWide(tools.screen, width)).toEqual([]);

      const create = await typed(
        'agents create --name "Front desk" --engine realtime --instructions "Greet callers." --tool "Calendar booking"',
        width,
        FRESH.apiKey,
      );
      expect(create.code).toBe(2);
      const text = squeezed(create.screen);
      expect(text).toContain(squeezed('no tool named "Calendar booking" among the tools of the agents this key can read'));
      expect(text).toContain(
        squeezed(
          `give the tool's id, from the product's tool page (on vap's emulator: \`curl ${emu.url}/_emulator/tools\`); once an agent has tools, \`vap tools list\` shows their names and ids`,
        ),
      );
      expect(tooWide(create.screen, width)).toEqual([]);
    });
  }
});
