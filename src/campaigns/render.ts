import { safeText } from '../ui/safe-text.js';
import { sparkline } from '../ui/sparkline.js';
import { hanging } from '../ui/wrap.js';
import { DEFAULT_PRESENTATION, formatCount, formatScore, formatSeconds, formatTime, type Presentation } from '../ui/values.js';
import type { AnalyticsSummary, InboundAnalytics, RealtimeAnalytics } from '../api/analytics.js';
import type { CampaignMetrics } from '../spec/analytics.js';

// Rendering of campaign analytics for a person: grouped tables, the calls-by-hour bar
// chart and the realtime screen. Pure functions from data to text (no I/O), so the
// figures printed are exactly those of the JSON.

/** Minimal styling hooks (chalk or identity). */
export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  yellow(s: string): string;
}

export const PLAIN: Style = { bold: (s) => s, dim: (s) => s, yellow: (s) => s };

/** A rate of 0..1 as a percentage with two decimals: 0.1234 → "12.34%" (no precision lost for 4-decimal rates). */
export function pct(rate: number): string {
  return `${(Math.round(rate * 10_000) / 100).toFixed(2)}%`;
}

export function money(n: number): string {
  return `$${n.toFixed(2)}`;
}

/** A duration in seconds for a person, as everywhere (src/ui/values.ts): 151.2 → "2m 31s" (the JSON keeps the seconds). */
export function seconds(n: number): string {
  return typeof n === 'number' && Number.isFinite(n) ? formatSeconds(n) : '—';
}

/** A count for a person: 49889 → "49,889" (the JSON keeps the number). */
const n = (v: number): string => (typeof v === 'number' ? formatCount(v) : String(v ?? '—'));

export interface Group {
  title: string;
  rows: Array<[label: string, value: string]>;
}

/** The campaign metrics as the five groups of the spec: Calls, Success, Quality, Compliance, Cost. */
export function metricGroups(m: CampaignMetrics): Group[] {
  return [
    {
      title: 'Calls',
      rows: [
        ['Total', n(m.callStats.totalCalls)],
        ['Completed', n(m.callStats.completedCalls)],
        ['Failed', n(m.callStats.failedCalls)],
        ['Cancelled', n(m.callStats.cancelledCalls)],
        ['Pending', n(m.callStats.pendingCalls)],
      ],
    },
    {
      title: 'Success',
      rows: [
        ['Human contact rate', pct(m.successMetrics.humanContactRate)],
        ['Objective success rate', pct(m.successMetrics.objectiveSuccessRate)],
        ['Callback rate', pct(m.successMetrics.callbackRate)],
      ],
    },
    {
      title: 'Quality',
      rows: [
        ['Avg sentiment (0..1)', formatScore(m.qualityMetrics.avgSentimentScore)],
        ['Avg call duration', seconds(m.qualityMetrics.avgCallDuration)],
      ],
    },
    { title: 'Compliance', rows: [['Do-not-call rate', pct(m.complianceMetrics.doNotCallRate)]] },
    {
      title: 'Cost',
      rows: [
        ['Total cost', money(m.costMetrics.totalCost)],
        ['Avg cost per call', money(m.costMetrics.avgCostPerCall)],
      ],
    },
  ];
}

export function summaryGroups(s: AnalyticsSummary): Group[] {
  return [
    {
      title: 'Calls',
      rows: [
        ['Total', n(s.totalCalls)],
        ['Completed', n(s.completedCalls)],
      ],
    },
    {
      title: 'Success',
      rows: [
        ['Human contact rate', pct(s.humanContactRate)],
        ['Objective success rate', pct(s.objectiveSuccessRate)],
      ],
    },
    { title: 'Quality', rows: [['Avg sentiment (0..1)', formatScore(s.avgSentimentScore)]] },
  ];
}

/** The realtime figures; "Last call at" is relative (`12 seconds ago`), or exact with --absolute-times. */
export function realtimeGroups(r: RealtimeAnalytics, p: Presentation = DEFAULT_PRESENTATION): Group[] {
  return [
    {
      title: 'Now',
      rows: [
        ['Active calls', n(r.activeCalls)],
        ['Queued calls', n(r.queuedCalls)],
        ['Completed today', n(r.callsCompletedToday)],
        ['Call rate', `${Number.isInteger(r.currentCallRate) ? r.currentCallRate : r.currentCallRate.toFixed(2)} / min`],
        ['Last call at', r.lastCallAt ? formatTime(r.lastCallAt, p) : '—'],
      ],
    },
  ];
}

export function inboundGroups(a: InboundAnalytics): Group[] {
  return [
    {
      title: 'Inbound calls',
      rows: [
        ['Total', n(a.totalInboundCalls)],
        ['Answered', n(a.answeredCalls)],
        ['Missed', n(a.missedCalls)],
        ['Avg wait time', seconds(a.avgWaitTime)],
        ['Avg handle time', seconds(a.avgHandleTime)],
        ['Peak hour', a.peakHour ?? '—'],
      ],
    },
  ];
}

/** Groups as titled two-column tables, labels aligned across every group; values (the API's figures and times) shown safe, wrapped within `columns` when given. */
export function renderGroups(groups: Group[], style: Style = PLAIN, columns?: number): string {
  const width = Math.max(0, ...groups.flatMap((g) => g.rows.map(([l]) => l.length)));
  return groups.map((g) => [style.bold(g.title), ...g.rows.flatMap(([l, v]) => hanging(`  ${l.padEnd(width)}  `, String(v), columns))].join('\n')).join('\n\n');
}

export const HOURS = Array.from({ length: 24 }, (_, i) => String(i).padStart(2, '0'));

/**
 * Calls by hour as 24 horizontal bars ("00".."23"), scaled so the longest fits `width`
 * columns, each followed by its count; the peak hour is marked.
 */
export function renderHourChart(callsByHour: Record<string, number>, peakHour: string | null, width = 80, style: Style = PLAIN): string {
  const counts = HOURS.map((h) => callsByHour[h] ?? 0);
  const max = Math.max(0, ...counts);
  const countWidth = formatCount(max).length;
  const marker = '  ◀ peak';
  // "HH │" + bar + " " + count + marker
  const room = Math.max(10, width - 4 - 1 - countWidth - marker.length - 1);
  const peak = typeof peakHour === 'string' ? peakHour.slice(0, 2) : null;
  return HOURS.map((h, i) => {
    const n = counts[i]!;
    const len = max === 0 ? 0 : Math.round((n / max) * room);
    const bar = '█'.repeat(n > 0 ? Math.max(1, len) : 0);
    const line = `${h} │${bar} ${safeText(formatCount(n)).padStart(countWidth)}`;
    return h === peak ? `${style.bold(line)}${style.yellow(marker)}` : line;
  }).join('\n');
}

/**
 * Calls per interval over a watch session: each refresh adds how many calls completed
 * since the one before (the day's count drops to zero at midnight UTC: then the new
 * day's count is the interval's). Keeps the last `keep` intervals.
 */
export class CallTrend {
  private last: number | undefined;
  readonly perInterval: number[] = [];
  constructor(private readonly keep = 60) {}

  add(completedToday: number): void {
    if (typeof completedToday !== 'number' || !Number.isFinite(completedToday)) return;
    if (this.last !== undefined) {
      const d = completedToday - this.last;
      this.perInterval.push(d >= 0 ? d : completedToday);
      if (this.perInterval.length > this.keep) this.perInterval.shift();
    }
    this.last = completedToday;
  }

  /** `▁▃█▅ 0–4 per 5 s (last 4 refreshes)`; empty before the second refresh. */
  line(intervalSeconds: number, width = 40): string {
    const values = this.perInterval.slice(-Math.max(1, width));
    if (values.length === 0) return '';
    const lo = Math.min(...values);
    const hi = Math.max(...values);
    const range = lo === hi ? formatCount(lo) : `${formatCount(lo)}–${formatCount(hi)}`;
    return `${sparkline(values, { min: 0, max: Math.max(1, hi) })}  ${range} per ${intervalSeconds} s (last ${values.length} refresh${values.length === 1 ? '' : 'es'})`;
  }
}

/** The realtime watch screen: a title, the figures, the trend of calls per interval, and when they were read. */
export function renderWatchScreen(opts: {
  title: string;
  data: RealtimeAnalytics;
  updatedAt: Date;
  intervalSeconds: number;
  style?: Style;
  present?: Presentation;
  trend?: CallTrend;
  width?: number;
}): string {
  const style = opts.style ?? PLAIN;
  const p = opts.present ?? DEFAULT_PRESENTATION;
  const stamp = p.absoluteTimes ? opts.updatedAt.toISOString() : `${opts.updatedAt.toISOString().slice(11, 19)} UTC`;
  const groups = realtimeGroups(opts.data, p);
  const trend = opts.trend?.line(opts.intervalSeconds, Math.max(10, Math.min(60, (opts.width ?? 80) - 40)));
  // The trend is the calls completed in each interval of this session, as a sparkline.
  groups.push({ title: 'Trend', rows: [['Completed per refresh', trend || '(from the next refresh on)']] });
  return [
    style.bold(safeText(opts.title)),
    '',
    renderGroups(groups, style),
    '',
    style.dim(`updated at ${stamp} · every ${opts.intervalSeconds} s · Ctrl-C to stop`),
  ].join('\n');
}

/** Flattens an object to `a.b.c → value` pairs (the TSV form of analytics). */
export function flatten(obj: unknown, prefix = ''): Array<[string, unknown]> {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return [[prefix, obj]];
  const out: Array<[string, unknown]> = [];
  for (const [k, v] of entriesInOrder(obj as Record<string, unknown>)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) out.push(...flatten(v, key));
    else out.push([key, v]);
  }
  return out;
}

/**
 * An object's entries with keys made only of digits ("00".."23" of callsByHour) in their
 * written order: a JavaScript object lists "10".."23" (array-index keys) before "00".."09".
 */
export function entriesInOrder(obj: Record<string, unknown>): Array<[string, unknown]> {
  const entries = Object.entries(obj);
  return entries.length > 1 && entries.every(([k]) => /^\d+$/.test(k))
    ? entries.sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0))
    : entries;
}

/** JSON.stringify, with digit-only keys in order (see entriesInOrder): "00" comes before "10". */
export function stringifyInOrder(value: unknown, indent = 0, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const pad = indent ? `\n${' '.repeat(indent * (depth + 1))}` : '';
  const end = indent ? `\n${' '.repeat(indent * depth)}` : '';
  const sep = indent ? ': ' : ':';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${value.map((v) => `${pad}${stringifyInOrder(v, indent, depth + 1)}`).join(',')}${end}]`;
  }
  const entries = entriesInOrder(value as Record<string, unknown>).filter(([, v]) => v !== undefined && typeof v !== 'function');
  if (entries.length === 0) return '{}';
  return `{${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}${sep}${stringifyInOrder(v, indent, depth + 1)}`).join(',')}${end}}`;
}
