import { Command } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import { FINISHED_STATUSES, getImportJob, type ImportJob } from '../../api/contacts.js';
import type { Context, GlobalOptions } from '../../context.js';
import { CliError, InterruptedError, WaitTimeoutError } from '../../errors.js';
import { drawsInPlace } from '../../ui/accessible.js';
import { action } from '../action.js';
import { LiveLine } from '../../ui/live-line.js';
import { safeText } from '../../ui/safe-text.js';
import { durationOption } from '../duration.js';
import { formatCount, formatDuration } from '../../ui/values.js';
import type { ContextFactory } from '../types.js';
import { printJob, progressText } from './shared.js';

export interface WatchOptions {
  interval: number;
  timeout: number;
}

/** Without a terminal, a progress line at most this often (and whenever the status changes). */
const PLAIN_EVERY_MS = 5000;

export function watchCommand(makeContext: ContextFactory): Command {
  return new Command('watch')
    .description('Follow an import job until it ends; exits 0 when it completes, 1 when it fails or is cancelled')
    .argument('<jobId>', 'import job id')
    .option('--interval <duration>', 'time between polls (500ms, 2s, ...)', durationOption('--interval', { min: 100 }), 1000)
    .option('--timeout <duration>', 'give up after this long with exit 124 (30s, 10m, 1h)', durationOption('--timeout', { min: 1 }), 600_000)
    .addHelpText(
      'after',
      `
Progress is a live bar on stderr on a terminal, and a line every few seconds
otherwise; the final job goes to stdout. Ctrl-C stops watching (exit 130) and
leaves the job running.

Exit codes: 0 completed, 1 failed or cancelled, 124 still running at --timeout, 130 Ctrl-C.

Examples:
  $ vap import-jobs watch job_123
  $ vap import-jobs watch job_123 --interval 5s --timeout 30m
  $ vap import-jobs watch job_123 --json > job.json && echo imported`,
    )
    .action(action<WatchOptions>(makeContext, ([id], opts, ctx) => run(id!, opts, ctx)));
}

export async function run(id: string, opts: WatchOptions & GlobalOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const started = Date.now();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DOMException('watch timed out', 'TimeoutError')), opts.timeout);
  const signal = AbortSignal.any([ctx.signal, deadline.signal]);
  const progress = ctx.globals.quiet ? null : drawsInPlace(ctx) ? new BarRenderer(ctx, started) : new LineRenderer(ctx);
  let job: ImportJob | undefined;
  try {
    for (;;) {
      job = await getImportJob(api, id, signal);
      progress?.update(job);
      if (FINISHED_STATUSES.has(job.status)) break;
      await sleep(opts.interval, undefined, { signal });
    }
  } catch (err) {
    if (ctx.signal.aborted) {
      progress?.stop();
      throw new InterruptedError(`stopped watching; import job ${id} goes on (cancel it with \`vap import-jobs cancel ${id}\`)`);
    }
    if (deadline.signal.aborted) {
      progress?.stop();
      const last = job ? ` (last seen ${job.status}, ${progressText(job)})` : '';
      throw new WaitTimeoutError(
        `import job ${id} had not finished after ${formatDuration(opts.timeout)}${last}; it goes on, watch it again or raise --timeout`,
      );
    }
    throw err;
  } finally {
    clearTimeout(timer);
    progress?.stop();
  }

  await printJob(job, ctx);
  const summary = progressText(job);
  if (job.status === 'completed') {
    await ctx.success(`Import job ${id} completed: ${summary}`);
    return;
  }
  if (job.status === 'cancelled') throw new CliError(`import job ${id} was cancelled: ${summary}; contacts already processed stay in the list`);
  const reason = (job as ImportJob & { message?: unknown }).message;
  throw new CliError(`import job ${id} failed${typeof reason === 'string' && reason ? `: ${reason}` : ''} (${summary})`);
}

interface Renderer {
  update(job: ImportJob): void;
  stop(): void;
}

/** A live bar redrawn in place on a terminal's stderr. */
class BarRenderer implements Renderer {
  private readonly line: LiveLine;
  constructor(
    ctx: Context,
    private readonly started: number,
  ) {
    this.line = new LiveLine(ctx.io.stderr);
  }

  update(job: ImportJob): void {
    const p = job.progress ?? { total: 0, processed: 0, successful: 0, failed: 0 };
    const ratio = p.total > 0 ? Math.min(1, p.processed / p.total) : FINISHED_STATUSES.has(job.status) ? 1 : 0;
    this.line.drawBar(
      ratio,
      safeText(
        `${formatCount(p.processed)}/${formatCount(p.total)}  ${formatCount(p.successful)} ok, ${formatCount(p.failed)} failed  ${job.status}  ${formatDuration(Date.now() - this.started)}`,
      ),
    );
  }

  stop(): void {
    this.line.keep();
  }
}

/** Plain lines for logs: the first poll, every status change, and otherwise at most one every few seconds. */
class LineRenderer implements Renderer {
  private lastStatus?: string;
  private lastText?: string;
  private lastAt = 0;
  constructor(private readonly ctx: Context) {}

  update(job: ImportJob): void {
    const text = `import job ${job.id} ${job.status}: ${progressText(job)}`;
    const now = Date.now();
    const changedStatus = job.status !== this.lastStatus;
    if (changedStatus || (text !== this.lastText && now - this.lastAt >= PLAIN_EVERY_MS)) {
      this.ctx.io.stderr.write(`${safeText(text)}\n`);
      this.lastStatus = job.status;
      this.lastText = text;
      this.lastAt = now;
    }
  }

  stop(): void {}
}
