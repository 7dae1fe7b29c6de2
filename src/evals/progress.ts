import type { Writable } from 'node:stream';
import type { Run } from '../api/evals.js';
import { progressText } from './summary.js';
import type { LiveLine } from '../ui/live-line.js';
import { safeText } from '../ui/safe-text.js';
import { formatDuration } from '../ui/values.js';

/** Without a terminal, a progress line at most this often (and whenever the status changes). */
const PLAIN_EVERY_MS = 5000;

export interface RunProgress {
  update(run: Run): void;
  stop(): void;
}

/** The bar on a terminal's stderr: the live line (and the text fitting it loads, tens of milliseconds) is loaded only for a terminal. */
export async function barProgress(stderr: Writable): Promise<RunProgress> {
  const { LiveLine } = await import('../ui/live-line.js');
  return new BarProgress(new LiveLine(stderr), Date.now());
}

/** The bar, redrawn in place and cut to the terminal's width (src/ui/live-line.ts). */
class BarProgress implements RunProgress {
  constructor(
    private readonly line: LiveLine,
    private readonly started: number,
  ) {}

  update(run: Run): void {
    const done = (run.completedIterations ?? 0) + (run.failedIterations ?? 0);
    const ratio = run.totalIterations > 0 ? Math.min(1, done / run.totalIterations) : 0;
    this.line.drawBar(ratio, safeText(`run #${run.runNumber} ${run.status}  ${progressText(run)}  ${formatDuration(Date.now() - this.started)}`));
  }

  stop(): void {
    this.line.clear();
  }
}

/** A line through `say` when the status changes, else at most every few seconds (the text is the platform's: `say` makes it safe). */
export class LineProgress implements RunProgress {
  private lastStatus?: string;
  private lastText?: string;
  private lastAt = 0;
  constructor(private readonly say: (line: string) => void) {}

  update(run: Run): void {
    const text = `run #${run.runNumber} (${run.id}) ${run.status}: ${progressText(run)}`;
    const now = Date.now();
    if (run.status !== this.lastStatus || (text !== this.lastText && now - this.lastAt >= PLAIN_EVERY_MS)) {
      this.say(text);
      this.lastStatus = run.status;
      this.lastText = text;
      this.lastAt = now;
    }
  }

  stop(): void {}
}
