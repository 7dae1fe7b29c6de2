import { access, constants, rename, stat } from 'node:fs/promises';
import * as v8 from 'node:v8';
import { dirname, join, resolve as resolvePath } from 'node:path';
import type { ApiClient } from '../api/client.js';
import { getContactList, getImportJob, type ContactList, type ImportJob } from '../api/contacts.js';
import { NotFoundError } from '../api/errors.js';
import type { Context } from '../context.js';
import { CliError, SilentExit, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { setV8Flags } from '../v8-flags.js';
import { checkUtf8 } from './encoding.js';
import { chooseErrorsPath, ErrorsFile } from './errors-file.js';
import { listNames, resolveMapping, type Mapping } from './mapping.js';
import { THREAD_MIN_BYTES, ValidationPool, type Validated } from './pool.js';
import { ProgressBar, RowEstimate, type ProgressFigures } from './progress.js';
import { isAccessible } from '../ui/accessible.js';
import { RowReporter, suggestFix, type ImportSummary, type NormalisationExample } from './report.js';
import { BatchSender, describeError, findBatchJob, JobTracker, listBaseline, type JobOutcome } from './sender.js';
import { csvParseOptions, InputError, openSource, type InputFormat, type RowSource } from './source.js';
import {
  defaultStatePath,
  ensureStateFolder,
  folderProblem,
  ImportState,
  stateDir,
  inputIdentity,
  StateFileError,
  statesOfInput,
  stateTarget,
  type InputIdentity,
  type StateData,
  type StateOptions,
} from './state.js';

/**
 * The bulk import as a streaming pipeline (drawn in src/contacts/README.md): every stage holds a
 * bounded amount and reading waits when sending waits, so memory stays flat whatever the file.
 */

export interface ImportRequest {
  listId: string;
  file: string;
  format: InputFormat;
  delimiter: string;
  /** The file's encoding (TextDecoder's canonical name); `utf-8` is checked before anything is sent. */
  encoding: string;
  maps: Array<{ column: string; field: string }>;
  defaultCountry?: string;
  dryRun: boolean;
  errorsFile?: string;
  /** An earlier errors file where this one would have gone, kept (set when the path is chosen). */
  keptErrorsFile?: string;
  batchSize: number;
  concurrency: number;
  resume: boolean;
  stateFile?: string;
  force: boolean;
  progress: boolean;
  /** Validate on a worker thread: undefined decides by file size. */
  threads?: boolean;
}

export interface ImportOutcome {
  summary: ImportSummary;
  /** Set when the run stopped before the end (Ctrl-C or an error), with the error. */
  stopped?: { interrupted: boolean; error?: unknown };
}

/**
 * Rows per chunk, and chunks in flight: a dry run keeps the worker's next chunk queued; sending
 * is the slower side, so two. Small chunks die young, so memory stays flat (docs/performance.md).
 */
const CHUNK_ROWS = 1000;
const WINDOW_DRY = 4;
const WINDOW_SEND = 2;
const MAX_EXAMPLES = 5;

export class FileUnreadable extends UsageError {}

function sameOptions(a: StateOptions, b: StateOptions): string[] {
  const diffs: string[] = [];
  if (a.format !== b.format) diffs.push(`--format was ${a.format}, now ${b.format}`);
  if (a.delimiter !== b.delimiter) diffs.push(`--delimiter was ${JSON.stringify(a.delimiter)}, now ${JSON.stringify(b.delimiter)}`);
  if ((a.encoding ?? 'utf-8') !== (b.encoding ?? 'utf-8')) diffs.push(`--encoding was ${a.encoding ?? 'utf-8'}, now ${b.encoding ?? 'utf-8'}`);
  if (a.batchSize !== b.batchSize) diffs.push(`--batch-size was ${a.batchSize}, now ${b.batchSize}`);
  if ((a.defaultCountry ?? null) !== (b.defaultCountry ?? null))
    diffs.push(`--default-country was ${a.defaultCountry ?? 'not given'}, now ${b.defaultCountry ?? 'not given'}`);
  const ma = JSON.stringify(Object.entries(a.mapping).sort());
  const mb = JSON.stringify(Object.entries(b.mapping).sort());
  if (ma !== mb) {
    const show = (m: Record<string, string>) =>
      Object.entries(m)
        .map(([f, c]) => `${c}→${f}`)
        .join(', ');
    diffs.push(`the column mapping was ${show(a.mapping)}, now ${show(b.mapping)}`);
  }
  return diffs;
}

export async function runImport(req: ImportRequest, ctx: Context): Promise<ImportOutcome> {
  const started = Date.now();
  const file = req.file;

  // The file first: a file that cannot be read is exit 2 before anything else.
  let size: number;
  try {
    const st = await stat(file);
    if (st.isDirectory()) throw new InputError('it is a directory, not a file');
    size = st.size;
  } catch (err) {
    throw new FileUnreadable(
      `cannot read ${file}: ${err instanceof InputError ? err.message : (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
    );
  }
  if (size === 0) throw new FileUnreadable(`cannot read ${file}: the file is empty`);
  // A file read as UTF-8 must be UTF-8, all of it, before anything is sent (encoding.ts).
  // The same read finds the file's line endings: one kind is parsed faster than a mix (source.ts).
  const lineEndings = req.encoding === 'utf-8' ? await checkUtf8(file, req.format === 'csv' ? csvParseOptions(req.delimiter) : undefined) : 'mixed';
  // Where the import's state will be written, before anything is sent: vap's state folder
  // (created if missing), or the folder of --state-file, which must exist and be writable.
  if (!req.dryRun) {
    if (req.stateFile) {
      const dir = dirname(resolvePath(req.stateFile));
      try {
        if (!(await stat(dir)).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
        await access(dir, constants.W_OK);
      } catch (err) {
        throw new UsageError(
          `cannot write --state-file ${req.stateFile}: the folder ${dir}: ${folderProblem(err)}`,
          'pass --state-file with a path in a folder you can write',
        );
      }
    } else {
      await ensureStateFolder(stateDir(ctx.env), ctx.env, 'pass --state-file <path>');
    }
    // A damaged state file is refused now, before anything is sent (--force moves it aside later).
    if (!req.force || req.resume) {
      try {
        await ImportState.read(await statePathFor(req, ctx));
      } catch (err) {
        if (err instanceof StateFileError) throw new UsageError(err.message, err.hint);
        throw err;
      }
    }
  }
  // Where rejected rows will go, before anything is sent (a read-only input folder falls
  // back to vap's state folder; an unwritable --errors-file is a usage error; an earlier
  // errors file is never overwritten without a yes: src/contacts/errors-file.ts).
  const chosen = await chooseErrorsPath(req.errorsFile, file, join(dirname(stateDir(ctx.env)), 'errors'), {
    ensureFallback: (dir) => ensureStateFolder(dir, ctx.env, 'pass --errors-file <path>'),
    dryRun: req.dryRun,
    overwrite: async (path) => {
      if (ctx.globals.yes) return true;
      const ok = await ctx.prompter.confirm(`${path} already exists: overwrite it with the rows this import rejects?`, { flag: '--yes' });
      // A "no" is a choice, not a failure: nothing is sent, the file is kept, exit 0.
      if (!ok) {
        ctx.info(`nothing sent: ${path} was kept (pass another --errors-file to import with it kept)`);
        throw new SilentExit(ExitCode.OK);
      }
      return true;
    },
  });
  req = { ...req, errorsFile: chosen.path, keptErrorsFile: chosen.kept };

  // The schema is asked for first: the worker has nothing to do until it is known, so
  // the request goes out before anything else starts.
  const schema = ctx.api().then(async (api) => ({ api, list: await getContactList(api, req.listId, ctx.signal) }));
  schema.catch(() => undefined);
  // V8 lets the old generation grow to about four times what is live; with a small live set
  // and much garbage that factor, not the file, would set peak memory. Two keeps it flat
  // (docs/performance.md), and V8 reads it only when it sizes the heap, so it may change now.
  setV8Flags(v8, '--heap-growing-percent=100');
  // Large files are validated on a worker thread while the main thread reads and parses.
  const threads = req.threads ?? (size >= THREAD_MIN_BYTES && ctx.env.VAP_IMPORT_THREADS !== '0');
  const pool = await ValidationPool.spawn({ threads });
  // The file is opened during the request too: its first rows are parsed meanwhile (a
  // chunk at most). Errors keep their order: the API's first, then the file's.
  const opening = openSource(file, req.format, req.delimiter, req.encoding, lineEndings);
  opening.catch(() => undefined);
  try {
    let api: ApiClient;
    let list: ContactList;
    try {
      ({ api, list } = await schema);
    } catch (err) {
      void opening.then(
        (src) => src.close(),
        () => undefined,
      );
      throw err;
    }
    let source: RowSource;
    try {
      source = await opening;
    } catch (err) {
      if (err instanceof InputError) throw new FileUnreadable(`cannot read ${file}${err.line ? ` (near line ${err.line})` : ''}: ${err.message}`, err.hint);
      throw err;
    }
    return await importWith(pool, source, api, list, size, req, ctx, started);
  } finally {
    await pool.close();
  }
}

async function importWith(
  pool: ValidationPool,
  source: RowSource,
  api: ApiClient,
  list: ContactList,
  size: number,
  req: ImportRequest,
  ctx: Context,
  started: number,
): Promise<ImportOutcome> {
  const { signal } = ctx;
  const file = req.file;

  let mapping: Mapping;
  try {
    mapping = resolveMapping(source.columns, list.schema, req.maps, { format: req.format, file, listId: req.listId });
  } catch (err) {
    source.close();
    throw err;
  }
  if (mapping.unmapped.length) {
    const names = listNames(mapping.unmapped);
    await ctx.warn(
      `${mapping.unmapped.length === 1 ? 'column' : 'columns'} ${names} ${mapping.unmapped.length === 1 ? 'matches' : 'match'} no field of list ${req.listId} and ${mapping.unmapped.length === 1 ? 'is' : 'are'} ignored (map with --map column=field; fields: ${list.schema.fields.map((f) => f.name).join(', ')})`,
    );
  }

  const stateOptions: StateOptions = {
    format: req.format,
    delimiter: req.delimiter,
    mapping: mapping.pairs,
    batchSize: req.batchSize,
    defaultCountry: req.defaultCountry ?? null,
    ...(req.encoding !== 'utf-8' ? { encoding: req.encoding } : {}),
  };

  let state: ImportState | undefined;
  let resumed = false;
  try {
    if (!req.dryRun) {
      const opened = await openState(req, ctx, stateOptions);
      if ('complete' in opened) {
        source.close();
        ctx.info(
          `The import of ${file} into list ${req.listId} was already complete (${opened.complete.completedAt ?? opened.complete.updatedAt}); nothing to do.`,
        );
        return { summary: completedSummary(req, opened.complete, opened.path, started) };
      }
      state = opened.state;
      resumed = opened.resumed;
    }
  } catch (err) {
    source.close();
    throw err;
  }

  const errorsPath = req.errorsFile!;
  const errorsOut = new ErrorsFile(errorsPath, mapping.columns, mapping.keptColumns, req.format === 'csv' ? req.delimiter : ',');
  const bar = new ProgressBar(ctx.io.stderr, req.progress && ctx.io.stderrIsTTY && !ctx.globals.quiet, isAccessible(ctx.env));
  const reporter = new RowReporter((line) => bar.log(line));
  const warn = (line: string) => bar.log(`! ${line}`);
  const F = mapping.fields.length;
  pool.init({
    check: { fields: mapping.fields, defaultCountry: req.defaultCountry, wantValues: !req.dryRun },
    extract: { format: req.format, columnIndex: mapping.columnIndex, columns: mapping.columns, headerLength: source.columns.length },
  });
  // The next chunk, handed to the pool (wrapped: an async function would wait for the validation itself).
  const feed = async (): Promise<{ done: Promise<Validated> } | undefined> => {
    const rows = await source.next(CHUNK_ROWS);
    counts.read += rows.length;
    if (!rows.length) counts.readAll = true;
    return rows.length ? { done: pool.submitRows(rows) } : undefined;
  };
  if (ctx.globals.verbose)
    ctx.io.stderr.write(`validating ${pool.threaded ? `on a worker thread${pool.startedAtLaunch ? ' (started at launch)' : ''}` : 'on the main thread'}\n`);

  // rows: rows checked (handed back by validation); read: rows taken from the file; readAll: the file is read to its end.
  const counts = { rows: 0, read: 0, readAll: false, rejectedLocally: 0, normalised: 0 };
  const examples: NormalisationExample[] = [];
  const failedJobs: Array<{ id: string; status: string }> = [];

  // Server results, folded into the same report and errors file.
  const onJobDone = async ({ batch, job, replay }: JobOutcome): Promise<void> => {
    const p = job.progress ?? { total: batch.rowNos.length, processed: 0, successful: 0, failed: 0 };
    const n = batch.rowNos.length;
    const bad = Math.max(0, n - (p.successful ?? 0));
    if (job.status === 'failed' || job.status === 'cancelled') failedJobs.push({ id: job.id, status: job.status });
    const byRow = new Map<number, { fields: string[]; messages: string[] }>();
    for (const e of job.errors ?? []) {
      let g = byRow.get(e.row);
      if (!g) byRow.set(e.row, (g = { fields: [], messages: [] }));
      g.fields.push(e.field ?? '');
      g.messages.push(e.message);
    }
    for (const [k, g] of [...byRow].sort((a, b) => a[0] - b[0])) {
      // Job row k (1-based) is the k-th contact of the batch.
      const rowNo = batch.rowNos[k - 1];
      for (let j = 0; j < g.fields.length; j++) reporter.row(rowNo ?? `? (job ${job.id} row ${k})`, g.fields[j]!, g.messages[j]!, 'server');
      if (rowNo !== undefined) await errorsOut.write(batch.raws[k - 1], rowNo, g.fields, g.messages);
    }
    if (job.status === 'failed' || job.status === 'cancelled') {
      // Rows are processed in order: those past `processed` never were.
      const first = Math.min(n, p.processed ?? 0);
      if (first < n) {
        const why = `not imported: job ${job.id} ${job.status}${typeof (job as { message?: unknown }).message === 'string' ? ` (${(job as { message?: string }).message})` : ''}`;
        reporter.row(first + 1 < n ? `${batch.rowNos[first]}–${batch.rowNos[n - 1]}` : `${batch.rowNos[first]}`, '', why, 'server');
        for (let k = first; k < n; k++) if (!byRow.has(k + 1)) await errorsOut.write(batch.raws[k], batch.rowNos[k]!, [''], [why]);
      }
    }
    if ((job as { errorsTruncated?: boolean }).errorsTruncated)
      warn(`job ${job.id} kept only its first ${job.errors.length} row errors; ${p.failed} rows failed in it`);
    if (!replay && state) {
      state.finished(batch.i, { status: job.status, ok: p.successful ?? 0, bad, createdAt: job.createdAt });
      state.saveSoon();
    }
  };

  const tracker = state ? new JobTracker(api, signal, onJobDone, (job: ImportJob) => state!.seen(job.createdAt)) : undefined;
  const sender =
    state && tracker
      ? new BatchSender({
          api,
          listId: req.listId,
          state,
          fields: mapping.fields,
          batchSize: req.batchSize,
          concurrency: req.concurrency,
          signal,
          tracker,
          warn,
        })
      : undefined;

  // Rows done: checked, in a dry run; else rejected here or processed by the server. The
  // file's rows: counted once it is read to its end, estimated from what was parsed before.
  const estimate = new RowEstimate(size);
  const figures = (): Omit<ProgressFigures, 'phase'> => ({
    done: sender ? counts.rejectedLocally + sender.confirmedRows : counts.rows,
    total: counts.readAll ? counts.read : Math.max(counts.read, estimate.now(source.parsed())),
    exact: counts.readAll,
    sent: sender?.sentRows,
  });
  // Once the file is read, what is left is waiting for the jobs to end.
  let waiting = false;
  const jobsLeft = () => (tracker?.unfinished ? `waiting for ${tracker.unfinished} ${tracker.unfinished === 1 ? 'job' : 'jobs'}` : undefined);
  bar.follow(() => ({ ...figures(), phase: waiting ? jobsLeft() : undefined }));

  const handle = async (v: Validated): Promise<void> => {
    const res = v.result;
    const firstRow = counts.rows + 1;
    counts.rows += v.n;
    counts.rejectedLocally += res.invalid.length;
    counts.normalised += res.normalised;
    for (const [r, field, from, to] of res.examples) {
      if (examples.length < MAX_EXAMPLES) examples.push({ row: firstRow + r, field, from, to });
    }
    // Rejected rows: each error on screen (capped), the row once in the errors file.
    const errs = res.errors;
    for (let e = 0; e < errs.length; ) {
      const r = errs[e] as number;
      const fields: string[] = [];
      const reasons: string[] = [];
      while (e < errs.length && errs[e] === r) {
        const field = errs[e + 1] as string;
        const reason = errs[e + 2] as string;
        reporter.row(firstRow + r, field, reason);
        fields.push(field);
        reasons.push(reason);
        e += 3;
      }
      await errorsOut.write(v.rowAt(r), firstRow + r, fields, reasons);
    }
    if (!sender) return;
    const invalid = res.invalid;
    const values = res.values!;
    let inv = 0;
    let offset = 0;
    for (let r = 0; r < v.n; r++) {
      if (inv < invalid.length && invalid[inv] === r) {
        inv++;
        continue;
      }
      if (sender.add(firstRow + r, v.rowAt(r), values, offset)) await sender.flush();
      offset += F;
    }
  };

  let stopped: ImportOutcome['stopped'];
  try {
    const window: Array<Promise<Validated>> = [];
    for (;;) {
      signal.throwIfAborted();
      const next = await feed();
      if (!next) break;
      next.done.catch(() => undefined);
      window.push(next.done);
      if (window.length >= (req.dryRun ? WINDOW_DRY : WINDOW_SEND)) await handle(await window.shift()!);
    }
    while (window.length) {
      signal.throwIfAborted();
      await handle(await window.shift()!);
    }
    if (sender) {
      waiting = true;
      await sender.finish();
    }
    // Every row is done: the file is read, every batch's job has ended.
    bar.finish(figures());
  } catch (err) {
    const interrupted = signal.aborted;
    if (err instanceof InputError) {
      // The file broke off mid-way (bad quoting): nothing sent → exit 2, else exit 1 with the state kept.
      const where = err.line ? ` (near line ${err.line})` : '';
      const msg = `cannot read ${file}${where}: ${err.message}`;
      stopped = {
        interrupted: false,
        error: sender && sender.sentRows > 0 ? new CliError(msg, ExitCode.FAILURE, err.hint) : new FileUnreadable(msg, err.hint),
      };
    } else {
      stopped = { interrupted, error: interrupted ? undefined : err };
    }
  } finally {
    bar.stop();
    source.close();
    if (ctx.globals.verbose) {
      const mem = process.memoryUsage();
      ctx.io.stderr.write(
        `validated ${pool.counts.worker} chunks on the worker, ${pool.counts.inline} on the main thread; rss ${Math.round(mem.rss / 1048576)} MB, heap ${Math.round(mem.heapUsed / 1048576)} MB\n`,
      );
    }
  }

  reporter.finish(errorsOut.count ? errorsPath : undefined, (d) =>
    suggestFix(d, {
      listId: req.listId,
      type: mapping.fields.find((f) => f.name === d.field)?.type,
      column: mapping.pairs[d.field],
      defaultCountry: req.defaultCountry,
    }),
  );
  let errorsFile: string | undefined;
  if (stopped?.interrupted) {
    // Partial: a resumed run writes the whole errors file again.
    await errorsOut.discard();
  } else {
    errorsFile = await errorsOut.close();
  }

  const done = state?.doneTotals();
  const complete = !stopped;
  if (state) {
    if (complete) {
      state.data.complete = true;
      state.data.completedAt = new Date().toISOString();
      state.data.totals = { rows: counts.rows, valid: counts.rows - counts.rejectedLocally, rejectedLocally: counts.rejectedLocally };
    }
    state.release();
    await state.close();
    try {
      await state.save();
    } catch (err) {
      if (!stopped) throw err;
    }
  }

  const elapsedMs = Date.now() - started;
  const summary: ImportSummary = {
    listId: req.listId,
    file,
    format: req.format,
    dryRun: req.dryRun,
    rows: counts.rows,
    valid: counts.rows - counts.rejectedLocally,
    imported: done?.ok ?? 0,
    rejectedLocally: counts.rejectedLocally,
    rejectedByServer: done?.bad ?? 0,
    jobs: state ? state.knownJobIds().size : 0,
    failedJobs,
    normalised: { count: counts.normalised, examples },
    errorsFile: errorsFile ?? null,
    ...(errorsFile && req.keptErrorsFile ? { keptErrorsFile: req.keptErrorsFile } : {}),
    stateFile: state?.path ?? null,
    resumed,
    complete,
    interrupted: Boolean(stopped?.interrupted),
    elapsedMs,
    rowsPerSecond: elapsedMs > 0 ? Math.round((counts.rows * 1000) / elapsedMs) : 0,
  };
  return { summary, stopped };
}

/** The state file of an import: --state-file, or the default one for this server, key, list and file content. */
async function statePathFor(req: ImportRequest, ctx: Context, identity?: InputIdentity): Promise<string> {
  if (req.stateFile) return req.stateFile;
  const creds = await ctx.credentials();
  return defaultStatePath(ctx.env, {
    baseUrl: creds.baseUrl,
    apiKey: creds.apiKey ?? '',
    listId: req.listId,
    input: identity ?? (await inputIdentity(resolvePath(req.file))),
  });
}

/** Opens a fresh state, or the one to resume (settling its one unknown batch); refuses what would import twice. */
async function openState(
  req: ImportRequest,
  ctx: Context,
  options: StateOptions,
): Promise<{ state: ImportState; resumed: boolean } | { complete: StateData; path: string }> {
  const identity = await inputIdentity(resolvePath(req.file));
  const creds = await ctx.credentials();
  const target = stateTarget({ baseUrl: creds.baseUrl, apiKey: creds.apiKey ?? '' });
  let path = await statePathFor(req, ctx, identity);
  let existing: StateData | undefined;
  try {
    existing = await ImportState.read(path);
  } catch (err) {
    if (!(err instanceof StateFileError)) throw err;
    if (req.resume || !req.force) throw new UsageError(err.message, err.hint);
    // --force starts over, but a damaged state is never overwritten silently: it is kept aside, and said so.
    const aside = `${path}.broken`;
    try {
      await rename(path, aside);
    } catch (e) {
      throw new UsageError(
        `${err.message}; and it cannot be moved aside to ${aside}: ${describeError(e)}`,
        'move or remove it yourself, then run the import again',
      );
    }
    await ctx.warn(`the damaged state file ${path} was moved to ${aside}; starting a new import (--force)`);
    existing = undefined;
  }
  const api = await ctx.api();
  const sameFile = (d: StateData) => d.input.size === identity.size && d.input.head === identity.head;

  if (req.resume && !existing && !req.stateFile) {
    // Keyed by list and content: another list or changed content has a state of its own.
    // The newest unfinished one of this path says which (the checks below name it).
    const other = (await statesOfInput(ctx.env, identity.path, target)).find((s) => !s.data.complete);
    if (other) {
      existing = other.data;
      path = other.path;
    }
  }

  if (req.resume) {
    if (!existing) throw new UsageError(`nothing to resume: there is no state file ${path}`, 'run the import without --resume to start it');
    if (existing.listId !== req.listId)
      throw new UsageError(
        `the state file ${path} is for list ${existing.listId}, not ${req.listId}`,
        `resume with \`vap contacts import ${existing.listId} ${req.file} --resume\``,
      );
    if (!sameFile(existing)) {
      throw new UsageError(
        `${req.file} is not the file this import began with (its size or first bytes changed since ${existing.startedAt})`,
        'resume with the original file, or start over with --force (contacts already imported would be imported again)',
      );
    }
    const diffs = sameOptions(existing.options, options);
    if (diffs.length)
      throw new UsageError(
        `--resume with other options than the import began with: ${diffs.join('; ')}`,
        'pass the same options (the batches are cut from them)',
      );
    const owner = ImportState.runningOwner(existing);
    if (owner) throw new UsageError(`another vap (process ${owner}) is importing ${req.file} right now`, 'wait for it, or stop it first');
    if (existing.input.mtimeMs !== identity.mtimeMs || existing.input.path !== identity.path) {
      await ctx.warn(
        `${req.file} was moved or touched since the import began, but its size and first bytes are the same; resuming (every batch is checked against the state)`,
      );
    }
    if (existing.complete) return { complete: existing, path };
    const state = new ImportState(path, existing);
    state.claim();
    const s = state.sending();
    if (s) {
      const found = await findBatchJob(api, req.listId, state, s, ctx.signal);
      if (found) {
        state.sent(s.i, found.id);
        ctx.info(`batch ${s.i + 1} (rows ${s.from}–${s.to}) had reached the server as job ${found.id}`);
      } else {
        state.forget(s.i);
        ctx.info(`batch ${s.i + 1} (rows ${s.from}–${s.to}) never reached the server; it will be sent again`);
      }
    }
    await state.save();
    return { state, resumed: true };
  }

  if (existing && !req.force && existing.listId === req.listId && sameFile(existing) && (await forgottenByServer(api, existing, ctx.signal))) {
    // The server no longer has this import's jobs: it was reset, or it is an emulator
    // started again (same seed, same port, so the same list id). Nothing would be imported twice.
    ctx.info(
      `the server does not know the import jobs recorded in ${path} (was it reset or restarted?); starting a new import of ${req.file} into list ${req.listId}`,
    );
    existing = undefined;
  }
  if (existing && !req.force) {
    const owner = ImportState.runningOwner(existing);
    if (owner && !existing.complete)
      throw new UsageError(
        `another vap (process ${owner}) is importing with the state file ${path} right now`,
        'wait for it, or pass --state-file to keep another state',
      );
    const same = existing.listId === req.listId && sameFile(existing);
    if (same && existing.complete) {
      throw new UsageError(
        `${req.file} was already imported into list ${req.listId} (completed ${existing.completedAt ?? existing.updatedAt}; state file ${path})`,
        'pass --force to import it again',
      );
    }
    if (same)
      throw new UsageError(
        `an unfinished import of ${req.file} into list ${req.listId} exists (state file ${path})`,
        'continue it with --resume, or start over with --force (contacts it imported would be imported again)',
      );
    if (!existing.complete) {
      throw new UsageError(
        `the state file ${path} holds an unfinished import (of ${existing.input.path} into list ${existing.listId})`,
        'resume that one with --resume, keep both with --state-file, or discard it with --force',
      );
    }
  }
  const baseline = await listBaseline(api, req.listId, ctx.signal);
  const state = ImportState.fresh(path, { listId: req.listId, input: identity, options, baseline, target: req.stateFile ? undefined : target });
  try {
    await state.save();
  } catch (err) {
    throw new UsageError(`cannot write the state file ${path}: ${describeError(err)}`, 'pass --state-file to keep it elsewhere (or set VAP_STATE_DIR)');
  }
  return { state, resumed: false };
}

/**
 * Whether the server has lost every trace of a state's import: its first job is unknown
 * (404), or it is complete without a job (nothing was sent).
 */
async function forgottenByServer(api: ApiClient, d: StateData, signal: AbortSignal): Promise<boolean> {
  const job = d.jobs.find((j): j is string => Boolean(j)) ?? d.open.find((r) => r.job)?.job;
  if (!job) return d.complete;
  try {
    await getImportJob(api, job, signal);
    return false;
  } catch (err) {
    if (err instanceof NotFoundError) return true;
    throw err;
  }
}

function completedSummary(req: ImportRequest, d: StateData, statePath: string, started: number): ImportSummary {
  const t = d.totals ?? { rows: 0, valid: 0, rejectedLocally: 0 };
  return {
    listId: req.listId,
    file: req.file,
    format: req.format,
    dryRun: false,
    rows: t.rows,
    valid: t.valid,
    imported: d.prefix.ok + d.open.reduce((s, r) => s + (r.ok ?? 0), 0),
    rejectedLocally: t.rejectedLocally,
    rejectedByServer: d.prefix.bad + d.open.reduce((s, r) => s + (r.bad ?? 0), 0),
    jobs: d.jobs.filter(Boolean).length,
    failedJobs: [],
    normalised: { count: 0, examples: [] },
    errorsFile: null,
    stateFile: statePath,
    resumed: true,
    complete: true,
    interrupted: false,
    elapsedMs: Date.now() - started,
    rowsPerSecond: 0,
  };
}
