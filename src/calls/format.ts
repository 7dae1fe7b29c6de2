import type { ChalkInstance } from 'chalk';
import type { Call, CallsSummary } from '../api/calls.js';
import type { Column } from '../ui/format.js';
import { formatCount, formatSeconds } from '../ui/values.js';

/** `2m 5s`, `45s`, `1h 2m` (src/ui/values.ts); `—` for a call that has not ended (0 s and no end). */
export function formatCallDuration(seconds: number, ended = true): string {
  if (!ended && !seconds) return '—';
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  return formatSeconds(seconds);
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

/**
 * `1,042 calls: 1,030 completed, 8 failed, 2 active, 2 queued` (the listing's summary over
 * every match). A line for people (stderr, or under the table): counts with separators.
 */
export function summaryLine(s: CallsSummary): string {
  return `${formatCount(s.total)} call${s.total === 1 ? '' : 's'}: ${formatCount(s.completed)} completed, ${formatCount(s.failed)} failed, ${formatCount(s.active)} active, ${formatCount(s.queued)} queued`;
}
