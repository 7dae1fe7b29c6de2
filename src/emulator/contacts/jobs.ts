import { validateRecord } from '../../spec/contact-validate.js';
import type { ModuleEnv } from '../types.js';
import { FileFetcher, FileImportError } from './file-fetch.js';
import type { Collection } from '../store.js';
import {
  contactsCollection,
  jobErrorsCollection,
  isActive,
  isPlainObject,
  JOB_ROWS,
  JOBS,
  LIMITS,
  LISTS,
  serverMessage,
  TIMING,
  type JobError,
  type JobSource,
  type StoredContact,
  type StoredJob,
  type StoredList,
} from './model.js';

/**
 * Import jobs in simulated time: pending, then processing in chunks (a timer per chunk, so a large
 * job never holds the event loop), then completed or failed. The job's record is the cursor, so
 * a restarted emulator resumes each job (src/emulator/README.md).
 */
export class ImportJobRunner {
  private readonly timers = new Map<string, () => void>();
  private readonly fetches = new Map<string, AbortController>();
  /** Parsed rows of file jobs (not persisted: a restart fetches the file again). */
  private readonly fileRows = new Map<string, unknown[]>();
  private readonly fetcher: FileFetcher;
  private closed = false;

  constructor(private readonly env: ModuleEnv) {
    this.fetcher = new FileFetcher(env.options.allowLoopbackUrls, {
      maxBytes: LIMITS.fileBytes,
      maxRows: LIMITS.fileRows,
      timeoutMs: LIMITS.fileTimeoutMs,
      maxRedirects: LIMITS.fileRedirects,
    });
  }

  /** The organization's jobs in creation order; the listing's facets: status and list. */
  jobs(orgId: string): Collection<StoredJob> {
    return this.env.store.collection<StoredJob>(orgId, JOBS);
  }

  private errorChunks(orgId: string, jobId: string): Collection<JobError[]> {
    return this.env.store.collection<JobError[]>(orgId, jobErrorsCollection(jobId));
  }

  /** The job's row errors, in row order. */
  errorsOf(orgId: string, job: StoredJob): JobError[] {
    const chunks = this.env.store.existing<JobError[]>(orgId, jobErrorsCollection(job.id));
    if (!chunks || chunks.size === 0) return job.errors ?? [];
    const out: JobError[] = [...(job.errors ?? [])];
    for (const c of chunks.values()) for (const e of c) out.push(e);
    return out;
  }

  /** Creates a pending job and schedules it. `rows` are the request's contacts (none for a file). */
  create(orgId: string, listId: string, source: JobSource, rows?: unknown[]): StoredJob {
    const now = this.env.clock.iso();
    const id = this.env.ids.next('job');
    const total = rows?.length ?? 0;
    const job: StoredJob = {
      id,
      contactListId: listId,
      status: 'pending',
      progress: { total, processed: 0, successful: 0, failed: 0 },
      errorsKept: 0,
      errorsTruncated: false,
      source,
      message: source.type === 'file' ? `waiting to fetch ${source.fileFormat.toUpperCase()} file` : `waiting to start: ${total} contacts`,
      createdAt: now,
      updatedAt: now,
      startedAt: null,
      finishedAt: null,
    };
    this.jobs(orgId).set(id, job);
    if (rows) this.env.store.collection<unknown[]>(orgId, JOB_ROWS).set(id, rows);
    this.schedule(orgId, id, TIMING.pendingMs);
    return job;
  }

  /** Cancels a pending or processing job (the caller checked the status). Rows already stored stay. */
  cancel(orgId: string, job: StoredJob): void {
    this.stop(orgId, job.id);
    const p = job.progress;
    this.finish(
      orgId,
      job,
      'cancelled',
      `cancelled by the user after ${p.processed} of ${p.total} rows (${p.successful} contacts imported, which stay in the list)`,
    );
  }

  /** Deletes finished jobs past their retention (30 days of simulated time after they finished). */
  sweep(orgId: string): void {
    const jobs = this.jobs(orgId);
    const now = this.env.clock.nowMs();
    for (const [id, j] of jobs) {
      if (j.finishedAt && Date.parse(j.finishedAt) + TIMING.retentionMs <= now) {
        jobs.delete(id);
        this.env.store.existing(orgId, jobErrorsCollection(id))?.clear();
      }
    }
  }

  /** Reschedules every job left pending or processing by a previous run (persisted state). */
  resumeAll(): void {
    for (const [orgId, jobs] of this.env.store.allCollections<StoredJob>(JOBS)) {
      for (const j of jobs.values()) {
        if (isActive(j.status)) this.schedule(orgId, j.id, j.status === 'pending' ? TIMING.pendingMs : 0);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    for (const c of this.fetches.values()) c.abort();
    this.fetches.clear();
    await this.fetcher.close();
  }

  private key(orgId: string, jobId: string) {
    return `${orgId}/${jobId}`;
  }

  private schedule(orgId: string, jobId: string, simMs: number): void {
    if (this.closed) return;
    const k = this.key(orgId, jobId);
    this.timers.get(k)?.();
    this.timers.set(
      k,
      this.env.clock.after(simMs, () => {
        this.timers.delete(k);
        try {
          this.step(orgId, jobId);
        } catch (err) {
          // A bug must not leave a job spinning: fail it with the reason.
          const job = this.jobs(orgId).get(jobId);
          if (job && isActive(job.status)) this.finish(orgId, job, 'failed', `internal error while importing: ${(err as Error).message}`);
        }
      }),
    );
  }

  private stop(orgId: string, jobId: string): void {
    const k = this.key(orgId, jobId);
    this.timers.get(k)?.();
    this.timers.delete(k);
    this.fetches.get(k)?.abort();
    this.fetches.delete(k);
  }

  private touch(orgId: string, job: StoredJob): void {
    job.updatedAt = this.env.clock.iso();
    this.jobs(orgId).touch(job.id);
  }

  private finish(orgId: string, job: StoredJob, status: 'completed' | 'failed' | 'cancelled', message: string): void {
    job.status = status;
    job.message = message;
    job.finishedAt = this.env.clock.iso();
    this.touch(orgId, job);
    this.env.store.collection<unknown[]>(orgId, JOB_ROWS).delete(job.id);
    this.fileRows.delete(this.key(orgId, job.id));
  }

  private step(orgId: string, jobId: string): void {
    if (this.closed) return;
    const job = this.jobs(orgId).get(jobId);
    if (!job || !isActive(job.status)) return;
    if (job.status === 'pending') {
      job.status = 'processing';
      job.startedAt = this.env.clock.iso();
      job.message = job.source.type === 'file' ? 'fetching the file' : 'processing';
      this.touch(orgId, job);
    }
    const rows = this.rowsOf(orgId, job);
    if (!rows) {
      if (job.source.type === 'file') this.startFetch(orgId, job, job.source);
      else this.finish(orgId, job, 'failed', 'the rows of this import were lost');
      return;
    }
    this.processChunk(orgId, job, rows);
  }

  private rowsOf(orgId: string, job: StoredJob): unknown[] | undefined {
    if (job.source.type === 'file') return this.fileRows.get(this.key(orgId, job.id));
    return this.env.store.collection<unknown[]>(orgId, JOB_ROWS).get(job.id);
  }

  private startFetch(orgId: string, job: StoredJob, source: Extract<JobSource, { type: 'file' }>): void {
    const k = this.key(orgId, job.id);
    if (this.fetches.has(k)) return;
    const ctl = new AbortController();
    this.fetches.set(k, ctl);
    this.fetcher.fetchRows(source.fileUrl, source.fileFormat, ctl.signal).then(
      (rows) => {
        if (this.fetches.get(k) !== ctl) return;
        this.fetches.delete(k);
        const current = this.jobs(orgId).get(job.id);
        if (this.closed || !current || current.status !== 'processing') return;
        this.fileRows.set(k, rows);
        // A resumed job continues at `processed`; the file may have changed since.
        current.progress.total = Math.max(rows.length, current.progress.processed);
        current.message = 'processing';
        this.touch(orgId, current);
        this.schedule(orgId, current.id, 0);
      },
      (err: unknown) => {
        if (this.fetches.get(k) !== ctl) return;
        this.fetches.delete(k);
        const current = this.jobs(orgId).get(job.id);
        if (this.closed || ctl.signal.aborted || !current || current.status !== 'processing') return;
        const reason = err instanceof FileImportError ? err.message : `could not fetch the file: ${(err as Error).message}`;
        this.finish(orgId, current, 'failed', reason);
      },
    );
  }

  private processChunk(orgId: string, job: StoredJob, rows: unknown[]): void {
    const list = this.env.store.collection<StoredList>(orgId, LISTS).get(job.contactListId);
    if (!list) {
      this.finish(orgId, job, 'failed', `contact list ${job.contactListId} no longer exists`);
      return;
    }
    const contacts = this.env.store.collection<StoredContact>(orgId, contactsCollection(list.id));
    const p = job.progress;
    const first = p.processed;
    const end = Math.min(p.processed + TIMING.chunkRows, rows.length);
    const now = this.env.clock.iso();
    const errors: JobError[] = [];
    const addError = (e: JobError) => {
      if ((job.errorsKept ?? job.errors?.length ?? 0) < LIMITS.jobErrors) {
        errors.push(e);
        job.errorsKept = (job.errorsKept ?? job.errors?.length ?? 0) + 1;
      } else job.errorsTruncated = true;
    };
    for (let i = p.processed; i < end; i++) {
      const row = rows[i];
      const rowNo = i + 1;
      if (!isPlainObject(row)) {
        addError({
          row: rowNo,
          field: '(row)',
          message: `expected an object of field values, got ${row === null ? 'null' : Array.isArray(row) ? 'an array' : typeof row}`,
        });
        p.failed++;
        continue;
      }
      const res = validateRecord(list.schema, row);
      if (res.ok) {
        const id = this.env.ids.next('ct');
        contacts.set(id, { id, data: res.value, createdAt: now, updatedAt: now });
        p.successful++;
      } else {
        for (const e of res.errors) addError({ row: rowNo, field: e.field, message: serverMessage(e.message) });
        p.failed++;
      }
    }
    // The chunk's errors and its contacts are journaled with the job's progress, in one batch.
    if (errors.length > 0) this.errorChunks(orgId, job.id).set(String(first + 1), errors);
    p.processed = p.successful + p.failed;
    if (p.total < rows.length) p.total = rows.length;
    this.touch(orgId, job);
    if (p.processed >= rows.length) {
      const failed = p.failed ? `; ${p.failed} row${p.failed === 1 ? '' : 's'} failed validation` : '';
      this.finish(orgId, job, 'completed', `imported ${p.successful} of ${p.total} rows${failed}`);
      return;
    }
    job.message = `processing: ${p.processed} of ${p.total} rows`;
    this.schedule(orgId, job.id, TIMING.chunkMs);
  }
}
