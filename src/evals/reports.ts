import { resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import type { Env } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { checkWriteTarget } from '../write-target.js';
import { appendStepSummary } from './github.js';
import type { RunOutcome } from './outcome.js';
import type { RunReporter } from './run-reporter.js';

/** `--report <kind>=<path>`: the files a finished (or stopped) run is written to. */
export type ReportKind = 'junit' | 'json' | 'markdown' | 'html';
const REPORT_NAMES: Record<ReportKind, string> = { junit: 'JUnit', json: 'JSON', markdown: 'Markdown', html: 'HTML' };

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
 * Checked before anything is sent: each report's folder, or its nearest existing ancestor, is writable; no path is a folder
 * or shared. Writability is probed by creating and removing a file, so that a read-only mount is caught for root too.
 * Folders are probed side by side, but the report named is the first, in the order given, that cannot be written.
 */
export async function checkReportTargets(reports: readonly ReportTarget[]): Promise<void> {
  const seen = new Map<string, ReportTarget>();
  for (const r of reports) {
    const target = resolve(r.path);
    const twin = seen.get(target);
    if (twin)
      throw new UsageError(
        `--report ${r.kind}=${r.path} and --report ${twin.kind}=${twin.path} would write the same file`,
        'give each report a path of its own',
      );
    seen.set(target, r);
  }
  const checks = await Promise.allSettled(
    reports.map((r) =>
      checkWriteTarget(r.path, (why: string) => new UsageError(`cannot write --report ${r.kind}=${r.path}: ${why}`, 'pass a path in a folder you can write')),
    ),
  );
  const refused = checks.find((c): c is PromiseRejectedResult => c.status === 'rejected');
  if (refused) throw refused.reason;
}

/** Which reports need the suite (its name) and the suite's recent runs (the HTML trend chart). */
export function reportNeeds(reports: readonly ReportTarget[], env: Env): { suite: boolean; history: boolean } {
  const md = reports.some((r) => r.kind === 'markdown' || r.kind === 'html') || Boolean(env.GITHUB_STEP_SUMMARY);
  return { suite: md, history: reports.some((r) => r.kind === 'html') };
}

/** A report's builder: its text, or (the large ones) its UTF-8 bytes. */
type Renderer = (o: RunOutcome) => string | Uint8Array;
const loading = new Map<ReportKind, Promise<Renderer>>();

/** The builder of one report; its module is loaded on the first call (only the formats asked for are ever loaded). */
function renderer(kind: ReportKind): Promise<Renderer> {
  let p = loading.get(kind);
  if (!p) {
    switch (kind) {
      case 'junit':
        p = import('./report-junit.js').then((m) => m.junitReport);
        break;
      case 'json':
        p = import('./report-json.js').then((m) => m.jsonReport);
        break;
      case 'markdown':
        p = import('./report-markdown.js').then(
          (m): Renderer =>
            (o) =>
              m.markdownReport(o),
        );
        break;
      case 'html':
        p = import('./report-html.js').then((m) => m.htmlReport);
        break;
    }
    loading.set(kind, p);
  }
  return p;
}

/** The report kinds that writing `reports` renders (the Markdown one also for $GITHUB_STEP_SUMMARY). */
function kindsOf(reports: readonly ReportTarget[], env: Env): Set<ReportKind> {
  const kinds = new Set(reports.map((r) => r.kind));
  if (env.GITHUB_STEP_SUMMARY) kinds.add('markdown');
  return kinds;
}

/**
 * Loads the builders of the reports that will be written, without waiting: called while the
 * run's results are on their way, so that the modules compile meanwhile.
 */
export function preloadReports(reports: readonly ReportTarget[], env: Env): void {
  for (const kind of kindsOf(reports, env)) renderer(kind).catch(() => undefined);
}

/** Renders one report, as text. */
export async function renderReport(kind: ReportKind, o: RunOutcome): Promise<string> {
  return asText((await renderer(kind))(o));
}

const asText = (content: string | Uint8Array) =>
  typeof content === 'string' ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('utf8');

/** The order reports are rendered in: each file is written while the next renders, so the smallest (Markdown) goes last. */
const RENDER_ORDER: Record<ReportKind, number> = { html: 0, junit: 1, json: 2, markdown: 3 };

/**
 * Writes every report atomically (a temporary file, then a rename); Markdown also goes to $GITHUB_STEP_SUMMARY when set.
 * Each format renders once and is written on libuv's threads while the next renders. A report that fails does not stop
 * the others; the first failure is thrown once all are done.
 */
export async function writeReports(
  deps: { env: Env; reporter: Pick<RunReporter, 'info' | 'warn'> },
  o: RunOutcome,
  reports: readonly ReportTarget[],
): Promise<void> {
  const kinds = kindsOf(reports, deps.env);
  if (kinds.size === 0) return;
  const [{ openAtomic }] = await Promise.all([import('../write-atomic.js'), ...[...kinds].map(renderer)]);
  const failed = (r: ReportTarget) => (err: unknown) => {
    throw new CliError(`could not write the ${r.kind} report to ${r.path}: ${(err as Error).message}`);
  };
  // Opened first (a few turns of the event loop while it is free: a folder made, a file
  // created), so that each report's write starts, on libuv's threads, as soon as it is rendered.
  const files = reports.map((r) => openAtomic(r.path));
  for (const f of files) f.catch(() => undefined); // each is awaited below
  await Promise.allSettled(files);
  const rendered = new Map<ReportKind, string | Uint8Array>();
  const render = async (kind: ReportKind) => {
    let text = rendered.get(kind);
    if (text === undefined) {
      text = (await renderer(kind))(o);
      rendered.set(kind, text);
    }
    return text;
  };
  const writes: Array<Promise<unknown>> = [];
  const written = new Set<ReportTarget>();
  const order = reports.map((r, i) => ({ r, file: files[i]! })).sort((a, b) => RENDER_ORDER[a.r.kind] - RENDER_ORDER[b.r.kind]);
  for (const { r, file } of order) {
    const content = render(r.kind);
    writes.push(
      content
        .then(
          async (text) => {
            await (await file).commit(text);
            written.add(r);
          },
          async (err: unknown) => {
            await file.then(
              (f) => f.discard(),
              () => undefined,
            );
            throw err;
          },
        )
        .catch(failed(r)),
    );
    await content.catch(() => undefined);
  }
  if (deps.env.GITHUB_STEP_SUMMARY) {
    writes.push(
      render('markdown')
        .then((md) => appendStepSummary(deps.env, o, asText(md)))
        .then(
          () => undefined,
          (err: Error) => deps.reporter.warn(`could not append to $GITHUB_STEP_SUMMARY: ${err.message}`),
        ),
    );
  }
  const settled = await Promise.allSettled(writes);
  // One line per file written, in the order given, so that a CI log says where each report is.
  for (const r of reports) if (written.has(r)) deps.reporter.info(`Wrote ${r.path} (${REPORT_NAMES[r.kind]})`);
  const rejected = settled.find((x): x is PromiseRejectedResult => x.status === 'rejected');
  if (rejected) throw rejected.reason;
}
