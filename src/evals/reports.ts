import { resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import type { Context } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { checkWriteTarget } from '../write-target.js';
import { appendStepSummary } from './github.js';
import type { RunOutcome } from './outcome.js';

/** `--report <kind>=<path>`: the files a finished (or stopped) run is written to. */
export type ReportKind = 'junit' | 'json' | 'markdown' | 'html';
export const REPORT_KINDS: readonly ReportKind[] = ['junit', 'json', 'markdown', 'html'];

export interface ReportTarget {
  kind: ReportKind;
  path: string;
}

/** Commander parser for the repeatable `--report junit=path|json=path|markdown=path|html=path`. */
export function reportOption(v: string, previous: ReportTarget[] = []): ReportTarget[] {
  const m = /^(junit|json|markdown|html)=(.+)$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError('--report takes junit=<path>, json=<path>, markdown=<path> or html=<path> (repeat it for several).');
  return [...previous, { kind: m[1] as ReportKind, path: m[2]! }];
}

/**
 * Before anything is sent: every report can be written. Its folder exists and is writable,
 * or the nearest folder above it that exists is (missing folders are created when the
 * report is written); the path is not a folder; no two reports share a file. Writability is
 * probed by creating and removing a file, so that a read-only mount is caught for root too.
 */
export async function checkReportTargets(reports: readonly ReportTarget[]): Promise<void> {
  const seen = new Map<string, ReportTarget>();
  for (const r of reports) {
    const flag = `--report ${r.kind}=${r.path}`;
    const refuse = (why: string) => new UsageError(`cannot write ${flag}: ${why}`, 'pass a path in a folder you can write');
    const target = resolve(r.path);
    const twin = seen.get(target);
    if (twin) throw new UsageError(`${flag} and --report ${twin.kind}=${twin.path} would write the same file`, 'give each report a path of its own');
    seen.set(target, r);
    await checkWriteTarget(r.path, refuse);
  }
}

/** Which reports need the suite (its name) and the suite's recent runs (the HTML trend chart). */
export function reportNeeds(reports: readonly ReportTarget[], env: Context['env']): { suite: boolean; history: boolean } {
  const md = reports.some((r) => r.kind === 'markdown' || r.kind === 'html') || Boolean(env.GITHUB_STEP_SUMMARY);
  return { suite: md, history: reports.some((r) => r.kind === 'html') };
}

/** Renders one report (each format's module is loaded only when asked for). */
export async function renderReport(kind: ReportKind, o: RunOutcome): Promise<string> {
  switch (kind) {
    case 'junit':
      return (await import('./report-junit.js')).renderJunitReport(o);
    case 'json':
      return (await import('./report-json.js')).jsonReport(o);
    case 'markdown':
      return (await import('./report-markdown.js')).markdownReport(o);
    case 'html':
      return (await import('./report-html.js')).htmlReport(o);
  }
}

/**
 * Writes every report (atomically: a temporary file, then a rename) and appends the
 * Markdown report to $GITHUB_STEP_SUMMARY when it is set.
 */
export async function writeReports(ctx: Context, o: RunOutcome, reports: readonly ReportTarget[]): Promise<void> {
  const { writeFileAtomic } = await import('./write-atomic.js');
  // Each file is written while the next report renders (the writes run on libuv's threads).
  const writes: Array<Promise<void>> = [];
  const failed = (r: ReportTarget) => (err: unknown) => {
    throw new CliError(`could not write the ${r.kind} report to ${r.path}: ${(err as Error).message}`);
  };
  for (const r of reports) {
    const content = await renderReport(r.kind, o).catch(failed(r));
    writes.push(writeFileAtomic(r.path, content).catch(failed(r)));
  }
  writes.push(appendStepSummary(ctx.env, o).then(() => undefined, (err: Error) => ctx.warn(`could not append to $GITHUB_STEP_SUMMARY: ${err.message}`)));
  const settled = await Promise.allSettled(writes);
  const rejected = settled.find((x): x is PromiseRejectedResult => x.status === 'rejected');
  if (rejected) throw rejected.reason;
}
