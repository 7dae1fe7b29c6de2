import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDelimiter, resumeCommand, shellArg } from '../../src/contacts/command.js';
import { formatCount, formatEta, ProgressBar, renderBar } from '../../src/contacts/progress.js';
import { RowReporter, summaryText, type ImportSummary } from '../../src/contacts/report.js';
import type { ImportRequest } from '../../src/contacts/importer.js';
import type { ImportOptions } from '../../src/commands/contacts/import.js';

describe('progress bar', () => {
  it('shows rows, rows sent, rows per second and an ETA from the bytes read', () => {
    const line = renderBar({ bytes: 25, rows: 1000, sent: 800 }, 100, 2000, 120);
    expect(line).toMatch(/^\[█+░+\]  25%  1,000 rows  800 sent  500 rows\/s  ETA 0:06$/);
    expect(renderBar({ bytes: 100, rows: 10 }, 100, 1000, 120)).toMatch(/100%  10 rows  10 rows\/s  ETA 0:00$/);
    expect(renderBar({ bytes: 50, rows: 10, phase: 'waiting for 3 jobs' }, 100, 1000, 120)).toMatch(/waiting for 3 jobs$/);
    expect(renderBar({ bytes: 0, rows: 0 }, 100, 0, 30).length).toBeLessThanOrEqual(29);
  });

  it('formats an ETA', () => {
    expect(formatEta(5)).toBe('0:05');
    expect(formatEta(65)).toBe('1:05');
    expect(formatEta(3725)).toBe('1:02:05');
    expect(formatEta(Number.NaN)).toBe('--:--');
  });

  it('draws only when enabled, and prints lines above itself', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const bar = new ProgressBar(out, 100, true);
    bar.update({ bytes: 50, rows: 5 });
    await new Promise((r) => setTimeout(r, 250));
    bar.log('row 1, field x: bad');
    bar.stop();
    expect(text).toContain('\r\x1b[2K[');
    expect(text).toContain('row 1, field x: bad\n');
    const off = new PassThrough();
    let none = '';
    off.on('data', (c: Buffer) => (none += c.toString()));
    const quiet = new ProgressBar(off, 100, false);
    quiet.update({ bytes: 1, rows: 1 });
    quiet.log('a line');
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
    expect(resumeCommand(req({ delimiter: '\t', defaultCountry: 'US', batchSize: 500 }), opts({ delimiter: 'tab', map: ["Bob's=name"], stateFile: '/tmp/s.json' }))).toBe(
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
      fc.property(fc.oneof(fc.integer({ min: -1e12, max: 1e12 }), fc.double({ min: -1e15, max: 1e15, noNaN: true }), fc.constantFrom(0, -0, 0.5, -0.5, 999.5, -1000.4)), (n) => {
        expect(formatCount(n)).toBe((Math.round(n) || 0).toLocaleString('en-US'));
      }),
      { numRuns: 2000 },
    );
  });
});
