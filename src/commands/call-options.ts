import { InvalidArgumentError, Option, type Command } from 'commander';
import { CALL_DIRECTIONS, CALL_STATUS_FILTERS, type CallDirection, type CallFilters, type CallStatusFilter } from '../api/calls.js';
import { completes } from '../completion/takes.js';
import { UsageError } from '../errors.js';
import { parseDuration } from './duration.js';

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
  const hint =
    s === 'initiated' || s === 'ringing' ? ` (in-progress lists initiated, ringing and in_progress calls)` : s === 'canceled' ? ' (spelled cancelled)' : '';
  throw new InvalidArgumentError(`--status must be one of: ${STATUS_CHOICES}; got "${v}"${hint}.`);
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
 * (2026-11-01T09:00Z; without a zone it is UTC). A date is kept as given here;
 * `callFilters` sends it as a UTC instant (see apiDate). A time is normalised to ISO UTC.
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

/**
 * A --from / --to value as sent: the spec only says `dateFrom` / `dateTo` are ISO 8601, so a
 * date is sent as its first millisecond for --from and its last for --to, which keeps the day
 * whole on a server that would read `dateTo=2026-11-07` as midnight.
 */
export function apiDate(v: string | undefined, edge: 'start' | 'end'): string | undefined {
  if (v === undefined || !DATE_ONLY.test(v)) return v;
  return edge === 'start' ? `${v}T00:00:00.000Z` : `${v}T23:59:59.999Z`;
}

/** The filter flags of a calls listing, as parsed by `addCallFilterOptions`. */
export interface CallFilterOptions {
  status?: CallStatusFilter;
  campaign?: string;
  direction?: CallDirection;
  from?: string;
  to?: string;
  minDuration?: number;
  maxDuration?: number;
  search?: string;
}

/**
 * The filters of the calls listing (spec: status, campaignId, direction, dateFrom,
 * dateTo, minDuration, maxDuration, search) as flags, shared by `vap calls list` and
 * `vap campaigns calls list` (which passes `campaign: false`: the campaign is its argument).
 */
export function addCallFilterOptions(cmd: Command, opts: { campaign?: boolean } = {}): Command {
  cmd.addOption(
    completes(
      new Option('--status <status>', 'queued, in-progress (or in_progress), completed, failed or cancelled').argParser(parseStatus),
      CALL_STATUS_FILTERS,
    ),
  );
  if (opts.campaign !== false) cmd.option('--campaign <campaign>', "only this campaign's calls (its id, the start of it, or its name)", campaignIdOption);
  return cmd
    .addOption(completes(new Option('--direction <dir>', 'outbound or inbound').argParser(parseDirection), CALL_DIRECTIONS))
    .option('--from <date>', 'created on or after (2026-11-01 or an ISO 8601 time)', dateOption('--from'))
    .option('--to <date>', 'created on or before (a date includes the whole day)', dateOption('--to'))
    .option('--min-duration <d>', 'at least this long (90, 90s, 2m)', secondsOption('--min-duration'))
    .option('--max-duration <d>', 'at most this long (90, 90s, 2m)', secondsOption('--max-duration'))
    .option('--search <text>', "callee name or phone number (digits match the number's digits)", searchOption);
}

/** `--campaign`: a campaign id, its start as `vap campaigns list` shows it, or its name (resolved when the command runs). */
export function campaignIdOption(v: string): string {
  const s = v.trim();
  if (!s) throw new InvalidArgumentError('--campaign is empty; give a campaign id (its first eight characters are enough) or name, from `vap campaigns list`.');
  return s;
}

/** `--search`: an empty text would match every call. */
export function searchOption(v: string): string {
  if (!v.trim()) throw new InvalidArgumentError('--search is empty; give part of a name or a phone number.');
  return v.trim();
}

/** The parsed flags as the API's query (checked against each other first: nothing is sent when they disagree). */
export function callFilters(o: CallFilterOptions): CallFilters {
  checkRanges(o);
  return {
    status: o.status,
    campaignId: o.campaign,
    direction: o.direction,
    dateFrom: apiDate(o.from, 'start'),
    dateTo: apiDate(o.to, 'end'),
    minDuration: o.minDuration,
    maxDuration: o.maxDuration,
    search: o.search,
  };
}

/** Whether any filter flag was given (for the empty listing's message). */
export function hasCallFilters(o: CallFilterOptions): boolean {
  return [o.status, o.campaign, o.direction, o.from, o.to, o.minDuration, o.maxDuration, o.search].some((v) => v !== undefined);
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
