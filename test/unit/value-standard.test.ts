import { describe, expect, it } from 'vitest';
import { CallTrend } from '../../src/campaigns/render.js';
import { cellText } from '../../src/ui/format.js';
import { renderDetail, renderTable } from '../../src/ui/table.js';
import {
  count,
  duration,
  formatCount,
  formatDuration,
  formatScore,
  formatSeconds,
  formatTime,
  presentation,
  ratio,
  relativeTime,
  roleWord,
  score,
  shortId,
  stampTime,
  time,
} from '../../src/ui/values.js';
import { Chalk } from 'chalk';

const NOW = Date.parse('2026-11-24T14:47:05.686Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const fixed = presentation({ now: () => NOW });
const exact = presentation({ now: () => NOW, absoluteTimes: true });
const plain = new Chalk({ level: 0 });

describe('the value standard (src/ui/values.ts)', () => {
  it('counts: thousands separators for people, whole numbers only', () => {
    expect([0, 7, 999, 1000, 49_889, 1_234_567, -12_345, 12.6].map(formatCount)).toEqual(['0', '7', '999', '1,000', '49,889', '1,234,567', '-12,345', '13']);
    expect(formatCount(Number.NaN)).toBe('NaN');
  });

  it('durations: humanized from milliseconds and from the API’s seconds', () => {
    expect([0, 250, 1500, 9_999, 10_000, 45_000, 60_000, 113_000, 3_600_000, 3_900_000, 90_000_000].map(formatDuration)).toEqual([
      '0s',
      '250ms',
      '1.5s',
      '10s',
      '10s',
      '45s',
      '1m',
      '1m 53s',
      '1h',
      '1h 5m',
      '1d 1h',
    ]);
    expect([0, 46, 113, 151.2, 3725].map(formatSeconds)).toEqual(['0s', '46s', '1m 53s', '2m 31s', '1h 2m']);
    expect(formatDuration(-1)).toBe('?');
  });

  it('times: relative to now on a terminal, rounded down, past and future', () => {
    expect(relativeTime(ago(2_000), NOW)).toBe('just now');
    expect(relativeTime(ago(40_000), NOW)).toBe('40 seconds ago');
    expect(relativeTime(ago(60_000), NOW)).toBe('1 minute ago');
    expect(relativeTime(ago(3 * 60_000 + 59_000), NOW)).toBe('3 minutes ago');
    expect(relativeTime(ago(-2 * 3_600_000 - 1_000), NOW)).toBe('in 2 hours');
    expect(relativeTime(ago(5 * 86_400_000), NOW)).toBe('5 days ago');
    expect(relativeTime(ago(65 * 86_400_000), NOW)).toBe('2 months ago');
    expect(relativeTime(ago(400 * 86_400_000), NOW)).toBe('1 year ago');
    expect(relativeTime('not a time', NOW)).toBe('not a time');
  });

  it('times: exact ISO 8601 as the API gave it with --absolute-times; nothing for none', () => {
    const iso = ago(180_000);
    expect(formatTime(iso, fixed)).toBe('3 minutes ago');
    expect(formatTime(iso, exact)).toBe(iso);
    expect(formatTime(null, fixed)).toBe('');
    expect(stampTime(iso, exact)).toBe(iso);
    expect(stampTime(iso, fixed)).toMatch(/^\d\d:\d\d:\d\d$/);
  });

  it('scores: three decimals, a dash for none', () => {
    expect([0.8, 0.81234, 1, 0].map(formatScore)).toEqual(['0.800', '0.812', '1.000', '0.000']);
    expect(formatScore(null)).toBe('–');
  });

  it('roles: caller for people, the API’s user for programs', () => {
    expect(roleWord('user')).toBe('caller');
    expect(roleWord('agent')).toBe('agent');
    expect(roleWord('user', 'data')).toBe('user');
    expect(roleWord('caller', 'data')).toBe('user');
    expect(roleWord(undefined)).toBe('?');
  });

  it('ids: a UUID’s first eight digits; other ids whole up to the column, cut with an ellipsis', () => {
    expect(shortId('15eb9c0a-b827-44ef-9aa0-55bc6ec1c5f8')).toBe('15eb9c0a');
    expect(shortId('call_tmux_1', 8)).toBe('call_tm…');
    expect(shortId('call_8f2k')).toBe('call_8f2k');
  });

  it('cells: one value, the exact form piped (TSV) and the human one in tables and details', () => {
    const row = { at: ago(7_200_000), took: 113, n: 49_889, s: 0.81234, none: null as number | null };
    const columns = [
      { header: 'at', value: (r: typeof row) => time(r.at) },
      { header: 'took', value: (r: typeof row) => duration(r.took) },
      { header: 'n', value: (r: typeof row) => count(r.n) },
      { header: 'score', value: (r: typeof row) => score(r.s) },
      { header: 'none', value: (r: typeof row) => score(r.none) },
      { header: 'done', value: () => ratio(1200, 5000) },
    ];
    expect(columns.map((c) => cellText(c.value(row)))).toEqual([row.at, '113', '49889', '0.812', '', '1200/5000']);
    expect(renderTable([row], columns, plain, fixed).split('\n')[1]).toBe('2 hours ago  1m 53s  49,889  0.812  –     1,200/5,000');
    expect(renderTable([row], columns, plain, exact).split('\n')[1]).toBe(`${row.at}  1m 53s  49,889  0.812  –     1,200/5,000`);
    expect(renderDetail(row, columns.slice(0, 1), plain, fixed)).toBe('at  2 hours ago');
  });

  it('the realtime trend: calls completed per interval, a new day counted from zero', () => {
    const t = new CallTrend(3);
    expect(t.line(5)).toBe('');
    for (const n of [10, 12, 12, 15, 2]) t.add(n);
    expect(t.perInterval).toEqual([0, 3, 2]);
    expect(t.line(5)).toBe('▁█▆  0–3 per 5 s (last 3 refreshes)');
  });
});
