import { InvalidArgumentError } from 'commander';
import { CALL_DIRECTIONS, CALL_STATUS_FILTERS, type CallDirection, type CallStatusFilter } from '../../api/calls.js';
import { UsageError } from '../../errors.js';
import { parseDuration } from '../duration.js';

/** The statuses `--status` takes, as said in its usage error. */
export const STATUS_CHOICES = 'queued, in-progress (or in_progress), completed, failed, cancelled';

/**
 * `--status`: the API's values, with `in_progress` (the call's own spelling) and
 * `active` accepted for `in-progress`; anything else is a usage error listing the choices.
 */
export function parseStatus(v: string): CallStatusFilter {
  const s = v.trim().toLowerCase();
  if (s === 'in_progress' || s === 'in-progress' || s === 'inprogress' || s === 'active') return 'in-progress';
  if ((CALL_STATUS_FILTERS as readonly string[]).includes(s)) return s as CallStatusFilter;
  const hint = s === 'initiated' || s === 'ringing' ? ` (in-progress lists initiated, ringing and in_progress calls)` : s === 'canceled' ? ' (spelled cancelled)' : '';
  throw new InvalidArgumentError(`use one of: ${STATUS_CHOICES}${hint}.`);
}

export function parseDirection(v: string): CallDirection {
  const s = v.trim().toLowerCase();
  if ((CALL_DIRECTIONS as readonly string[]).includes(s)) return s as CallDirection;
  throw new InvalidArgumentError(`--direction must be outbound or inbound; got "${v}".`);
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * `--from` / `--to`: a date (2026-11-01, the whole day for --to) or an ISO 8601 time
 * (2026-11-01T09:00Z; without a zone it is UTC). Sent as given, or normalised to ISO
 * UTC for a time.
 */
export function dateOption(flag: string) {
  return (v: string): string => {
    const s = v.trim();
    if (DATE_ONLY.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s)) return s;
    if (DATE_TIME.test(s)) {
      const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(s) ? s : `${s}Z`;
      const ms = Date.parse(zoned.replace(' ', 'T'));
      if (!Number.isNaN(ms)) return new Date(ms).toISOString();
    }
    throw new InvalidArgumentError(`${flag} takes a date (2026-11-01) or an ISO 8601 time (2026-11-01T09:00:00Z); got "${v}".`);
  };
}

/** `--min-duration` / `--max-duration`: 90, 90s, 2m, 1m30s → whole seconds. */
export function secondsOption(flag: string) {
  return (v: string): number => {
    const ms = parseDuration(v);
    if (ms === undefined || ms < 0) throw new InvalidArgumentError(`${flag} takes a duration in seconds (90) or with a unit (90s, 2m, 1m30s); got "${v}".`);
    if (ms % 1000 !== 0) throw new InvalidArgumentError(`${flag} counts whole seconds; got "${v}".`);
    return ms / 1000;
  };
}

export function pageSizeOption(max: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new InvalidArgumentError(`--page-size must be a whole number from 1 to ${max}; got "${v}".`);
    return n;
  };
}

/** Checks flags against each other (nothing is sent when they disagree). */
export function checkRanges(o: { from?: string; to?: string; minDuration?: number; maxDuration?: number }): void {
  if (o.from && o.to) {
    const from = Date.parse(DATE_ONLY.test(o.from) ? `${o.from}T00:00:00Z` : o.from);
    const to = Date.parse(DATE_ONLY.test(o.to) ? `${o.to}T23:59:59.999Z` : o.to);
    if (from > to) throw new UsageError(`--from ${o.from} is after --to ${o.to}`, 'swap them');
  }
  if (o.minDuration !== undefined && o.maxDuration !== undefined && o.minDuration > o.maxDuration) {
    throw new UsageError(`--min-duration (${o.minDuration}s) is more than --max-duration (${o.maxDuration}s)`, 'swap them');
  }
}
