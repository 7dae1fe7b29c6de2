import type { Writable } from 'node:stream';
import { LiveLine } from '../ui/live-line.js';
import { safeText } from '../ui/safe-text.js';
import { liveRoom, terminalWidth } from '../ui/width.js';
import { displayWidth, fitLine, messageText } from '../ui/fit.js';
import { formatCount } from '../ui/values.js';
import type { ParsedSoFar } from './source.js';

export { formatCount };

/**
 * The import's progress on stderr, drawn by hand with `\r` (ora draws spinners, not bars with
 * figures): rows done out of the file's rows, estimated until it is read (src/contacts/README.md).
 */

export interface ProgressFigures {
  /** Rows done: rejected here or processed by the server (checked, in a dry run). */
  done: number;
  /** The rows the file holds: counted once it is read to the end (`exact`), else estimated; NaN before any row is read. */
  total: number;
  exact: boolean;
  /** Rows sent to the server (undefined for a dry run). */
  sent?: number;
  /** What is happening when it is not reading (e.g. "waiting for 3 jobs"). */
  phase?: string;
  /** Every row is done: the last frame (100%, no ETA). */
  finished?: boolean;
}

const FRAME_MS = 100;
/** How often the plain form checks whether another tenth is done. */
const PLAIN_CHECK_MS = 500;

/**
 * The rows a file of `size` bytes holds, if the rows to come are as long on average as those
 * parsed so far; never below the rows parsed, NaN before the first.
 */
export function estimateRows(size: number, p: ParsedSoFar): number {
  const body = p.bytes - p.headerBytes;
  if (p.rows <= 0 || body <= 0) return Number.NaN;
  return Math.max(p.rows, Math.round((p.rows * Math.max(0, size - p.headerBytes)) / body));
}

/**
 * The estimate as the file is read: where the bytes run ahead of the rows (JSON), the highest
 * so far, since each may count too few rows, and too few would show more done than there is.
 */
export class RowEstimate {
  private highest = Number.NaN;

  constructor(private readonly size: number) {}

  now(p: ParsedSoFar): number {
    const e = estimateRows(this.size, p);
    if (!p.ahead) return e;
    if (!(this.highest >= e)) this.highest = e;
    return this.highest;
  }
}

export function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const mm = String(m).padStart(h ? 2 : 1, '0');
  return `${h ? `${h}:` : ''}${mm}:${String(sec).padStart(2, '0')}`;
}

/** The share of the rows done, 0..1: never 1 before the last frame (an estimate must not read as finished), 0 while the total is unknown. */
export function doneFraction(f: ProgressFigures): number {
  if (f.finished) return 1;
  if (!(f.total > 0)) return 0;
  return Math.min(0.99, f.done / f.total);
}

interface Figures {
  pct: string;
  rows: string;
  sent?: string;
  rate?: string;
  /** The ETA, or the phase; none on the last frame. */
  last?: string;
}

/** The figures after the bar: percentage, rows done of the total, rows sent, rows/s, ETA (or the phase). */
function figuresOf(f: ProgressFigures, elapsedMs: number): Figures {
  const frac = doneFraction(f);
  const secs = elapsedMs / 1000;
  const rate = secs > 0 ? f.done / secs : 0;
  const left = f.total - f.done;
  const eta = f.done > 0 && left >= 0 ? (secs * left) / f.done : Number.NaN;
  const total = f.total > 0 ? ` of ${f.exact ? '' : '~'}${formatCount(f.total)}` : '';
  return {
    pct: `${String(Math.floor(frac * 100)).padStart(3)}%`,
    rows: `${formatCount(f.done)}${total} rows`,
    sent: f.sent !== undefined ? `${formatCount(f.sent)} sent` : undefined,
    rate: `${formatCount(rate)} rows/s`,
    last: f.finished ? undefined : (f.phase ?? `ETA ${formatEta(eta)}`),
  };
}

const joined = (g: Figures) => [g.pct, g.rows, g.sent, g.rate, g.last].filter((x) => x !== undefined).join('  ');

/** The plain form of a frame, a line of its own (VAP_ACCESSIBLE): `progress: 20%  2,000 of ~10,000 rows  …`. */
export function renderPlain(f: ProgressFigures, elapsedMs: number): string {
  return `progress: ${joined(figuresOf(f, elapsedMs)).trimStart()}`;
}

const BAR_MIN = 10;
const BAR_MAX = 30;

/**
 * One frame for a terminal `width` columns wide, leaving out what does not fit, least needed first
 * (rows/s, sent, the bar, the ETA); `steady` keeps the bar's length as the figures widen.
 */
export function renderBar(f: ProgressFigures, elapsedMs: number, width = 80, steady: { figures: number } = { figures: 0 }): string {
  const room = width - 1;
  const g = figuresOf(f, elapsedMs);
  let bar = true;
  const fits = () => displayWidth(joined(g)) + (bar ? BAR_MIN + 3 : 0) <= room;
  if (!fits()) g.rate = undefined;
  if (!fits()) g.sent = undefined;
  if (!fits()) bar = false;
  if (!fits()) g.last = undefined;
  const tail = joined(g);
  if (!bar) return fitLine(tail.trimStart(), room);
  steady.figures = Math.max(steady.figures, displayWidth(tail));
  const barWidth = Math.max(BAR_MIN, Math.min(BAR_MAX, room - 3 - steady.figures));
  const full = Math.floor(doneFraction(f) * barWidth);
  return fitLine(`[${'█'.repeat(full)}${'░'.repeat(barWidth - full)}] ${tail}`, room);
}

/**
 * With `plain` (VAP_ACCESSIBLE), nothing is redrawn: a line of its own each time another
 * tenth of the rows is done (`progress: 20%  …`), and the last one at 100%, which a screen
 * reader reads once each.
 */
export class ProgressBar {
  private figures: ProgressFigures = { done: 0, total: Number.NaN, exact: false };
  private source: (() => ProgressFigures) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly line: LiveLine;
  private readonly started = Date.now();
  private tenthsSaid = 0;
  private readonly steady = { figures: 0 };

  constructor(
    private readonly stream: Writable,
    readonly enabled: boolean,
    private readonly plain = false,
  ) {
    this.line = new LiveLine(stream);
    if (!enabled) return;
    this.timer = setInterval(() => (plain ? this.sayTenth() : this.draw()), plain ? PLAIN_CHECK_MS : FRAME_MS);
    this.timer.unref();
  }

  /** The figures now: from the function followed, else the last update. */
  private current(): ProgressFigures {
    if (this.source) this.figures = this.source();
    return this.figures;
  }

  private sayTenth(): void {
    const f = this.current();
    const tenths = Math.floor(doneFraction(f) * 10);
    if (tenths <= this.tenthsSaid) return;
    this.tenthsSaid = tenths;
    this.stream.write(`${renderPlain(f, Date.now() - this.started)}\n`);
  }

  update(f: ProgressFigures): void {
    this.source = undefined;
    this.figures = f;
  }

  /** Draws whatever `figures` returns at each frame (called at most ten times a second). */
  follow(figures: () => ProgressFigures): void {
    this.source = figures;
  }

  /** Prints a line above the bar (or just prints it when there is no bar); on a terminal it wraps at word boundaries. */
  log(line: string): void {
    const drawn = this.line.shown;
    this.line.clear();
    const tty = Boolean((this.stream as Writable & { isTTY?: boolean }).isTTY);
    this.stream.write(`${messageText(safeText(line), tty ? terminalWidth(this.stream, {}) : undefined)}\n`);
    if (drawn) this.draw();
  }

  /** Every row is done: the last frame, 100%, is drawn and left on the screen (or said, in the plain form). */
  finish(f: Omit<ProgressFigures, 'finished' | 'phase'>): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.source = undefined;
    this.figures = { ...f, finished: true };
    if (this.plain) {
      this.stream.write(`${renderPlain(this.figures, Date.now() - this.started)}\n`);
    } else {
      this.line.draw(renderBar(this.figures, Date.now() - this.started, liveRoom(this.stream) + 1, this.steady));
      this.line.keep();
    }
    this.timer = undefined;
  }

  /** Stops without a last frame (the import stopped, or failed): the bar is erased. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.line.clear();
  }

  private draw(): void {
    if (!this.timer) return;
    this.line.draw(renderBar(this.current(), Date.now() - this.started, liveRoom(this.stream) + 1, this.steady));
  }
}
