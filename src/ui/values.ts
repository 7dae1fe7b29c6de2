/**
 * The one standard for the values vap shows (times, durations, counts, scores, roles), so each
 * reads the same in every verb (the table: src/ui/README.md). Hand-written: Intl and
 * toLocaleString load ICU's locale data on the path of every listing.
 */

/** How values are shown on a terminal: exact times or relative ones, and the clock to compare with. */
export interface Presentation {
  absoluteTimes: boolean;
  /** Now, in ms since the epoch: the server's clock when a response told it (a test may pin it). */
  now(): number;
}

export const DEFAULT_PRESENTATION: Presentation = { absoluteTimes: false, now: () => Date.now() };

export function presentation(opts: { absoluteTimes?: boolean; now?: () => number } = {}): Presentation {
  return { absoluteTimes: Boolean(opts.absoluteTimes), now: opts.now ?? (() => Date.now()) };
}

/**
 * "Now" by the server's clock, learned from each response's `Date` header, so that a client clock
 * that is off never shows a past event as "in 10 minutes" (how: src/ui/README.md).
 */
export class ServerClock {
  private offset = 0;

  constructor(private readonly local: () => number = () => Date.now()) {}

  /** A response's `Date` header (ms, whole seconds) and the local time it arrived. */
  learn(date: { serverMs: number; receivedAtMs: number }): void {
    if (!Number.isFinite(date.serverMs) || !Number.isFinite(date.receivedAtMs)) return;
    const estimate = date.serverMs + 500 - date.receivedAtMs;
    this.offset = Math.abs(estimate) <= RESOLUTION_MS ? 0 : estimate;
  }

  /** The server's clock minus the local one, in ms (0 until a reading says otherwise). */
  get offsetMs(): number {
    return this.offset;
  }

  now(): number {
    return this.local() + this.offset;
  }
}

/** The `Date` header's resolution: an offset no larger cannot be told from none. */
const RESOLUTION_MS = 1000;

// ---------------------------------------------------------------------------------------
// Counts

/** `12,345`: what toLocaleString('en-US') gives for a whole number, without loading ICU's locale data. */
export function formatCount(n: number): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return String(n);
  const r = Math.round(n);
  if (!Number.isSafeInteger(r)) return String(r);
  const digits = String(Math.abs(r));
  let out = '';
  for (let i = digits.length; i > 0; i -= 3) out = (i > 3 ? ',' : '') + digits.slice(Math.max(0, i - 3), i) + out;
  return (r < 0 ? '-' : '') + out;
}

// ---------------------------------------------------------------------------------------
// Durations

/**
 * A duration in milliseconds for a person: `250ms`, `1.5s`, `45s`, `1m 53s`, `2m`,
 * `1h 5m`, `2d 3h`. Below ten seconds a fraction keeps one decimal; above an hour the
 * seconds are dropped, above a day the minutes.
 */
export function formatDuration(ms: number): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return '?';
  if (ms === 0) return '0s';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 10_000 && ms % 1000 !== 0) return `${Number((ms / 1000).toFixed(1))}s`;
  const total = Math.round(ms / 1000);
  if (total < 60) return `${total}s`;
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (d) return h ? `${d}d ${h}h` : `${d}d`;
  if (h) return m ? `${h}h ${m}m` : `${h}h`;
  return s ? `${m}m ${s}s` : `${m}m`;
}

/** A duration in seconds (the API's unit) for a person: `1m 53s`; see formatDuration. */
export function formatSeconds(seconds: number): string {
  return formatDuration(seconds * 1000);
}

// ---------------------------------------------------------------------------------------
// Times

const UNITS: Array<[limitSeconds: number, unitSeconds: number, name: string]> = [
  [60, 1, 'second'],
  [3600, 60, 'minute'],
  [86_400, 3600, 'hour'],
  [30 * 86_400, 86_400, 'day'],
  [365 * 86_400, 30 * 86_400, 'month'],
  [Infinity, 365 * 86_400, 'year'],
];

/**
 * A time relative to now, as gh shows it: `just now`, `40 seconds ago`, `3 minutes ago`,
 * `in 2 hours`, `5 days ago`, `1 year ago`. Each figure is rounded down (`3 minutes ago`
 * until it is 4). A time that is not one is returned as it was.
 */
export function relativeTime(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const diff = (now - t) / 1000;
  const abs = Math.abs(diff);
  if (abs < 5) return 'just now';
  for (const [limit, unit, name] of UNITS) {
    if (abs < limit) {
      const n = Math.floor(abs / unit);
      const text = `${n} ${name}${n === 1 ? '' : 's'}`;
      return diff >= 0 ? `${text} ago` : `in ${text}`;
    }
  }
  return iso;
}

/** A time on a terminal: relative, or exact with --absolute-times; empty for none. */
export function formatTime(iso: string | null | undefined, p: Presentation = DEFAULT_PRESENTATION): string {
  if (iso === null || iso === undefined || iso === '') return '';
  return p.absoluteTimes ? iso : relativeTime(iso, p.now());
}

/** `14:05:09`, the local clock time of an instant (live views stamp their lines with it). */
export function clockTime(ms: number): string {
  const t = new Date(ms);
  return [t.getHours(), t.getMinutes(), t.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/**
 * The stamp of a line in a live view: the local clock time (`14:05:09`), or the exact
 * ISO 8601 instant with --absolute-times. An event without a time is stamped now.
 */
export function stampTime(iso: string | undefined, p: Presentation = DEFAULT_PRESENTATION): string {
  const parsed = iso ? Date.parse(iso) : NaN;
  const ms = Number.isNaN(parsed) ? p.now() : parsed;
  if (p.absoluteTimes) return iso && !Number.isNaN(parsed) ? iso : new Date(ms).toISOString();
  return clockTime(ms);
}

/** The width of stampTime's text (lines of a live view align on it). */
export function stampWidth(p: Presentation): number {
  return p.absoluteTimes ? 24 : 8;
}

// ---------------------------------------------------------------------------------------
// Scores

/** A score on 0..1 with a fixed precision: three decimals; `–` when there is none. */
export function formatScore(v: number | null | undefined): string {
  return typeof v === 'number' && Number.isFinite(v) ? v.toFixed(3) : '–';
}

// ---------------------------------------------------------------------------------------
// Transcript roles

/**
 * The word for a transcript's role: output for people (terminal, Markdown, HTML, JUnit) says
 * `caller` for the API's `user` (the person on the line); output for programs (JSON, NDJSON, TSV)
 * keeps `agent` and `user`, to match the API's data.
 */
export function roleWord(role: unknown, kind: 'human' | 'data' = 'human'): string {
  const r = typeof role === 'string' ? role : role === undefined || role === null ? '' : String(role);
  if (kind === 'data') return r === 'caller' ? 'user' : r || '?';
  return r === 'user' ? 'caller' : r || '?';
}

// ---------------------------------------------------------------------------------------
// Ids

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether an id is a UUID (call and campaign ids are). */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}

/**
 * The short form of an id for a narrow column: a UUID's first eight hex digits (as git
 * shortens a commit), any other id as it is up to `max` characters, else cut with `…`.
 * The full id is in --json, --wide and the resume hint.
 */
export function shortId(id: string, max = 12): string {
  if (isUuid(id)) return id.slice(0, 8);
  const chars = [...id];
  return chars.length <= max ? id : `${chars.slice(0, max - 1).join('')}…`;
}

// ---------------------------------------------------------------------------------------
// Cell values: one value, two forms

/**
 * A value of a table or detail column that reads differently for a person and for a
 * program: tables on a terminal show `human(p)`; TSV and ids show `plain()`. Columns
 * return these (`time(row.createdAt)`, `duration(row.duration)`, …) instead of text.
 */
export abstract class Shown {
  /** The form for programs (TSV): exact and unformatted. */
  abstract plain(): string;
  /** The form for a person on a terminal. */
  abstract human(p: Presentation): string;
  toString(): string {
    return this.plain();
  }
}

class TimeValue extends Shown {
  constructor(private readonly iso: string | null | undefined) {
    super();
  }
  plain(): string {
    return this.iso ?? '';
  }
  human(p: Presentation): string {
    return formatTime(this.iso, p);
  }
}

class DurationValue extends Shown {
  constructor(
    private readonly seconds: number | null | undefined,
    private readonly none: string,
  ) {
    super();
  }
  plain(): string {
    return typeof this.seconds === 'number' ? String(this.seconds) : '';
  }
  human(): string {
    return typeof this.seconds === 'number' && Number.isFinite(this.seconds) ? formatSeconds(this.seconds) : this.none;
  }
}

class CountValue extends Shown {
  constructor(private readonly n: number | null | undefined) {
    super();
  }
  plain(): string {
    return typeof this.n === 'number' ? String(this.n) : '';
  }
  human(): string {
    return typeof this.n === 'number' ? formatCount(this.n) : '';
  }
}

class ScoreValue extends Shown {
  constructor(private readonly v: number | null | undefined) {
    super();
  }
  plain(): string {
    return typeof this.v === 'number' && Number.isFinite(this.v) ? this.v.toFixed(3) : '';
  }
  human(): string {
    return formatScore(this.v);
  }
}

/** A time column: relative on a terminal, ISO 8601 piped. */
export const time = (iso: string | null | undefined): Shown => new TimeValue(iso);
/** A duration column (seconds): `1m 53s` on a terminal, the number of seconds piped; `none` when there is none. */
export const duration = (seconds: number | null | undefined, none = ''): Shown => new DurationValue(seconds, none);
/** A count column: `49,889` on a terminal, `49889` piped. */
export const count = (n: number | null | undefined): Shown => new CountValue(n);
/** A score column: three decimals (`–` on a terminal, empty piped, when there is none). */
export const score = (v: number | null | undefined): Shown => new ScoreValue(v);

class Both extends Shown {
  constructor(
    private readonly forPrograms: string,
    private readonly forPeople: (p: Presentation) => string,
  ) {
    super();
  }
  plain(): string {
    return this.forPrograms;
  }
  human(p: Presentation): string {
    return this.forPeople(p);
  }
}

/** Any value with a form for programs and one for people (`—` for a call still going, say). */
export const shown = (plain: string, human: string | ((p: Presentation) => string)): Shown => new Both(plain, typeof human === 'string' ? () => human : human);
/** `1,200/5,000` on a terminal, `1200/5000` piped (progress of a job or an import). */
export const ratio = (done: number, total: number): Shown => new Both(`${done}/${total}`, () => `${formatCount(done)}/${formatCount(total)}`);
