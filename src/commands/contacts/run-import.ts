import { setTimeout as sleep } from 'node:timers/promises';
import { FINISHED_STATUSES, getImportJob, importContactsFromUrl, type ImportJob } from '../../api/contacts.js';
import type { Context, GlobalOptions } from '../../context.js';
import { CliError, InterruptedError, SilentExit, UsageError, WaitTimeoutError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { safeLines, safeText } from '../../ui/safe-text.js';
import { wrapLines } from '../../ui/fit.js';
import { parseEncoding } from '../../contacts/encoding.js';
import { runImport, type ImportRequest } from '../../contacts/importer.js';
import type { ImportOptions } from '../../contacts/options.js';
import { parseMapFlags } from '../../contacts/mapping.js';
import { formatCount } from '../../ui/values.js';
import { RowReporter, summaryText, type ImportSummary } from '../../contacts/report.js';
import { formatFromPath, type InputFormat } from '../../contacts/source.js';

const DEFAULT_BATCH_SIZE = 1000;

/** `\t`, `tab` and a literal tab all mean a tab; otherwise the text itself. */
export function parseDelimiter(v: string): string {
  if (v === '\\t' || v.toLowerCase() === 'tab') return '\t';
  if (v === '' || /["\r\n]/.test(v))
    throw new UsageError(`invalid --delimiter ${JSON.stringify(v)}`, 'use one character such as ";" or "\\t" (not a quote or a line break)');
  return v;
}

/** Quotes an argument for a POSIX shell when it needs it. */
export function shellArg(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The exact command that resumes this import (the options that decide the batches included). */
export function resumeCommand(req: ImportRequest, opts: ImportOptions): string {
  const parts = ['vap', 'contacts', 'import', req.listId, req.file, '--resume'];
  if (opts.format) parts.push('--format', req.format);
  if (opts.delimiter !== undefined) parts.push('--delimiter', req.delimiter === '\t' ? '\\t' : req.delimiter);
  if (opts.encoding !== undefined) parts.push('--encoding', req.encoding);
  for (const m of opts.map ?? []) parts.push('--map', m);
  if (req.defaultCountry) parts.push('--default-country', req.defaultCountry);
  if (req.batchSize !== DEFAULT_BATCH_SIZE) parts.push('--batch-size', String(req.batchSize));
  if (opts.stateFile) parts.push('--state-file', opts.stateFile);
  if (opts.errorsFile) parts.push('--errors-file', opts.errorsFile);
  return parts.map(shellArg).join(' ');
}

async function checkCountry(code: string | undefined): Promise<string | undefined> {
  if (code === undefined) return undefined;
  const cc = code.trim().toUpperCase();
  // The library's own list (what its isSupportedCountry reads), without loading the library here.
  const { default: metadata } = await import('libphonenumber-js/min/metadata');
  if (!/^[A-Z]{2}$/.test(cc) || !Object.hasOwn(metadata.countries, cc)) {
    throw new UsageError(
      `--default-country ${JSON.stringify(code)} is not a country code phone numbers are known for`,
      'use an ISO 3166 two-letter code such as US, GB or FR',
    );
  }
  return cc;
}

export async function runImportCommand(listId: string, file: string | undefined, opts: ImportOptions & GlobalOptions, ctx: Context): Promise<void> {
  if (opts.fileUrl !== undefined) return runUrlImport(listId, file, opts, ctx);
  for (const [flag, set] of [
    ['--file-format', opts.fileFormat !== undefined],
    ['--wait', opts.wait],
  ] as const) {
    if (set) throw new UsageError(`${flag} goes with --file-url`, 'a local file is always followed until its jobs end');
  }
  if (!file) throw new UsageError('missing the file to import', 'pass a .csv or .json file, or --file-url URL --file-format csv|json');
  const byExt = formatFromPath(file);
  const format: InputFormat | undefined = opts.format ?? byExt?.format;
  if (!format) throw new UsageError(`cannot tell the format of ${file} from its name`, 'pass --format csv or --format json');
  if (format === 'json' && opts.delimiter !== undefined) throw new UsageError('--delimiter is for CSV files');
  const delimiter = opts.delimiter !== undefined ? parseDelimiter(opts.delimiter) : (byExt?.delimiter ?? ',');
  if (opts.resume && opts.force) throw new UsageError('--resume and --force contradict each other', '--resume continues the import; --force starts it over');
  if (opts.dryRun && (opts.resume || opts.force))
    throw new UsageError(`--dry-run sends nothing, so ${opts.resume ? '--resume' : '--force'} has no meaning with it`);
  const req: ImportRequest = {
    listId,
    file,
    format,
    delimiter,
    encoding: opts.encoding !== undefined ? parseEncoding(opts.encoding) : 'utf-8',
    maps: parseMapFlags(opts.map ?? []),
    defaultCountry: await checkCountry(opts.defaultCountry),
    dryRun: Boolean(opts.dryRun),
    errorsFile: opts.errorsFile,
    batchSize: opts.batchSize ?? DEFAULT_BATCH_SIZE,
    concurrency: opts.concurrency ?? 4,
    resume: Boolean(opts.resume),
    stateFile: opts.stateFile,
    force: Boolean(opts.force),
    progress: opts.progress !== false,
  };

  const { summary, stopped } = await runImport(req, ctx);
  if (stopped?.error instanceof UsageError) throw stopped.error;
  await printSummary(summary, req.batchSize, ctx);

  if (stopped) {
    const again = resumeCommand(req, opts);
    const inFlight = summary.jobs ? ` Jobs already accepted (${summary.jobs}) go on on the server; nothing was cancelled.` : '';
    if (stopped.interrupted) {
      ctx.io.stderr.write(`Interrupted after reading ${formatCount(summary.rows)} rows.${inFlight}\nResume with:\n  ${safeText(again)}\n`);
      throw new SilentExit(ExitCode.INTERRUPTED);
    }
    ctx.io.stderr.write(`The import stopped before the end.${inFlight} Once the cause is fixed, resume with:\n  ${safeText(again)}\n`);
    throw stopped.error;
  }
  const rejected = summary.rejectedLocally + summary.rejectedByServer;
  if (summary.failedJobs.length) throw new SilentExit(ExitCode.FAILURE);
  if (rejected > 0 && !opts.allowInvalid) throw new SilentExit(ExitCode.FAILURE);
}

async function printSummary(summary: ImportSummary, batchSize: number, ctx: Context): Promise<void> {
  if (ctx.out.format === 'json' || ctx.out.format === 'ndjson' || ctx.globals.query) {
    await ctx.out.data(summary);
    return;
  }
  if (ctx.globals.quiet) return;
  // The summary names files and lists: every line shown safe, and wrapped at word boundaries on a terminal.
  ctx.io.stdout.write(wrapLines(safeLines(summaryText(summary, batchSize)), ctx.tableFit().width));
}

async function runUrlImport(listId: string, file: string | undefined, opts: ImportOptions & GlobalOptions, ctx: Context): Promise<void> {
  if (file) throw new UsageError('give either a file or --file-url, not both');
  if (!opts.fileFormat) throw new UsageError('--file-url needs --file-format csv|json', 'the service does not guess the format of a file it fetches');
  let url: URL;
  try {
    url = new URL(opts.fileUrl!);
  } catch {
    throw new UsageError(`--file-url ${JSON.stringify(opts.fileUrl)} is not a URL`, 'for example https://example.com/leads.csv');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--file-url must be http or https, not ${url.protocol.replace(/:$/, '')}`);
  const local = ['dryRun', 'resume', 'stateFile', 'errorsFile', 'map', 'defaultCountry', 'delimiter', 'encoding', 'format', 'force'] as const;
  for (const k of local) {
    const v = opts[k];
    if (v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0)) {
      throw new UsageError(`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is for local files, not --file-url`, 'the service reads the file itself');
    }
  }
  const api = await ctx.api();
  const accepted = await importContactsFromUrl(api, listId, url.toString(), opts.fileFormat);
  if (!opts.wait) {
    if (ctx.out.format === 'json' || ctx.out.format === 'ndjson' || ctx.globals.query) await ctx.out.data(accepted);
    else ctx.io.stdout.write(`${safeText(String(accepted.jobId))}\n`);
    ctx.info(`Import job ${accepted.jobId} started (${accepted.status}); follow it with \`vap import-jobs watch ${accepted.jobId}\``);
    return;
  }

  const spinner = await ctx.spinner(`import job ${accepted.jobId}: ${accepted.status}`);
  const deadline = Date.now() + opts.timeout;
  let job: ImportJob;
  let interval = 250;
  try {
    for (;;) {
      job = await getImportJob(api, accepted.jobId, ctx.signal);
      const p = job.progress;
      spinner.text(`import job ${job.id}: ${job.status} ${p ? `${formatCount(p.processed)}/${formatCount(p.total)} rows` : ''}`);
      if (FINISHED_STATUSES.has(job.status)) break;
      if (Date.now() >= deadline) {
        spinner.stop();
        throw new WaitTimeoutError(`import job ${job.id} had not finished by --timeout; it goes on (follow it with \`vap import-jobs watch ${job.id}\`)`);
      }
      await sleep(Math.min(interval, Math.max(0, deadline - Date.now())), undefined, { signal: ctx.signal });
      interval = Math.min(2000, interval * 1.5);
    }
  } catch (err) {
    spinner.stop();
    if (ctx.signal.aborted)
      throw new InterruptedError(`stopped waiting; import job ${accepted.jobId} goes on (cancel it with \`vap import-jobs cancel ${accepted.jobId}\`)`);
    throw err;
  }
  spinner.stop();
  const reporter = new RowReporter((line) => ctx.io.stderr.write(`${line}\n`));
  for (const e of job.errors ?? []) reporter.row(e.row, e.field, e.message);
  reporter.finish(`\`vap import-jobs get ${job.id} --json\``);
  if (ctx.out.format === 'json' || ctx.out.format === 'ndjson' || ctx.globals.query) await ctx.out.data(job);
  else {
    const p = job.progress;
    ctx.io.stdout.write(
      safeLines(
        `Import job ${job.id} ${job.status}: ${formatCount(p.total)} rows, ${formatCount(p.successful)} imported, ${formatCount(p.failed)} rejected${
          typeof (job as { message?: unknown }).message === 'string' && job.status === 'failed' ? ` (${(job as { message?: string }).message})` : ''
        }\n`,
      ),
    );
  }
  if (job.status !== 'completed') throw new CliError(`import job ${job.id} ${job.status}`);
  if (job.progress.failed > 0 && !opts.allowInvalid) throw new SilentExit(ExitCode.FAILURE);
}
