import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { ChunkResult } from './check-chunk.js';
import type { CsvChunk } from './csv-chunks.js';
import { EncodedRow } from './csv-write.js';
import { InputError } from './source.js';
import { extractValues, packValues, taskRunner, type TaskOutput, type TaskRunner, type TaskSpec } from './task.js';
import type { WorkerReply, WorkerTask } from './validate-worker.js';

/**
 * Runs chunk tasks (parse a CSV slice and validate it, or validate rows already
 * read) on a worker thread, or on the main thread itself when the worker already
 * has enough queued, when the file is small, or when no worker can be started
 * (tests run the TypeScript sources). With one worker and the main thread both
 * taking chunks, the two cores share the work. Results are the same either way.
 */

/** Chunks the worker may hold before the main thread takes the next one itself. */
const WORKER_QUEUE = 2;

/** Below this file size a worker's start-up (tens of milliseconds) is not worth it. */
export const THREAD_MIN_BYTES = 2 * 1024 * 1024;

/** A validated chunk: its row count, the checker's result, and its raw rows by index. */
export interface Validated {
  n: number;
  result: ChunkResult;
  /** Raw row r (a rejected row always; any row unless it was a dry run of a CSV slice). */
  rowAt(r: number): unknown;
}

interface Pending {
  resolve: (v: Validated) => void;
  reject: (e: Error) => void;
  /** Redoes the task here if the worker dies. */
  redo: () => Validated;
  finish: (reply: WorkerReply) => Validated;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
}

function fromRows(rows: unknown[], result: ChunkResult): Validated {
  return { n: rows.length, result, rowAt: (r) => rows[r] };
}

function fromOutput(out: TaskOutput): Validated {
  if (out.rowsAre === 'all') return { n: out.n, result: out.result, rowAt: (r) => new EncodedRow(out.rows[r]!) };
  const byRow = new Map<number, string>();
  out.result.invalid.forEach((r, k) => byRow.set(r, out.rows[k]!));
  return { n: out.n, result: out.result, rowAt: (r) => new EncodedRow(byRow.get(r) ?? '') };
}

export class ValidationPool {
  private run!: TaskRunner;
  private spec!: TaskSpec;
  private threads: Thread[] = [];
  private nextId = 1;
  /** Chunks done on each side (for --verbose and the benchmark). */
  readonly counts = { worker: 0, inline: 0 };

  private constructor() {}

  /**
   * Starts the worker(s) at once, before the work is known, so that their start-up
   * (a thread, the modules, the phone metadata) overlaps the main thread's own
   * (the API call for the schema, the header). init() then says what to do.
   */
  static async spawn(opts: { threads: boolean; workers?: number }): Promise<ValidationPool> {
    const pool = new ValidationPool();
    if (opts.threads && availableParallelism() > 1) {
      const { workerUrl, WORKER_KIND } = await import('./validate-worker.js');
      // Under the TypeScript sources (tests) there is no loader for a .ts worker: work inline.
      if (workerUrl.endsWith('.js') || workerUrl.endsWith('.mjs')) {
        const { Worker } = await import('node:worker_threads');
        for (let k = 0; k < (opts.workers ?? 1); k++) {
          const worker = new Worker(new URL(workerUrl), { workerData: { kind: WORKER_KIND } });
          const t: Thread = { worker, pending: new Map() };
          worker.on('message', (m: WorkerReply) => pool.onReply(t, m));
          worker.on('error', () => pool.onWorkerLost(t));
          worker.on('exit', () => pool.onWorkerLost(t));
          pool.threads.push(t);
        }
      }
    }
    return pool;
  }

  init(spec: TaskSpec): void {
    this.spec = spec;
    this.run = taskRunner(spec);
    for (const t of this.threads) t.worker.postMessage({ id: 0, kind: 'init', spec } satisfies WorkerTask);
  }

  get threaded(): boolean {
    return this.threads.length > 0;
  }

  /** Validates rows already read (the streaming CSV reader, JSON). */
  submitRows(rows: unknown[]): Promise<Validated> {
    const t = this.freeThread();
    const redo = () => fromRows(rows, this.run.rows(rows));
    if (!t) return this.inline(redo);
    let task: WorkerTask;
    let transfer: ArrayBuffer[] = [];
    if (this.spec.extract.format === 'csv') {
      const p = packValues(this.spec.extract, rows);
      task = { id: this.nextId++, kind: 'packed', n: rows.length, text: p.text, lengths: p.lengths, rowErrors: p.rowErrors.length ? p.rowErrors : undefined };
      transfer = [p.lengths.buffer as ArrayBuffer];
    } else {
      const { values, rowErrors } = extractValues(this.spec.extract, rows);
      task = { id: this.nextId++, kind: 'values', n: rows.length, values, rowErrors: rowErrors.length ? rowErrors : undefined };
    }
    return this.post(t, task, transfer, redo, (reply) => fromRows(rows, reply.result!));
  }

  /** Parses and validates a CSV slice. */
  submitCsv(chunk: CsvChunk): Promise<Validated> {
    const t = this.freeThread();
    const redo = () => fromOutput(this.run.csv(chunk.bytes, chunk.startLine));
    if (!t) return this.inline(redo);
    // The worker gets the bytes without a copy; the main thread can still redo the task from a copy kept only in that case.
    const copy = chunk.bytes.slice();
    const task: WorkerTask = { id: this.nextId++, kind: 'csv', bytes: chunk.bytes, startLine: chunk.startLine };
    return this.post(t, task, [chunk.bytes.buffer as ArrayBuffer], () => fromOutput(this.run.csv(copy, chunk.startLine)), (reply) => fromOutput(reply.output!));
  }

  async close(): Promise<void> {
    const all = this.threads;
    this.threads = [];
    await Promise.all(all.map((t) => t.worker.terminate()));
  }

  private freeThread(): Thread | undefined {
    let t: Thread | undefined;
    for (const x of this.threads) if (!t || x.pending.size < t.pending.size) t = x;
    return t && t.pending.size < WORKER_QUEUE ? t : undefined;
  }

  private inline(work: () => Validated): Promise<Validated> {
    this.counts.inline++;
    try {
      return Promise.resolve(work());
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  private post(t: Thread, task: WorkerTask, transfer: ArrayBuffer[], redo: () => Validated, finish: (reply: WorkerReply) => Validated): Promise<Validated> {
    return new Promise<Validated>((resolve, reject) => {
      t.pending.set(task.id, { resolve, reject, redo, finish });
      t.worker.postMessage(task, transfer);
    });
  }

  private onReply(t: Thread, m: WorkerReply): void {
    const p = t.pending.get(m.id);
    if (!p) return;
    t.pending.delete(m.id);
    this.counts.worker++;
    if (m.inputError) p.reject(new InputError(m.inputError.message, m.inputError.line));
    else if (m.error !== undefined) p.reject(new Error(`validation worker: ${m.error}`));
    else p.resolve(p.finish(m));
  }

  /** A worker died: what it held is done here, and it gets no more. */
  private onWorkerLost(t: Thread): void {
    if (!this.threads.includes(t)) return;
    this.threads = this.threads.filter((x) => x !== t);
    void t.worker.terminate().catch(() => undefined);
    const held = [...t.pending.values()];
    t.pending.clear();
    for (const p of held) {
      this.counts.inline++;
      try {
        p.resolve(p.redo());
      } catch (err) {
        p.reject(err as Error);
      }
    }
  }
}
