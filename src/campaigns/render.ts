import { safeText } from '../ui/safe-text.js';
import type { AnalyticsSummary, CampaignMetrics, InboundAnalytics, RealtimeAnalytics } from '../api/analytics.js';

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

/** Seconds as given, plus minutes and hours past a minute: 151.2 → "151.2 s (2m 31s)". */
export function seconds(n: number): string {
  const raw = `${Number.isInteger(n) ? n : n.toFixed(1)} s`;
  if (n < 60) return raw;
  const total = Math.round(n);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${raw} (${h ? `${h}h ${m}m` : `${m}m`} ${s}s)`;
}

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
        ['Total', String(m.callStats.totalCalls)],
        ['Completed', String(m.callStats.completedCalls)],
        ['Failed', String(m.callStats.failedCalls)],
        ['Cancelled', String(m.callStats.cancelledCalls)],
        ['Pending', String(m.callStats.pendingCalls)],
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
        ['Avg sentiment (0..1)', String(m.qualityMetrics.avgSentimentScore)],
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
    { title: 'Calls', rows: [['Total', String(s.totalCalls)], ['Completed', String(s.completedCalls)]] },
    { title: 'Success', rows: [['Human contact rate', pct(s.humanContactRate)], ['Objective success rate', pct(s.objectiveSuccessRate)]] },
    { title: 'Quality', rows: [['Avg sentiment (0..1)', String(s.avgSentimentScore)]] },
  ];
}

export function realtimeGroups(r: RealtimeAnalytics): Group[] {
  return [
    {
      title: 'Now',
      rows: [
        ['Active calls', String(r.activeCalls)],
        ['Queued calls', String(r.queuedCalls)],
        ['Completed today', String(r.callsCompletedToday)],
        ['Call rate', `${Number.isInteger(r.currentCallRate) ? r.currentCallRate : r.currentCallRate.toFixed(2)} / min`],
        ['Last call at', r.lastCallAt ?? '—'],
      ],
    },
  ];
}

export function inboundGroups(a: InboundAnalytics): Group[] {
  return [
    {
      title: 'Inbound calls',
      rows: [
        ['Total', String(a.totalInboundCalls)],
        ['Answered', String(a.answeredCalls)],
        ['Missed', String(a.missedCalls)],
        ['Avg wait time', seconds(a.avgWaitTime)],
        ['Avg handle time', seconds(a.avgHandleTime)],
        ['Peak hour', a.peakHour ?? '—'],
      ],
    },
  ];
}

/** Groups as titled two-column tables, labels aligned across every group; values (the API's figures and times) shown safe. */
export function renderGroups(groups: Group[], style: Style = PLAIN): string {
  const width = Math.max(0, ...groups.flatMap((g) => g.rows.map(([l]) => l.length)));
  return groups
    .map((g) => [style.bold(g.title), ...g.rows.map(([l, v]) => `  ${l.padEnd(width)}  ${safeText(String(v))}`)].join('\n'))
    .join('\n\n');
}

export const HOURS = Array.from({ length: 24 }, (_, i) => String(i).padStart(2, '0'));

/**
 * Calls by hour as 24 horizontal bars ("00".."23"), scaled so the longest fits `width`
 * columns, each followed by its count; the peak hour is marked.
 */
export function renderHourChart(callsByHour: Record<string, number>, peakHour: string | null, width = 80, style: Style = PLAIN): string {
  const counts = HOURS.map((h) => callsByHour[h] ?? 0);
  const max = Math.max(0, ...counts);
  const countWidth = String(max).length;
  const marker = '  ◀ peak';
  // "HH │" + bar + " " + count + marker
  const room = Math.max(10, width - 4 - 1 - countWidth - marker.length - 1);
  const peak = typeof peakHour === 'string' ? peakHour.slice(0, 2) : null;
  return HOURS.map((h, i) => {
    const n = counts[i]!;
    const len = max === 0 ? 0 : Math.round((n / max) * room);
    const bar = '█'.repeat(n > 0 ? Math.max(1, len) : 0);
    const line = `${h} │${bar} ${safeText(String(n)).padStart(countWidth)}`;
    return h === peak ? `${style.bold(line)}${style.yellow(marker)}` : line;
  }).join('\n');
}

/** The realtime watch screen: a title, the figures, and when they were read. */
export function renderWatchScreen(opts: {
  title: string;
  data: RealtimeAnalytics;
  updatedAt: Date;
  intervalSeconds: number;
  style?: Style;
}): string {
  const style = opts.style ?? PLAIN;
  const stamp = opts.updatedAt.toISOString().slice(11, 19);
  return [
    style.bold(safeText(opts.title)),
    '',
    renderGroups(realtimeGroups(opts.data), style),
    '',
    style.dim(`updated at ${stamp} UTC · every ${opts.intervalSeconds} s · Ctrl-C to stop`),
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
  return entries.length > 1 && entries.every(([k]) => /^\d+$/.test(k)) ? entries.sort(([a], [b]) => (a.length - b.length) || (a < b ? -1 : a > b ? 1 : 0)) : entries;
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
