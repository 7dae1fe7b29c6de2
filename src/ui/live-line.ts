import type { Writable } from 'node:stream';
import { fitLive } from './width.js';

/**
 * One line on a terminal's stderr, redrawn in place with `\r` and an erase (a progress
 * bar: `evals run --wait`, `import-jobs watch`, a triage, a download, a contacts import).
 * Each frame is cut to the terminal's width as it is now (src/ui/width.ts), so a frame is
 * always one line and the next redraw overwrites all of it: a frame wider than the
 * terminal would wrap, and each redraw would leave the wrapped part behind as a trail.
 * The text must already be safe to show (src/ui/safe-text.ts).
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
