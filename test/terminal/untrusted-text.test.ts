// Untrusted text never drives a real terminal: under tmux, vap's human-readable output of
// emulator data that carries one hostile string (an OSC title, a screen clear, a colour
// vap never uses, an OSC 8 hyperlink, BEL, CR, BS, DEL, a C1 control and a right-to-left
// override) leaves the pane's title as it was, clears nothing, and puts none of the data's
// escape codes on the screen (`capture-pane -e`); the data reads as visible escapes, next
// to vap's own colours. A control run prints the same string raw, to show that the checks
// would see it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { HOSTILE, HOSTILE_SHORT, hostileCsv, seedHostile, type HostileData } from '../helpers/hostile.js';
import { testStateDir } from '../helpers/state-dir.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

let emu: TestEmulator;
let d: HostileData;
let dir: string;

/** The data's colour as a terminal would hold it, had it been let through. */
const DATA_COLOUR = '\x1b[38;5;196m';
const MARK = 'BEFORE-ANY-VAP-OUTPUT';

describe.skipIf(!hasTmux())('hostile text in a real terminal (tmux)', () => {
  beforeAll(async () => {
    assertBuilt();
    emu = await startTestEmulator({ allowLoopbackUrls: true });
    d = await seedHostile(emu);
    dir = mkdtempSync(join(tmpdir(), 'vap-hostile-tmux-'));
  }, 60_000);
  afterAll(async () => {
    await emu?.close();
  });

  const session = (script: string, height = 60) =>
    new TmuxSession(script, {
      // Colour on: vap's own codes are on screen, beside the data's escaped ones.
      env: {
        VAP_BASE_URL: emu.url,
        VAP_API_KEY: ORG_A.apiKey,
        VAP_CONFIG_DIR: join(dir, 'config'),
        VAP_STATE_DIR: testStateDir(),
        TERM: 'xterm-256color',
        FORCE_COLOR: '1',
        H: HOSTILE,
        HS: HOSTILE_SHORT,
      },
      width: 160,
      height,
    });

  it('control: the same string printed raw retitles the pane, clears the screen and colours it', async () => {
    const tty = session(`echo ${MARK}; printf '%s\\n' "$H"`);
    try {
      await tty.exitCode();
      expect(tty.paneTitle()).toBe('pwned');
      expect(tty.captureWithEscapes()).toContain(DATA_COLOUR);
    } finally {
      tty.kill();
    }
  });

  it('every human-readable output path of vap leaves the title alone and shows the data escaped', async () => {
    const file = join(dir, 'hostile.csv');
    writeFileSync(file, hostileCsv());
    const vap = `node ${shellQuote(BIN)}`;
    const steps = [
      `${vap} agents list`,
      `${vap} agents get ${d.agentId}`,
      `${vap} agents versions ${d.agentId}`,
      `${vap} evals scenarios list ${d.evalId} --agent ${d.agentId}`,
      `${vap} evals runs results ${d.evalId} ${d.runId} --agent ${d.agentId}`,
      `${vap} evals runs get ${d.runId} --eval ${d.evalId} --agent ${d.agentId} --wait`,
      `${vap} webhooks list`,
      `${vap} contacts list ${d.listId}`,
      `${vap} campaigns analytics ${d.campaignId}`,
      `${vap} calls list`,
      `${vap} calls get ${d.callId}`,
      `${vap} calls transcript ${d.callId}`,
      `${vap} calls tail ${d.eventCallId}`,
      `${vap} events tail --last-event-id 0 --timeout 1s`,
      `${vap} agents update ${d.agentId} --description calm`,
      `${vap} evals imports candidates ${d.evalId} --agent ${d.agentId} --source "$HS"`,
      `${vap} agents get "$H"`,
      `${vap} contacts import ${d.listId} ${shellQuote(file)} --dry-run --errors-file ${shellQuote(join(dir, 'hostile.errors.csv'))}`,
    ];
    // Each step's output is kept in the pane's history; the marker before them must stay.
    const tty = session(`echo ${MARK}; ${steps.map((s) => `${s}; echo "[step $?]"`).join('; ')}; true`, 60);
    try {
      await tty.exitCode(90_000);
      const title = tty.paneTitle();
      expect(title).not.toBe('pwned');
      expect(title).not.toContain('pwned');
      const screen = tty.captureWithEscapes();
      expect(screen).toContain(MARK);
      // Each step ended as it should: the tail by its --timeout, the unknown source, the refused id, the rejected rows.
      expect([...screen.matchAll(/\[step (\d+)\]/g)].map((m) => Number(m[1]))).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 124, 0, 1, 2, 1]);
      // None of the data's codes: not its colour, not a title, not a bell, not a hyperlink.
      expect(screen).not.toContain(DATA_COLOUR);
      expect(screen).not.toMatch(/\x1b\]|\x07|\x08|\x7f|[\x80-\x9f]|\u202e/);
      // The data is there, visibly escaped, and vap's own colours too.
      expect(screen).toContain('EVIL\\e]0;pwned\\x07\\e[2J\\e[38;5;196mRED');
      expect(screen).toContain('\\u202e');
      expect(screen).toMatch(/\x1b\[1m/);
    } finally {
      tty.kill();
    }
  }, 120_000);

  it("the wizard's lists (agents, suites) on a terminal", async () => {
    const tty = session(`echo ${MARK}; node ${shellQuote(BIN)} evals import`, 40);
    try {
      await tty.waitFor(/Agent/);
      await tty.waitFor(/E\\e\]0;pwned|EVIL\\e\]0;pwned/);
      // Down to the hostile agent (created last), then its suites.
      for (let i = 0; i < 10; i++) {
        if (/❯ EVIL\\e/.test(tty.capture())) break;
        tty.sendKeys('Down');
        await new Promise((r) => setTimeout(r, 100));
      }
      await tty.waitFor(/❯ EVIL\\e\]0;pwned/);
      tty.sendKeys('Enter');
      await tty.waitFor(/Eval suite/);
      await tty.waitFor(/EVIL\\e\]0;pwned/);
      tty.sendKeys('C-c');
      expect(await tty.exitCode()).toBe(130);
      expect(tty.paneTitle()).not.toContain('pwned');
      const screen = tty.captureWithEscapes();
      expect(screen).toContain(MARK);
      expect(screen).not.toContain(DATA_COLOUR);
      expect(screen).not.toMatch(/\x1b\]|\x07|\x08|\x7f|[\x80-\x9f]|\u202e/);
    } finally {
      tty.kill();
    }
  }, 60_000);
});
