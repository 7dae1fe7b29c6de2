import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiClient } from '../api/client.js';
import { FINISHED_STATUSES, getImportJob, importContacts, listImportJobsPage, type ImportJob } from '../api/contacts.js';
import { ApiError, ConnectionError } from '../api/errors.js';
import { CliError, UsageError } from '../errors.js';
import { contactOf } from './rows.js';
import type { BatchRecord, ImportState } from './state.js';
import type { SchemaField } from '../spec/contact-validate.js';

/**
 * Sending batches as import jobs, one POST at a time, so at most one batch is ever sent without
 * a known job and its fate can be proven from the list's jobs: a POST is never retried blindly
 * (the proof: src/contacts/README.md).
 */

/** A batch being filled, sent, or followed: its rows and their file row numbers. */
export interface Batch {
  i: number;
  rowNos: number[];
  raws: unknown[];
  /** Per row: the chunk's normalised values and the row's offset in them. */
  values: unknown[][];
  offsets: number[];
}

export interface JobOutcome {
  batch: Batch;
  job: ImportJob;
  /** Counted already (a batch finished in an earlier run, replayed for the report). */
  replay: boolean;
}

const POLL_MIN_MS = 25;
const POLL_MAX_MS = 2000;
/** Sends of one batch (each after proving the previous one never arrived). */
const MAX_SENDS = 3;

/** Follows unfinished jobs, polling each until it ends. */
export class JobTracker {
  private readonly jobs = new Map<string, Batch>();
  /** Per unfinished job, its rows processed at the last poll. */
  private readonly processed = new Map<string, number>();
  /** Rows of the jobs that ended while this run followed them. */
  private finishedRows = 0;
  private waiters: Array<() => void> = [];
  private failure: Error | undefined;
  private running = false;
  private kick: (() => void) | undefined;

  constructor(
    private readonly api: ApiClient,
    private readonly signal: AbortSignal,
    private readonly onDone: (o: JobOutcome) => Promise<void>,
    private readonly onSeen: (job: ImportJob) => void,
  ) {
    signal.addEventListener('abort', () => this.wake(), { once: true });
  }

  get unfinished(): number {
    return this.jobs.size;
  }

  /** Rows the server has processed in the jobs this run followed: all of those that ended, and what each other said at its last poll. */
  get processedRows(): number {
    let n = this.finishedRows;
    for (const p of this.processed.values()) n += p;
    return n;
  }

  track(jobId: string, batch: Batch): void {
    this.jobs.set(jobId, batch);
    if (!this.running) void this.loop();
    else this.kick?.();
  }

  /** Waits until fewer than `limit` jobs are unfinished. */
  async waitBelow(limit: number): Promise<void> {
    while (this.jobs.size >= limit) {
      if (this.failure) throw this.failure;
      this.signal.throwIfAborted();
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    if (this.failure) throw this.failure;
  }

  drain(): Promise<void> {
    return this.waitBelow(1);
  }

  /** Fetches a job that finished in an earlier run, to report its rejected rows again. False when it is gone (retention). */
  async replay(jobId: string, batch: Batch): Promise<boolean> {
    let job: ImportJob;
    try {
      job = await getImportJob(this.api, jobId, this.signal);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return false;
      throw err;
    }
    await this.onDone({ batch, job, replay: true });
    return true;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private async loop(): Promise<void> {
    this.running = true;
    let interval = POLL_MIN_MS;
    try {
      while (this.jobs.size > 0 && !this.signal.aborted) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, interval);
          this.kick = () => {
            clearTimeout(t);
            resolve();
          };
        });
        this.kick = undefined;
        let finished = false;
        for (const [jobId, batch] of [...this.jobs]) {
          if (this.signal.aborted) return;
          const job = await getImportJob(this.api, jobId, this.signal);
          this.onSeen(job);
          if (!FINISHED_STATUSES.has(job.status)) {
            this.processed.set(jobId, Math.max(0, Math.min(batch.rowNos.length, job.progress?.processed ?? 0)));
            continue;
          }
          this.jobs.delete(jobId);
          this.processed.delete(jobId);
          // A job that ended has settled every row of its batch: imported, rejected, or reported as not imported.
          this.finishedRows += batch.rowNos.length;
          finished = true;
          await this.onDone({ batch, job, replay: false });
          this.wake();
        }
        interval = finished ? POLL_MIN_MS : Math.min(POLL_MAX_MS, Math.round(interval * 1.5));
      }
    } catch (err) {
      if (!this.signal.aborted) this.failure = err as Error;
    } finally {
      this.running = false;
      this.kick = undefined;
      this.wake();
    }
  }
}

/** A 4xx other than 408 means the request was refused and created nothing (429 too, once the client's own retries ran out). */
function refused(err: unknown): err is ApiError {
  return err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 408;
}

/** No answer, a 5xx or a 408: the job may or may not have been created. */
function fateUnknown(err: unknown): boolean {
  return err instanceof ConnectionError || (err instanceof ApiError && (err.status >= 500 || err.status === 408));
}

export function describeError(err: unknown): string {
  if (err instanceof ApiError) return `${err.message} (HTTP ${err.status}${err.requestId ? `, request id ${err.requestId}` : ''})`;
  return (err as Error)?.message ?? String(err);
}

/** The jobs the import began with: the newest job of the list (server clock) and the ids created at that instant. */
export async function listBaseline(api: ApiClient, listId: string, signal: AbortSignal): Promise<{ createdAt: string | null; ids: string[] }> {
  // The listing is newest first (as the emulator documents): the first page holds the newest.
  const res = await listImportJobsPage(api, { page: 1, pageSize: 100, contactListId: listId }, signal);
  let newest: number | undefined;
  let ids: string[] = [];
  for (const j of res.items) {
    const t = Date.parse(j.createdAt);
    if (newest === undefined || t > newest) {
      newest = t;
      ids = [j.id];
    } else if (t === newest) ids.push(j.id);
  }
  return { createdAt: newest === undefined ? null : new Date(newest).toISOString(), ids };
}

/**
 * Looks for the job a batch became, among the list's jobs unknown to the state and
 * created after the newest job it knows. Returns the job, or undefined when there
 * is provably none; throws when two jobs could be it.
 */
export async function findBatchJob(api: ApiClient, listId: string, state: ImportState, rec: BatchRecord, signal: AbortSignal): Promise<ImportJob | undefined> {
  const known = state.knownJobIds();
  const baseIds = new Set(state.data.baseline.ids);
  const bounds = [state.data.baseline.createdAt, state.data.lastCreatedAt].filter((x): x is string => Boolean(x)).map((x) => Date.parse(x));
  const bound = bounds.length ? Math.max(...bounds) : undefined;
  const matches: ImportJob[] = [];
  for (let page = 1; ; page++) {
    const res = await listImportJobsPage(api, { page, pageSize: 100, contactListId: listId }, signal);
    for (const j of res.items) {
      if (known.has(j.id) || baseIds.has(j.id)) continue;
      if (bound !== undefined && Date.parse(j.createdAt) < bound) continue;
      if (j.progress?.total === rec.n) matches.push(j);
    }
    if (!res.hasMore || res.items.length === 0) break;
    // Newest first: once a whole page is older than the bound, nothing further can match.
    if (bound !== undefined && res.items.every((j) => Date.parse(j.createdAt) < bound)) break;
  }
  if (matches.length > 1) {
    throw new CliError(
      `cannot tell whether batch ${rec.i + 1} (rows ${rec.from}–${rec.to}, ${rec.n} contacts) reached the server: jobs ${matches.map((j) => j.id).join(', ')} all could be it (another import into list ${listId} ran at the same time?)`,
      1,
      `check them with \`vap import-jobs get <jobId>\`; the state file was left as it is`,
    );
  }
  return matches[0];
}

export interface SenderDeps {
  api: ApiClient;
  listId: string;
  state: ImportState;
  fields: SchemaField[];
  batchSize: number;
  concurrency: number;
  signal: AbortSignal;
  tracker: JobTracker;
  warn: (line: string) => void;
}

export class BatchSender {
  private cur: Batch;
  /** Rows in batches sent (or known to have been sent, when resumed). */
  sentRows = 0;
  /** Rows of batches that an earlier run saw finished (resumed). */
  private earlierRows = 0;

  constructor(private readonly d: SenderDeps) {
    this.cur = emptyBatch(0);
  }

  /** Adds a valid row; true when the batch is full (then call flush). */
  add(rowNo: number, raw: unknown, values: unknown[], offset: number): boolean {
    const b = this.cur;
    b.rowNos.push(rowNo);
    b.raws.push(raw);
    b.values.push(values);
    b.offsets.push(offset);
    return b.rowNos.length >= this.d.batchSize;
  }

  /** Rows the server has processed: in the jobs followed now, and in batches an earlier run saw finished. */
  get confirmedRows(): number {
    return this.earlierRows + this.d.tracker.processedRows;
  }

  /** Sends the current batch, or skips it when an earlier run already did. */
  async flush(): Promise<void> {
    const batch = this.cur;
    if (batch.rowNos.length === 0) return;
    const { state } = this.d;
    const rec = state.record(batch.i);
    const from = batch.rowNos[0]!;
    const to = batch.rowNos[batch.rowNos.length - 1]!;
    const n = batch.rowNos.length;
    if (rec === 'done') {
      if (batch.i === state.data.prefix.batches - 1 && to !== state.data.prefix.to)
        this.cutChanged(batch.i, `ended at row ${state.data.prefix.to}`, `ends at row ${to}`);
      this.cur = emptyBatch(batch.i + 1);
      this.sentRows += n;
      this.earlierRows += n;
      const withErrors = state.data.withErrors.find(([i]) => i === batch.i);
      if (withErrors) await this.replay(withErrors[1], batch, withErrors[2]);
      return;
    }
    if (rec) {
      if (rec.from !== from || rec.to !== to || rec.n !== n)
        this.cutChanged(batch.i, `was rows ${rec.from}–${rec.to} (${rec.n})`, `is rows ${from}–${to} (${n})`);
      this.cur = emptyBatch(batch.i + 1);
      this.sentRows += n;
      if (rec.st === 'done') {
        this.earlierRows += n;
        if ((rec.bad ?? 0) > 0 && rec.job) await this.replay(rec.job, batch, rec.bad!);
        return;
      }
      if (rec.st === 'sent' && rec.job) {
        this.d.tracker.track(rec.job, batch);
        return;
      }
      // 'sending' is settled before reading; if one is still here, settle it now.
      const found = await findBatchJob(this.d.api, this.d.listId, state, rec, this.d.signal);
      if (found) {
        state.sent(rec.i, found.id);
        this.d.tracker.track(found.id, batch);
        return;
      }
      state.forget(rec.i);
      this.sentRows -= n;
    }
    await this.send(batch, from, to);
    this.cur = emptyBatch(batch.i + 1);
  }

  /** Sends the last, partial batch and waits for every job to end. */
  async finish(): Promise<void> {
    await this.flush();
    await this.d.tracker.drain();
  }

  private async replay(jobId: string, batch: Batch, rejected: number): Promise<void> {
    if (!(await this.d.tracker.replay(jobId, batch))) {
      this.d.warn(
        `job ${jobId} (rows ${batch.rowNos[0]}–${batch.rowNos[batch.rowNos.length - 1]}) is no longer kept by the server: its ${rejected} rejected rows cannot be listed again`,
      );
    }
  }

  private cutChanged(i: number, before: string, now: string): never {
    throw new UsageError(
      `batch ${i + 1} ${before} when the import began, but now ${now}: the file, or how its rows validate, changed`,
      'resume with the same file and options, or start over with --force (contacts already imported would be imported again)',
    );
  }

  private async send(batch: Batch, from: number, to: number): Promise<void> {
    const { api, listId, state, tracker, signal } = this.d;
    await tracker.waitBelow(this.d.concurrency);
    signal.throwIfAborted();
    const contacts = batch.values.map((v, k) => contactOf(this.d.fields, v, batch.offsets[k]!));
    // The normalised values are in `contacts` now; only the raw rows stay (for rows the server rejects).
    batch.values = [];
    batch.offsets = [];
    const rec = state.beginSend({ i: batch.i, from, to, n: contacts.length });
    await state.save();
    for (let attempt = 1; ; attempt++) {
      try {
        // No abort signal: a POST under way when Ctrl-C comes is let finish and recorded.
        const accepted = await importContacts(api, listId, contacts);
        state.sent(batch.i, accepted.jobId);
        break;
      } catch (err) {
        if (refused(err) || !fateUnknown(err)) {
          state.forget(batch.i);
          await state.save();
          throw err;
        }
        this.d.warn(`batch ${batch.i + 1} (rows ${from}–${to}): ${describeError(err)}; checking whether it reached the server`);
        // A dropped connection may still be worked on: give the server a moment first.
        if (err instanceof ConnectionError) await sleep(1000 * attempt, undefined, { signal });
        const found = await findBatchJob(api, listId, state, rec, signal);
        if (found) {
          this.d.warn(`batch ${batch.i + 1} did reach the server as job ${found.id}`);
          state.sent(batch.i, found.id);
          break;
        }
        if (attempt >= MAX_SENDS) {
          state.forget(batch.i);
          await state.save();
          throw err;
        }
        this.d.warn(`batch ${batch.i + 1} never reached the server; sending it again`);
        rec.at = new Date().toISOString();
        await state.save();
      }
    }
    this.sentRows += contacts.length;
    tracker.track(state.data.jobs[batch.i]!, batch);
  }
}

export function emptyBatch(i: number): Batch {
  return { i, rowNos: [], raws: [], values: [], offsets: [] };
}
