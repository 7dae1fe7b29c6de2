import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

// The live views (`events tail`, `calls tail`) in a real terminal at 80 and 160 columns,
// with the ids the platform really uses (36-character UUIDs) and summaries and transcript
// lines far longer than a line: no line is wider than the pane (tmux would wrap it, and
// `capture-pane -J` would join it back), the columns stay aligned, long text hangs under
// its own column, and nothing of the text is lost.

let emu: TestEmulator;

const LONG_SUMMARY =
  'Margaret Hamilton asked not to be called again and said her lawyer would hear about the repeated calls; the agent confirmed the number was removed from the calling list and referred the matter to the compliance team.';
const LONG_AGENT =
  "Hi, is this Margaret? This is Maya from Acme Dental, I'm calling about your appointment next Tuesday at half past three, and I wanted to check whether that time still works for you or whether you would rather move it.";
const LONG_CALLER = 'Please take me off your list. Do not call me again, I have asked three times already and I am talking to my lawyer about it.';

const publish = (type: string, callId: string | null, data: Record<string, unknown>) =>
  emu.control<{ lastId: string }>('POST', '/events', { type, ...(callId ? { callId } : {}), data });

/** Publishes one whole call (status, start, a long chat, end, a long analysis with two alerts) on a new UUID. */
async function oneCall(campaignId: string): Promise<string> {
  const callId = randomUUID();
  await publish('call.status.updated', callId, { status: 'ringing', previousStatus: 'initiated' });
  await publish('call.started', callId, {
    status: 'in_progress',
    direction: 'outbound',
    phoneNumber: '+14155550108',
    calleeName: 'Margaret Hamilton',
    agentId: 'ag_dh6e446kz0ju4xck',
    agentVersion: 3,
    campaignId,
  });
  await publish('call.transcript.updated', callId, { role: 'agent', text: LONG_AGENT, ordinal: 0, offsetSeconds: 0.4 });
  await publish('call.transcript.updated', callId, { role: 'user', text: LONG_CALLER, ordinal: 1, offsetSeconds: 14.2 });
  await publish('call.ended', callId, { status: 'completed', durationSeconds: 113, engine: 'realtime' });
  await publish('call.analysis.completed', callId, {
    summary: LONG_SUMMARY,
    overallSentiment: 'negative',
    resolved: false,
    doNotCallRequested: true,
    legalThreatened: true,
    crisisDetected: false,
  });
  return callId;
}

/** The words of every line from `from` on, in order, with the columns before `col` left out (to read a wrapped text back). */
const textFrom = (lines: string[], col: number) => lines.map((l) => l.slice(col).trim()).join(' ');

/** The screen's lines; none is wider than the pane, the view's (stdout) nor the messages' (stderr, wrapped at word boundaries). */
function checkWidth(screen: string, width: number): string[] {
  const lines = screen.split('\n').map((l) => l.replace(/\s+$/, ''));
  for (const l of lines) expect([...l].length, `line wider than ${width}: ${l}`).toBeLessThanOrEqual(width);
  return lines;
}

describe.skipIf(!hasTmux())('live views at 80 and 160 columns (tmux, real UUIDs, long text)', () => {
  const campaignId = randomUUID();
  beforeAll(async () => {
    assertBuilt();
    emu = await startTestEmulator();
  });
  afterAll(async () => {
    await emu?.close();
  });

  for (const width of [80, 160]) {
    it(`events tail at ${width} columns: short call ids, aligned columns, summaries wrapped under themselves, alerts on lines of their own`, async () => {
      const from = (await publish('campaign.status.updated', null, { campaignId, status: 'active', previousStatus: 'draft' })).lastId;
      const callId = await oneCall(campaignId);
      const tty = new TmuxSession(`node ${shellQuote(BIN)} events tail --last-event-id ${Number(from) - 1} --exit-on call.analysis.completed`, {
        env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1', TERM: 'xterm-256color' },
        width,
        height: 60,
      });
      try {
        expect(await tty.exitCode()).toBe(0);
        const lines = checkWidth(tty.capture(), width);
        const short = callId.slice(0, 8);
        // The call column: eight hex digits, the full id nowhere but in the resume hint.
        const rows = lines.filter((l) => /^\d\d:\d\d:\d\d  /.test(l));
        expect(rows.map((l) => l.slice(10).split(/\s+/)[0])).toEqual([
          'campaign.status.updated',
          'call.status.updated',
          'call.started',
          'call.ended',
          'call.analysis.completed',
        ]);
        for (const r of rows.slice(1)) expect(r.slice(10 + 32, 10 + 32 + 9)).toBe(`${short} `);
        expect(rows[0]!.slice(10 + 32, 10 + 32 + 9)).toBe('—        ');
        expect(lines.filter((l) => l.includes(callId)).every((l) => l.includes('resume with:'))).toBe(true);
        // The summary column starts at 51 on every line of every event, continuation lines included.
        const at = lines.findIndex((l) => / call\.analysis\.completed /.test(l));
        const cont = lines.slice(at + 1).filter((l) => /^ {51}[^\s!]/.test(l));
        const text = textFrom([lines[at]!, ...cont], 51);
        expect(text).toBe(`negative — ${LONG_SUMMARY}`);
        if (width === 80) expect(cont.length).toBeGreaterThan(3);
        // Alerts follow, a mark and words (not colour alone), aligned on the summary column.
        expect(lines).toContain(`${' '.repeat(51)}! LEGAL threat`);
        expect(lines).toContain(`${' '.repeat(51)}! DO NOT CALL requested`);
        // Campaign ids inside summaries are short too.
        expect(lines.find((l) => l.includes('call.started'))).toContain('outbound to Margaret Hamilton');
        expect(tty.capture()).toContain(`campaign ${campaignId.slice(0, 8)}`);
      } finally {
        tty.kill();
      }
    });

    // --wide with exact times needs 95 columns before the summary: a choice for a wide terminal.
    it.skipIf(width < 160)(`events tail --wide --absolute-times at ${width} columns: the whole id and the exact time, the columns widened to fit`, async () => {
      const from = (await publish('campaign.status.updated', null, { campaignId, status: 'paused', previousStatus: 'active' })).lastId;
      const callId = await oneCall(campaignId);
      const tty = new TmuxSession(
        `node ${shellQuote(BIN)} events tail --wide --absolute-times --last-event-id ${Number(from) - 1} --exit-on call.analysis.completed`,
        {
          env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1', TERM: 'xterm-256color' },
          width,
          height: 80,
        },
      );
      try {
        expect(await tty.exitCode()).toBe(0);
        const lines = checkWidth(tty.capture(), width);
        const rows = lines.filter((l) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z  /.test(l));
        expect(rows).toHaveLength(5);
        // stamp (24) + 2, type (31) + 1, id (36) + 1: the summary at column 95.
        for (const r of rows.slice(1)) expect(r.slice(58, 95)).toBe(`${callId} `);
        const at = lines.findIndex((l) => / call\.analysis\.completed /.test(l));
        const cont = lines.slice(at + 1).filter((l) => /^ {95}[^\s!]/.test(l));
        expect(textFrom([lines[at]!, ...cont], 95)).toBe(`negative — ${LONG_SUMMARY}`);
        const started = lines.findIndex((l) => / call\.started /.test(l));
        const startedText = textFrom(
          [lines[started]!, ...lines.slice(started + 1).filter((_l, i, all) => all.slice(0, i + 1).every((x) => /^ {95}\S/.test(x)))],
          95,
        );
        expect(startedText).toBe(`outbound to Margaret Hamilton +14155550108 · agent ag_dh6e446kz0ju4xck v3 · campaign ${campaignId}`);
        expect(tty.capture()).toMatch(/resume with: vap --absolute-times events tail --wide --last-event-id \d+/);
      } finally {
        tty.kill();
      }
    });

    it(`calls tail at ${width} columns: the chat wraps under its text, alerts as in calls get, the end notice after the last event`, async () => {
      const callId = await oneCall(campaignId);
      const tty = new TmuxSession(`node ${shellQuote(BIN)} calls tail ${callId}`, {
        env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1', TERM: 'xterm-256color' },
        width,
        height: 60,
      });
      try {
        expect(await tty.exitCode()).toBe(0);
        const lines = checkWidth(tty.capture(), width);
        // Chat lines: time (8), role (6), then the text at column 18; its further lines hang there.
        const agent = lines.findIndex((l) => /^ {3}\+0:00  agent {3}Hi, is this Margaret\?/.test(l));
        expect(agent).toBeGreaterThan(0);
        const caller = lines.findIndex((l) => /^ {3}\+0:14  caller {2}Please take me off/.test(l));
        expect(textFrom(lines.slice(agent, caller), 18)).toBe(LONG_AGENT);
        const next = lines.findIndex((l, i) => i > caller && !/^ {18}\S/.test(l));
        expect(textFrom(lines.slice(caller, next), 18)).toBe(LONG_CALLER);
        if (width === 80) expect(caller - agent).toBeGreaterThan(2);
        // The analysis: its summary whole, then the alerts in calls get's words.
        const analysis = lines.findIndex((l) => l.includes('call.analysis.completed'));
        const alertAt = lines.findIndex((l) => l.trim() === '! LEGAL threat');
        expect(alertAt).toBeGreaterThan(analysis);
        expect(lines[alertAt]).toBe(`${' '.repeat(18)}! LEGAL threat`);
        expect(lines[alertAt + 1]).toBe(`${' '.repeat(18)}! DO NOT CALL requested`);
        expect(lines.join('\n')).not.toContain('CRISIS');
        const summary = `${lines[analysis]!.slice(lines[analysis]!.indexOf('call.analysis.completed') + 'call.analysis.completed'.length).trim()} ${textFrom(lines.slice(analysis + 1, alertAt), 18)}`;
        expect(summary).toBe(`negative — ${LONG_SUMMARY}`);
        // "is over" comes after the last event it refers to, with the full id; nothing follows a call that is over, so no resume hint.
        const over = lines.findIndex((l) => l.startsWith(`call ${callId} is over`));
        expect(over).toBeGreaterThan(alertAt);
        expect(lines.slice(over).join('\n')).not.toContain('resume with');
      } finally {
        tty.kill();
      }
    });
  }
});
