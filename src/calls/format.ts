import type { ChalkInstance } from 'chalk';
import type { Call, CallsSummary } from '../api/calls.js';
import type { Column } from '../ui/format.js';
import { safeText } from '../ui/safe-text.js';

/** `2m 05s`, `45s`, `1h 02m`; `—` for a call that has not ended (0 s and no end). */
export function formatCallDuration(seconds: number, ended = true): string {
  if (!ended && !seconds) return '—';
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (h) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m) return `${m}m ${String(r).padStart(2, '0')}s`;
  return `${r}s`;
}

/** `2026-11-22 23:10` (UTC), the way every call time is shown in tables. */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return safeText(String(iso));
  return d.toISOString().slice(0, 16).replace('T', ' ');
}

/** The colour of a call status: completed green, failed red, active yellow, the rest dim. */
export function paintStatus(status: string, chalk: ChalkInstance, text = status): string {
  switch (status) {
    case 'completed':
      return chalk.green(text);
    case 'failed':
      return chalk.red(text);
    case 'initiated':
    case 'ringing':
    case 'in_progress':
      return chalk.yellow(text);
    default:
      return chalk.dim(text);
  }
}

/** Columns for TSV (piped) output: raw values, durations in seconds, ISO times. */
export const CALL_TSV_COLUMNS: Column<Call>[] = [
  { header: 'id', value: (c) => c.id },
  { header: 'status', value: (c) => c.status },
  { header: 'direction', value: (c) => c.direction },
  { header: 'calleeName', value: (c) => c.calleeName },
  { header: 'phoneNumber', value: (c) => c.phoneNumber },
  { header: 'duration', value: (c) => c.duration },
  { header: 'createdAt', value: (c) => c.createdAt },
  { header: 'campaignId', value: (c) => c.campaignId },
];

interface FixedColumn {
  header: string;
  width: number;
  value: (c: Call) => string;
  paint?: (text: string, c: Call, chalk: ChalkInstance) => string;
  align?: 'right';
}

/**
 * The table of `calls list` on a terminal, with fixed column widths so that it can be
 * printed row by row as pages arrive (`--all` over any number of calls holds one page).
 */
const TABLE: FixedColumn[] = [
  { header: 'ID', width: 36, value: (c) => c.id },
  { header: 'STATUS', width: 11, value: (c) => c.status, paint: (t, c, chalk) => paintStatus(c.status, chalk, t) },
  { header: 'DIRECTION', width: 9, value: (c) => c.direction },
  { header: 'CALLEE', width: 22, value: (c) => c.calleeName ?? '' },
  { header: 'PHONE', width: 16, value: (c) => c.phoneNumber ?? '' },
  { header: 'DURATION', width: 8, value: (c) => formatCallDuration(c.duration, Boolean(c.endedAt)), align: 'right' },
  { header: 'CREATED (UTC)', width: 16, value: (c) => shortTime(c.createdAt) },
];

/** A cell of the fixed-width table: data shown as one safe line, cut or padded to `width`. */
function fit(text: string, width: number, align?: 'right'): string {
  const one = safeText(text.replace(/\s+/g, ' '));
  const cut = [...one].length > width ? `${[...one].slice(0, width - 1).join('')}…` : one;
  const pad = ' '.repeat(Math.max(0, width - [...cut].length));
  return align === 'right' ? pad + cut : cut + pad;
}

export function callTableHeader(chalk: ChalkInstance): string {
  return TABLE.map((c) => chalk.bold(fit(c.header, c.width, c.align))).join('  ').trimEnd();
}

export function callTableRow(call: Call, chalk: ChalkInstance): string {
  return TABLE.map((col) => {
    const text = fit(String(col.value(call) ?? ''), col.width, col.align);
    return col.paint ? col.paint(text, call, chalk) : text;
  })
    .join('  ')
    .trimEnd();
}

/** `42 calls: 30 completed, 8 failed, 2 active, 2 queued` (the listing's summary over every match). */
export function summaryLine(s: CallsSummary): string {
  return `${s.total} call${s.total === 1 ? '' : 's'}: ${s.completed} completed, ${s.failed} failed, ${s.active} active, ${s.queued} queued`;
}
