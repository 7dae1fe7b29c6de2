import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDelimiter, resumeCommand, shellArg } from '../../src/commands/contacts/run-import.js';
import { doneFraction, estimateRows, formatCount, formatEta, ProgressBar, renderBar } from '../../src/contacts/progress.js';
import { RowReporter, summaryText, type ImportSummary } from '../../src/contacts/report.js';
import type { ImportRequest } from '../../src/contacts/importer.js';
import type { ImportOptions } from '../../src/commands/contacts/import.js';

describe('progress bar', () => {
  it('shows rows done of the rows in the file (~ while estimated), rows sent, rows done per second and an ETA', () => {
    const line = renderBar({ done: 1000, total: 4000, exact: false, sent: 1800 }, 2000, 120);
    expect(line).toMatch(/^\[█+░+\]  25%  1,000 of ~4,000 rows  1,800 sent  500 rows\/s  ETA 0:06$/);
    expect(renderBar({ done: 10, total: 10, exact: true, finished: true }, 1000, 120)).toMatch(/^\[█+\] 100%  10 of 10 rows  10 rows\/s$/);
    expect(renderBar({ done: 50, total: 100, exact: true, phase: 'waiting for 3 jobs' }, 1000, 120)).toMatch(/waiting for 3 jobs$/);
    expect(renderBar({ done: 0, total: Number.NaN, exact: false }, 0, 30).length).toBeLessThanOrEqual(29);
  });

  it('fits 80 and 40 columns by leaving out rows/s, rows sent, the bar, then the ETA or phase; the percentage and rows done stay', () => {
    const waiting = { done: 18_000, total: 20_000, exact: true, sent: 20_000, phase: 'waiting for 2 jobs' };
    expect(renderBar(waiting, 900, 80)).toMatch(/^\[█+░+\]  90%  18,000 of 20,000 rows  20,000 sent  waiting for 2 jobs$/);
    expect(renderBar(waiting, 900, 40)).toBe('90%  18,000 of 20,000 rows');
    expect(renderBar({ done: 4_500, total: 20_236, exact: false, sent: 8_000 }, 400, 40)).toBe('22%  4,500 of ~20,236 rows  ETA 0:01');
    for (const width of [80, 40]) expect(renderBar(waiting, 900, width).length).toBeLessThanOrEqual(width - 1);
  });

  it('never shows 100% before the last frame, even when every row counted so far is done', () => {
    expect(renderBar({ done: 10, total: 10, exact: true, sent: 10 }, 1000, 120)).toMatch(/^\[█+░\]  99%  10 of 10 rows/);
    expect(doneFraction({ done: 12, total: 10, exact: false })).toBe(0.99);
    expect(doneFraction({ done: 5, total: Number.NaN, exact: false })).toBe(0);
  });

  it('estimates the rows of a file from the rows parsed and the bytes they took, the header apart', () => {
    // 100 rows of 10 bytes parsed after an 11-byte header, in a file of 10,011 bytes: 1,000 rows.
    expect(estimateRows(10_011, { rows: 100, bytes: 1_011, headerBytes: 11 })).toBe(1000);
    // Never fewer than the rows already parsed; unknown before the first row.
    expect(estimateRows(50, { rows: 100, bytes: 1_011, headerBytes: 11 })).toBe(100);
    expect(estimateRows(10_011, { rows: 0, bytes: 11, headerBytes: 11 })).toBeNaN();
  });

  it('formats an ETA', () => {
    expect(formatEta(5)).toBe('0:05');
    expect(formatEta(65)).toBe('1:05');
    expect(formatEta(3725)).toBe('1:02:05');
    expect(formatEta(Number.NaN)).toBe('--:--');
  });

  it('draws only when enabled, prints lines above itself, and leaves its last frame at 100%', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const bar = new ProgressBar(out, true);
    bar.update({ done: 5, total: 10, exact: false });
    await new Promise((r) => setTimeout(r, 250));
    bar.log('row 1, field x: bad');
    bar.finish({ done: 10, total: 10, exact: true });
    expect(text).toContain('\r\x1b[2K[');
    expect(text).toContain('row 1, field x: bad\n');
    expect(text).toMatch(/\r\x1b\[2K\[█+\] 100%  10 of 10 rows  [\d,]+ rows\/s\n$/);
    const off = new PassThrough();
    let none = '';
    off.on('data', (c: Buffer) => (none += c.toString()));
    const quiet = new ProgressBar(off, false);
    quiet.update({ done: 1, total: 1, exact: true });
    quiet.log('a line');
    quiet.finish({ done: 1, total: 1, exact: true });
    quiet.stop();
    expect(none).toBe('a line\n');
  });
});

describe('row reporter', () => {
  it('caps the lines on screen and says how many more are in the errors file', () => {
    const lines: string[] = [];
    const r = new RowReporter((l) => lines.push(l), 3);
    for (let i = 1; i <= 5; i++) r.row(i, i % 2 ? 'phone' : '', 'bad');
    r.row(6, 'email', 'taken', 'server');
    r.finish('leads.errors.csv');
    expect(lines).toEqual(['row 1, field phone: bad', 'row 2: bad', 'row 3, field phone: bad', '… and 3 more, see leads.errors.csv']);
  });
});

const base: ImportSummary = {
  listId: 'cl_1',
  file: 'leads.csv',
  format: 'csv',
  dryRun: false,
  rows: 2_000_000,
  valid: 1_901_000,
  imported: 1_899_000,
  rejectedLocally: 99_000,
  rejectedByServer: 2_000,
  jobs: 1_901,
  failedJobs: [],
  normalised: { count: 12, examples: [{ row: 3, field: 'phone', from: '(415) 555-0100', to: '+14155550100' }] },
  errorsFile: 'leads.errors.csv',
  stateFile: 'leads.csv.vap-import.json',
  resumed: false,
  complete: true,
  interrupted: false,
  elapsedMs: 192_000,
  rowsPerSecond: 10_416,
};

describe('summary', () => {
  it('an import: total, imported, rejected locally and by the server, jobs, normalised phones, errors file', () => {
    expect(summaryText(base, 1000)).toBe(
      [
        'Imported leads.csv into list cl_1: 2,000,000 rows in 3m 12s',
        '  imported            1,899,000',
        '  rejected locally       99,000  (not sent)',
        '  rejected by server      2,000',
        '  jobs                    1,901',
        '  phones normalised          12  (to E.164)',
        '    row 3, phone: (415) 555-0100 → +14155550100',
        // 12 normalised, one listed: the rest are counted, so the list and the count agree.
        '    … and 11 more',
        'Errors file: leads.errors.csv (101,000 rows; fix them and import that file)',
        '',
      ].join('\n'),
    );
  });

  it('a dry run', () => {
    const text = summaryText({ ...base, dryRun: true, imported: 0, rejectedByServer: 0, jobs: 0 }, 1000);
    expect(text).toContain('Dry run of leads.csv against list cl_1 (nothing sent): 2,000,000 rows');
    expect(text).toMatch(/valid\s+1,901,000 {2}\(would be sent in 1,901 jobs\)/);
    expect(text).toMatch(/rejected\s+99,000/);
  });
});

describe('resume command', () => {
  const req = (over: Partial<ImportRequest> = {}): ImportRequest => ({
    listId: 'cl_1',
    file: 'my leads.csv',
    format: 'csv',
    delimiter: ',',
    encoding: 'utf-8',
    maps: [],
    dryRun: false,
    batchSize: 1000,
    concurrency: 4,
    resume: false,
    force: false,
    progress: true,
    ...over,
  });
  const opts = (over: Partial<ImportOptions> = {}) => ({ map: [], batchSize: 1000, concurrency: 4, timeout: 1, ...over }) as ImportOptions;

  it('repeats the options that decide the batches, quoted for a shell', () => {
    expect(resumeCommand(req(), opts())).toBe("vap contacts import cl_1 'my leads.csv' --resume");
    expect(
      resumeCommand(req({ delimiter: '\t', defaultCountry: 'US', batchSize: 500 }), opts({ delimiter: 'tab', map: ["Bob's=name"], stateFile: '/tmp/s.json' })),
    ).toBe(
      "vap contacts import cl_1 'my leads.csv' --resume --delimiter '\\t' --map 'Bob'\\''s=name' --default-country US --batch-size 500 --state-file /tmp/s.json",
    );
  });

  it('shell quoting and delimiters', () => {
    expect(shellArg('plain-1.csv')).toBe('plain-1.csv');
    expect(shellArg('a b')).toBe("'a b'");
    expect(parseDelimiter('\\t')).toBe('\t');
    expect(parseDelimiter('tab')).toBe('\t');
    expect(parseDelimiter(';')).toBe(';');
    expect(() => parseDelimiter('"')).toThrow(/invalid --delimiter/);
  });
});

describe('formatCount', () => {
  it('groups digits as toLocaleString("en-US") does (but never prints -0)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: -1e12, max: 1e12 }), fc.double({ min: -1e15, max: 1e15, noNaN: true }), fc.constantFrom(0, -0, 0.5, -0.5, 999.5, -1000.4)),
        (n) => {
          expect(formatCount(n)).toBe((Math.round(n) || 0).toLocaleString('en-US'));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
