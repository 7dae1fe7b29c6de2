import type { Run } from '../api/evals.js';
import type { Context } from '../context.js';
import { progressText } from './summary.js';
import { drawsInPlace } from '../ui/accessible.js';
import { LiveLine } from '../ui/live-line.js';
import { safeText } from '../ui/safe-text.js';
import { formatDuration } from '../ui/values.js';

/** Without a terminal, a progress line at most this often (and whenever the status changes). */
const PLAIN_EVERY_MS = 5000;

export interface RunProgress {
  update(run: Run): void;
  stop(): void;
}

/** A live bar on a terminal's stderr, plain lines otherwise, nothing with -q. */
export function runProgress(ctx: Context): RunProgress | null {
  if (ctx.globals.quiet) return null;
  return drawsInPlace(ctx) ? new BarProgress(ctx, Date.now()) : new LineProgress(ctx);
}

/** The bar, redrawn in place and cut to the terminal's width (src/ui/live-line.ts). */
class BarProgress implements RunProgress {
  private readonly line: LiveLine;
  constructor(ctx: Context, private readonly started: number) {
    this.line = new LiveLine(ctx.io.stderr);
  }

  update(run: Run): void {
    const done = (run.completedIterations ?? 0) + (run.failedIterations ?? 0);
    const ratio = run.totalIterations > 0 ? Math.min(1, done / run.totalIterations) : 0;
    this.line.drawBar(ratio, safeText(`run #${run.runNumber} ${run.status}  ${progressText(run)}  ${formatDuration(Date.now() - this.started)}`));
  }

  stop(): void {
    this.line.clear();
  }
}

class LineProgress implements RunProgress {
  private lastStatus?: string;
  private lastText?: string;
  private lastAt = 0;
  constructor(private readonly ctx: Context) {}

  update(run: Run): void {
    const text = `run #${run.runNumber} (${run.id}) ${run.status}: ${progressText(run)}`;
    const now = Date.now();
    if (run.status !== this.lastStatus || (text !== this.lastText && now - this.lastAt >= PLAIN_EVERY_MS)) {
      this.ctx.io.stderr.write(`${safeText(text)}\n`);
      this.lastStatus = run.status;
      this.lastText = text;
      this.lastAt = now;
    }
  }

  stop(): void {}
}

