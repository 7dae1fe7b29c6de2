import { Chalk } from 'chalk';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import type { CallDetail } from '../../src/api/calls.js';
import { renderCallDetail } from '../../src/calls/detail.js';
import { hanging, wrapText } from '../../src/ui/wrap.js';

// `vap calls get` on a terminal: every line within the width, the id never split, and the
// trailer wrapped between words with its command on one line where it fits (the terminal
// test runs the command itself under tmux: test/terminal/every-view-fits-the-pane.test.ts).

const plain = new Chalk({ level: 0 });
const id = 'e1db4c51-1188-43ef-bd2d-88f8d2cda08a';
const call = {
  id,
  status: 'completed',
  direction: 'outbound',
  calleeName: 'Patient with a rather long name 8',
  phoneNumber: '+14155551008',
  duration: 187,
  campaignId: '469e7ef8-1aba-4752-b864-cc4e473dee81',
  agentId: 'ag_6b0rl3q9q40m7199',
  agentVersion: 4,
  createdAt: '2026-11-05T15:14:40.907Z',
  endedAt: '2026-11-05T15:17:47.907Z',
  summary: 'The caller agreed and the agent confirmed the request. The caller updated their e-mail address.',
  analysis: {
    analyzedAt: '2026-11-05T15:19:47.907Z',
    resolution: { resolved: true, resolutionType: 'full', followUpRequired: true, summary: 'The purpose of the call was met.' },
    objectives: { primary: { status: 'True', confidence: 0.93, reasoning: 'The contact agreed and the agent confirmed the outcome.' } },
  },
} as unknown as CallDetail;

const p = { absoluteTimes: true } as never;

describe('calls get within its width', () => {
  for (const width of [80, 40]) {
    it(`at ${width} columns: no line wider, the id whole, the trailer one sentence`, () => {
      const lines = renderCallDetail(call, plain, width, p).split('\n');
      expect(
        lines.filter((l) => stringWidth(l) > width),
        lines.join('\n'),
      ).toEqual([]);
      expect(lines.some((l) => l.includes(id))).toBe(true);
      const start = lines.findIndex((l) => l.startsWith('Analysed '));
      expect(lines.slice(start).join(' ')).toBe(`Analysed 2026-11-05T15:19:47.907Z · vap calls get ${id} --json for every field`);
    });
  }

  it('keeps the header on one line when it fits, and the command whole at 80 columns', () => {
    const at100 = renderCallDetail(call, plain, 100, p).split('\n');
    expect(at100[0]).toBe(`Call ${id}  completed · outbound · 3m 7s`);
    const at80 = renderCallDetail(call, plain, 80, p).split('\n');
    expect(at80.some((l) => l.includes(`vap calls get ${id} --json`))).toBe(true);
    const at40 = renderCallDetail(call, plain, 40, p).split('\n');
    expect(at40.slice(0, 2)).toEqual(['Call  completed · outbound · 3m 7s', id]);
  });
});

describe('text wrapped under a lead', () => {
  it('is left as it is when it fits, and wraps under its text otherwise', () => {
    expect(hanging('API key   ', 'key… (from VAP_API_KEY)', 40)).toEqual(['API key   key… (from VAP_API_KEY)']);
    const lines = hanging('Base URL  ', 'http://127.0.0.1:46193 (from env)', 40);
    expect(lines).toEqual(['Base URL  http://127.0.0.1:46193 (from', '          env)']);
    expect(hanging('x ', 'a b c', undefined)).toEqual(['x a b c']);
  });

  it('keeps a command whole on one line when it fits one', () => {
    const cmd = 'vap calls get 0b6d2f7c --json';
    expect(wrapText(`Analysed just now · ${cmd} for every field`, 32, [cmd])).toEqual(['Analysed just now ·', cmd, 'for every field']);
  });
});
