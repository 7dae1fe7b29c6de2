import type { Writable } from 'node:stream';
import { LiveLine } from '../ui/live-line.js';
import { safeText } from '../ui/safe-text.js';
import { liveRoom, terminalWidth } from '../ui/width.js';
import { fitLine, messageText } from '../ui/fit.js';
import { formatCount } from '../ui/values.js';

export { formatCount };

/**
 * The progress bar on stderr, drawn by hand with `\r` (ora draws spinners, not bars
 * with figures): rows read, rows sent, rows per second, and an ETA from the bytes of
 * the file read so far. Redrawn at most ten times a second; only on a terminal.
 * Lines printed while it runs (rejected rows, warnings) go above it.
 */

export interface ProgressFigures {
  bytes: number;
  rows: number;
  /** Rows sent to the server (undefined for a dry run). */
  sent?: number;
  /** What is happening when it is not reading (e.g. "waiting for 3 jobs"). */
  phase?: string;
}

const FRAME_MS = 100;
/** How often the plain form checks whether another tenth was read. */
const PLAIN_CHECK_MS = 500;


export function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const mm = String(m).padStart(h ? 2 : 1, '0');
  return `${h ? `${h}:` : ''}${mm}:${String(sec).padStart(2, '0')}`;
}

function fraction(f: ProgressFigures, size: number): number {
  return size > 0 ? Math.min(1, f.bytes / size) : 1;
}

/** The figures after the bar: percentage, rows, rows sent, rows/s, ETA (or the phase). */
function renderFigures(f: ProgressFigures, size: number, elapsedMs: number): string {
  const frac = fraction(f, size);
  const secs = elapsedMs / 1000;
  const rate = secs > 0 ? f.rows / secs : 0;
  const eta = frac > 0 && frac < 1 ? (secs * (1 - frac)) / frac : frac >= 1 ? 0 : NaN;
  return [
    `${String(Math.floor(frac * 100)).padStart(3)}%`,
    `${formatCount(f.rows)} rows`,
    ...(f.sent !== undefined ? [`${formatCount(f.sent)} sent`] : []),
    `${formatCount(rate)} rows/s`,
    f.phase ?? `ETA ${formatEta(eta)}`,
  ].join('  ');
}

/** The plain form of a frame, a line of its own (VAP_ACCESSIBLE): `progress: 20%  10,000 rows  …`. */
export function renderPlain(f: ProgressFigures, size: number, elapsedMs: number): string {
  return `progress: ${renderFigures(f, size, elapsedMs).trimStart()}`;
}

/** One frame of the bar for a terminal `width` columns wide, cut to fit it as every live line is (src/ui/width.ts; exported for tests). */
export function renderBar(f: ProgressFigures, size: number, elapsedMs: number, width = 80): string {
  const frac = fraction(f, size);
  const tail = renderFigures(f, size, elapsedMs);
  const barWidth = Math.max(10, Math.min(30, width - tail.length - 4));
  const full = Math.round(frac * barWidth);
  return fitLine(`[${'█'.repeat(full)}${'░'.repeat(barWidth - full)}] ${tail}`, width - 1);
}

/**
 * With `plain` (VAP_ACCESSIBLE), nothing is redrawn: a line of its own each time another
 * tenth of the file is read (`progress: 20%  …`), which a screen reader reads once.
 */
export class ProgressBar {
  private figures: ProgressFigures = { bytes: 0, rows: 0 };
  private timer: NodeJS.Timeout | undefined;
  private readonly line: LiveLine;
  private readonly started = Date.now();
  private tenthsSaid = 0;

  constructor(
    private readonly stream: Writable,
    private readonly size: number,
    readonly enabled: boolean,
    private readonly plain = false,
  ) {
    this.line = new LiveLine(stream);
    if (!enabled) return;
    this.timer = setInterval(() => (plain ? this.sayTenth() : this.draw()), plain ? PLAIN_CHECK_MS : FRAME_MS);
    this.timer.unref();
  }

  private sayTenth(): void {
    const tenths = Math.floor(fraction(this.figures, this.size) * 10);
    if (tenths <= this.tenthsSaid || tenths >= 10) return;
    this.tenthsSaid = tenths;
    this.stream.write(`${renderPlain(this.figures, this.size, Date.now() - this.started)}\n`);
  }

  update(f: ProgressFigures): void {
    this.figures = f;
  }

  /** Prints a line above the bar (or just prints it when there is no bar); on a terminal it wraps at word boundaries. */
  log(line: string): void {
    const drawn = this.line.shown;
    this.line.clear();
    const tty = Boolean((this.stream as Writable & { isTTY?: boolean }).isTTY);
    this.stream.write(`${messageText(safeText(line), tty ? terminalWidth(this.stream, {}) : undefined)}\n`);
    if (drawn) this.draw();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.line.clear();
  }

  private draw(): void {
    if (!this.timer) return;
    this.line.draw(renderBar(this.figures, this.size, Date.now() - this.started, liveRoom(this.stream) + 1));
  }
}
