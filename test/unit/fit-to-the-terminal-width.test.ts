import { PassThrough } from 'node:stream';
import { Chalk } from 'chalk';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { fitColumns } from '../../src/ui/columns.js';
import { LiveLine } from '../../src/ui/live-line.js';
import { renderDetail, renderTable } from '../../src/ui/table.js';
import { fitLine, messageText, messageWithCommand, wrapLines, wrapWords } from '../../src/ui/fit.js';
import { callTableHeader, callTableLayout, callTableRow } from '../../src/calls/table.js';
import type { Call } from '../../src/api/calls.js';

// The one mechanism that fits what vap shows to a terminal's width (src/ui/width.ts,
// src/ui/columns.ts, src/ui/live-line.ts): lines cut by display width, text wrapped at word
// boundaries, and the columns of a table sharing the width by one policy.

const plain = new Chalk({ level: 0 });
const colour = new Chalk({ level: 1 });
const widest = (text: string) => Math.max(...text.split('\n').map((l) => stringWidth(l)));

describe('a line cut to a width', () => {
  it('measures display columns: wide characters take two, colours none; a cut line ends in …', () => {
    expect(fitLine('short', 10)).toBe('short');
    expect(fitLine('a line that is too long', 10)).toBe('a line th…');
    expect(stringWidth(fitLine('日本語のテキストです', 9))).toBeLessThanOrEqual(9);
    const red = colour.red('a red line that is too long');
    const cut = fitLine(red, 10);
    expect(stringWidth(cut)).toBe(10);
    expect(cut).toContain('\x1b[31m');
    expect(cut.endsWith('\x1b[39m')).toBe(true);
  });
});

describe('text wrapped at word boundaries', () => {
  it('never breaks inside a word that fits a line; further lines hang under the text after a mark', () => {
    const text = 'call 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e is over: its analysis is in (6 events); --follow keeps listening';
    const lines = wrapWords(text, 40);
    expect(lines.every((l) => stringWidth(l) <= 40)).toBe(true);
    expect(lines.join(' ')).toBe(text);
    const marked = messageText('the run completed below a gate; fix what is listed above and run it again', 40, '✓ ').split('\n');
    expect(marked[0]!.startsWith('✓ the run')).toBe(true);
    expect(marked.slice(1).every((l) => l.startsWith('  ') && !l.startsWith('   '))).toBe(true);
    expect(marked.every((l) => stringWidth(l) <= 40)).toBe(true);
  });

  it('keeps a command in backticks on one line when it fits one', () => {
    const lines = wrapWords('no API key found for profile "staging"; run `vap auth login --profile staging`, or set VAP_API_KEY', 50);
    expect(lines.some((l) => l.includes('`vap auth login --profile staging`'))).toBe(true);
    expect(lines.every((l) => stringWidth(l) <= 50)).toBe(true);
  });

  it('leaves a message whole without a width (piped)', () => {
    const long = 'x '.repeat(100).trim();
    expect(messageText(long, undefined, '! ')).toBe(`! ${long}`);
    expect(wrapLines(`${long}\n  ${long}`, undefined)).toBe(`${long}\n  ${long}`);
  });

  it('wraps each line of a block under its own indentation', () => {
    const out = wrapLines('Summary\n  rejected locally  3  (not sent, see the errors file written beside the input file)', 40);
    expect(widest(out)).toBeLessThanOrEqual(40);
    expect(
      out
        .split('\n')
        .slice(1)
        .every((l) => l.startsWith('  ')),
    ).toBe(true);
  });

  it('puts a command that does not fit on lines of its own, continued with a backslash, each line fitting', () => {
    const id = '0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e';
    const cmd = `vap calls tail ${id} --last-event-id 142`;
    expect(messageWithCommand('last event id 142; resume with:', cmd, 120)).toBe(`last event id 142; resume with: ${cmd}`);
    const at80 = messageWithCommand('last event id 142; resume with:', cmd, 80);
    expect(at80).toBe(`last event id 142; resume with:\n  ${cmd}`);
    const at40 = messageWithCommand('last event id 142; resume with:', cmd, 40);
    expect(widest(at40)).toBeLessThanOrEqual(40);
    // Pasted into a shell, the continued lines are the one command.
    expect(
      at40
        .split('\n')
        .slice(1)
        .join('\n')
        .replace(/ \\\n\s*/g, ' ')
        .trim(),
    ).toBe(cmd);
  });
});

describe('the column policy', () => {
  it('draws a table that fits as it is, and any table as it is without a width', () => {
    expect(fitColumns([{ natural: 10 }, { natural: 20, flex: true }], 80)).toEqual([10, 20]);
    expect(fitColumns([{ natural: 50 }, { natural: 60, flex: true }], undefined)).toEqual([50, 60]);
  });

  it('cuts the free-text columns first, the widest to one common width, never below their minimum', () => {
    // 8 + 2 + 40 + 2 + 30 = 82 > 60: the free text shares 48 columns.
    const w = fitColumns([{ natural: 8 }, { natural: 40, flex: true }, { natural: 30, flex: true }], 60);
    expect(w[0]).toBe(8);
    expect(w[1]! + w[2]!).toBe(48);
    expect(Math.abs(w[1]! - w[2]!)).toBeLessThanOrEqual(1);
  });

  it('then leaves out the columns a listing marks optional, then the right-most, never the first', () => {
    const cols = [{ natural: 8 }, { natural: 11 }, { natural: 9, drop: 1 }, { natural: 22, flex: true }, { natural: 16, drop: 2 }, { natural: 14 }];
    // 80: the free text cut to 12 is enough. 60: DIRECTION, then PHONE, left out; the free text takes the rest.
    expect(fitColumns(cols, 80)).toEqual([8, 11, 9, 12, 16, 14]);
    expect(fitColumns(cols, 60)).toEqual([8, 11, 0, 21, 0, 14]);
    // 40: then the right-most (CREATED).
    expect(fitColumns(cols, 40)).toEqual([8, 11, 0, 17, 0, 0]);
  });

  it('cuts every column, the widest first, only when the first alone does not fit', () => {
    const w = fitColumns([{ natural: 60 }, { natural: 10 }], 40);
    expect(w).toEqual([40, 0]);
  });
});

describe('a table on a terminal', () => {
  const uuid = '0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e';
  const rows = [
    { id: uuid, name: 'Ava', language: 'en-US', description: 'Warm, upbeat American English; a friendly receptionist for a dental practice' },
    { id: '4f1c2a9e-1111-4c8e-9d0e-3f7a1c2b4d5e', name: 'Marcus', language: 'en-US', description: 'Calm, low American English; patient for support lines' },
  ];
  const columns = [
    { header: 'id', value: (r: (typeof rows)[number]) => r.id },
    { header: 'name', value: (r: (typeof rows)[number]) => r.name },
    { header: 'language', value: (r: (typeof rows)[number]) => r.language },
    { header: 'description', value: (r: (typeof rows)[number]) => r.description },
  ];

  it('fits the width: a UUID as its first eight digits, free text cut with …', () => {
    for (const width of [80, 40]) {
      const out = renderTable(rows, columns, plain, undefined, { width });
      expect(widest(out), out).toBeLessThanOrEqual(width);
      expect(out).toContain('0b6d2f7c  ');
      expect(out).not.toContain(uuid);
    }
    expect(renderTable(rows, columns, plain, undefined, { width: 80 })).toMatch(/…$/m);
  });

  it('shows whole ids and every column with --wide, and everything whole without a width (piped -o table)', () => {
    const wide = renderTable(rows, columns, plain, undefined, { width: 40, wide: true });
    expect(wide).toContain(uuid);
    expect(wide).toContain('a friendly receptionist for a dental practice');
    expect(renderTable(rows, columns, plain)).toContain(uuid);
  });

  it('wraps a detail value at word boundaries under itself; an id too wide for the room goes whole under its label', () => {
    const out = renderDetail(rows[0]!, columns, plain, undefined, { width: 40 });
    expect(widest(out)).toBeLessThanOrEqual(40);
    const lines = out.split('\n');
    expect(lines.slice(0, 2).map((l) => l.trimEnd())).toEqual(['id', `  ${uuid}`]);
    expect(lines[4]).toMatch(/^description  Warm, upbeat/);
    expect(lines.slice(5).every((l) => l.startsWith(' '.repeat(13)))).toBe(true);
  });

  it('the streamed calls table takes the same policy: one line a row at 80 and 40 columns', () => {
    const call = {
      id: uuid,
      status: 'in_progress',
      direction: 'outbound',
      calleeName: 'Margaret Hamilton-Whitfield',
      phoneNumber: '+14155550108',
      duration: 113,
      endedAt: null,
      createdAt: new Date().toISOString(),
    } as unknown as Call;
    for (const width of [80, 40]) {
      const layout = callTableLayout(undefined, { width });
      const text = `${callTableHeader(plain, layout)}\n${callTableRow(call, plain, undefined, layout)}`;
      expect(widest(text), text).toBeLessThanOrEqual(width);
      expect(text).toMatch(/^0b6d2f7c  in_progress/m);
    }
    const wide = callTableLayout(undefined, { width: 80, wide: true });
    expect(callTableRow(call, plain, undefined, wide)).toContain(uuid);
  });
});

describe('a line redrawn in place', () => {
  it('is cut to one column less than the terminal, and a bar gives way to its figures', () => {
    const stream = Object.assign(new PassThrough(), { columns: 40 });
    let written = '';
    stream.on('data', (c: Buffer) => (written += c.toString()));
    const line = new LiveLine(stream);
    line.drawBar(0.5, 'run #12 running  5 completed, 0 failed of 10 iterations  12.3s');
    const frame = written.replace('\r\x1b[2K', '');
    expect(stringWidth(frame)).toBe(39);
    expect(frame).toMatch(/^█{5}░{5}  50%  run #12/);
    stream.columns = 120;
    written = '';
    line.drawBar(1, 'run #12 completed');
    expect(written).toMatch(/^\r\x1b\[2K█{24} 100%  run #12 completed$/);
  });
});
