import type { Writable } from 'node:stream';
import { displayWidth, fitLive } from './fit.js';
import { liveRoom } from './width.js';

/** A bar is at most this many columns wide, and at least BAR_MIN; it gives way to its figures on a narrow terminal. */
const BAR_MAX = 24;
const BAR_MIN = 10;

/**
 * One line on stderr redrawn in place (a progress bar), each frame cut to the terminal's width as
 * it is now: a wider frame would wrap, and each redraw would leave the wrapped part behind. The
 * text must already be safe to show.
 */
export class LiveLine {
  private drawn = false;

  constructor(private readonly stream: Writable) {}

  /** Whether a frame is on the screen. */
  get shown(): boolean {
    return this.drawn;
  }

  draw(text: string): void {
    this.stream.write(`\r\x1b[2K${fitLive(text, this.stream)}`);
    this.drawn = true;
  }

  /**
   * A progress frame: `before`, a bar of `ratio` (0..1) with its percentage, then `after`
   * (the figures). The bar takes what room the figures leave (BAR_MIN..BAR_MAX columns),
   * so that the whole frame fits the terminal where it can; what still does not is cut.
   */
  drawBar(ratio: number, after: string, before = ''): void {
    const r = Math.max(0, Math.min(1, ratio));
    const pct = `${Math.floor(r * 100)}%`.padStart(4);
    const width = Math.max(BAR_MIN, Math.min(BAR_MAX, liveRoom(this.stream) - displayWidth(`${before} ${pct}  ${after}`)));
    const full = Math.round(r * width);
    this.draw(`${before}${'█'.repeat(full)}${'░'.repeat(width - full)} ${pct}  ${after}`);
  }

  /** Erases the frame (the cursor stays at the start of the line). */
  clear(): void {
    if (this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }

  /** Leaves the last frame on the screen and moves to the next line. */
  keep(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }
}
