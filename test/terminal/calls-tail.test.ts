import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

let emu: TestEmulator;

const publish = (type: string, callId: string, data: Record<string, unknown>) => emu.control('POST', '/events', { type, callId, data });

describe.skipIf(!hasTmux())('calls tail in a real terminal (tmux)', () => {
  beforeAll(async () => {
    assertBuilt();
    emu = await startTestEmulator();
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('renders a live call as a chat between status lines, and ends after the analysis', async () => {
    const callId = 'call_tmux_1';
    await publish('call.status.updated', callId, { status: 'ringing', previousStatus: 'initiated' });
    const tty = new TmuxSession(`node ${shellQuote(BIN)} calls tail ${callId}`, {
      env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1', TERM: 'xterm-256color' },
    });
    try {
      await tty.waitFor(/initiated → ringing/);
      expect(tty.capture()).toMatch(/Following call call_tmux_1; Ctrl-C to stop/);
      await publish('call.started', callId, {
        status: 'in_progress',
        direction: 'outbound',
        phoneNumber: '+15550123',
        calleeName: 'Ana Ruiz',
        agentId: 'ag_1',
        agentVersion: 3,
      });
      await publish('call.voice.updated', callId, { speaking: 'agent' });
      await publish('call.transcript.updated', callId, { role: 'agent', text: 'Hello, this is Maya from Acme Dental.', ordinal: 1, offsetSeconds: 0.5 });
      await publish('call.transcript.updated', callId, { role: 'user', text: 'Hi Maya, I wanted to move my appointment.', ordinal: 2, offsetSeconds: 3.1 });
      await tty.waitFor(/caller\s+Hi Maya, I wanted to move my appointment\./);
      await publish('call.ended', callId, { status: 'completed', durationSeconds: 94, engine: 'realtime' });
      await tty.waitFor(/call\.ended\s+completed after 1m 34s \(realtime\)/);
      await publish('call.analysis.completed', callId, { summary: 'Moved the appointment to Friday.', overallSentiment: 'positive', resolved: true });
      expect(await tty.exitCode()).toBe(0);
      const screen = tty.capture();
      expect(screen).toMatch(/call\.started\s+outbound to Ana Ruiz \+15550123 · agent ag_1 v3/);
      expect(screen).toMatch(/agent\s+Hello, this is Maya from Acme Dental\./);
      expect(screen).toMatch(/call\.analysis\.completed\s+positive · resolved — Moved the appointment to Friday\./);
      // Voice activity is left out of the chat unless asked for.
      expect(screen).not.toContain('agent speaking');
      // The order on screen is the order of the call.
      const order = ['ringing', 'Ana Ruiz', 'Hello, this is Maya', 'Hi Maya', 'completed after', 'Moved the appointment'].map((s) => screen.indexOf(s));
      expect(order).toEqual([...order].sort((a, b) => a - b));
      // The call is over: no resume hint.
      expect(screen).toMatch(/call call_tmux_1 is over: its analysis is in/);
      expect(screen).not.toContain('resume with');
    } finally {
      tty.kill();
    }
  });
});
