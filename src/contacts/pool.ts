import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { ChunkResult } from './check-chunk.js';
import { extractValues, packedValues, packRows, unpackRow } from './rows.js';
import type { TaskRunner, TaskSpec } from './task.js';
import type { WorkerReply, WorkerTask } from './validate-worker.js';

/**
 * Validation of chunks of rows, on a worker thread for a large file. Split by stage (the main
 * thread parses, the worker validates) so each library is compiled in one thread only (the
 * designs measured: src/contacts/README.md). A worker that dies has its chunks redone here.
 */

/** Below this file size a worker's start-up (tens of milliseconds) is not worth it. */
export const THREAD_MIN_BYTES = 2 * 1024 * 1024;

/** A validated chunk: its row count, the checker's result, and its raw rows by index. */
export interface Validated {
  n: number;
  result: ChunkResult;
  rowAt(r: number): unknown;
}

interface Pending {
  resolve: (v: Validated) => void;
  reject: (e: Error) => void;
  /** Redoes the task here (the worker died). */
  redo: (run: TaskRunner) => Validated;
  /** The result from the worker's reply. */
  finish: (reply: WorkerReply) => Validated;
}

export class ValidationPool {
  private spec!: TaskSpec;
  /** The validators on this thread, loaded the first time they are needed here. */
  private local: Promise<TaskRunner> | undefined;
  private worker: Worker | undefined;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  /** Chunks done on each side (for --verbose and the benchmark). */
  readonly counts = { worker: 0, inline: 0 };
  /** Whether the worker is the one bin/vap.js started at launch. */
  startedAtLaunch = false;

  private constructor() {}

  /**
   * Starts the worker at once, before the work is known, so that its start-up (a
   * thread, the modules, the phone metadata) overlaps the main thread's own (the API
   * call for the schema, the header). init() then says what to do.
   */
  static async spawn(opts: { threads: boolean }): Promise<ValidationPool> {
    const pool = new ValidationPool();
    // bin/vap.js may have started the worker already, before the CLI loaded.
    const early = takeEarlyWorker();
    if (opts.threads && availableParallelism() > 1) {
      const { workerUrl, WORKER_KIND, WORKER_LIMITS } = await import('./validate-worker.js');
      let worker: Worker | undefined;
      if (early && !early.failed) {
        worker = early.worker;
        worker.ref();
        pool.startedAtLaunch = true;
      } else if (workerUrl.endsWith('.js') || workerUrl.endsWith('.mjs')) {
        // Under the TypeScript sources (tests) there is no loader for a .ts worker: work inline.
        const { Worker } = await import('node:worker_threads');
        worker = new Worker(new URL(workerUrl), { workerData: { kind: WORKER_KIND }, resourceLimits: WORKER_LIMITS });
      }
      if (worker) {
        worker.on('message', (m: WorkerReply) => pool.onReply(m));
        worker.on('error', () => pool.onWorkerLost());
        worker.on('exit', () => pool.onWorkerLost());
        pool.worker = worker;
      }
    }
    if (early && early.worker !== pool.worker) void early.worker.terminate();
    return pool;
  }

  init(spec: TaskSpec): void {
    this.spec = spec;
    this.worker?.postMessage({ id: 0, kind: 'init', spec } satisfies WorkerTask);
  }

  get threaded(): boolean {
    return this.worker !== undefined;
  }

  private runner(): Promise<TaskRunner> {
    this.local ??= import('./task.js').then(({ taskRunner }) => taskRunner(this.spec));
    return this.local;
  }

  /**
   * Validates a chunk of rows already read: on the worker if there is one (a CSV chunk
   * is then kept packed, see PackedRows). The caller bounds how many are in flight.
   */
  submitRows(rows: unknown[]): Promise<Validated> {
    const worker = this.worker;
    if (!worker) {
      this.counts.inline++;
      return this.runner().then((run) => ({ n: rows.length, result: run.rows(rows), rowAt: (r: number) => rows[r] }));
    }
    const n = rows.length;
    let task: WorkerTask;
    let rowAt: (r: number) => unknown;
    let redo: (run: TaskRunner) => Validated;
    if (this.spec.extract.format === 'csv') {
      const packed = packRows(rows as string[][]);
      rowAt = (r) => unpackRow(packed, r);
      task = { id: this.nextId++, kind: 'packed', rows: packed };
      redo = (run) => {
        const { values, rowErrors } = packedValues(this.spec.extract, packed);
        return { n, result: run.values(n, values, rowErrors), rowAt };
      };
    } else {
      const { values, rowErrors } = extractValues(this.spec.extract, rows);
      task = { id: this.nextId++, kind: 'values', n, values, rowErrors: rowErrors.length ? rowErrors : undefined };
      rowAt = (r) => rows[r];
      redo = (run) => ({ n, result: run.values(n, values, rowErrors), rowAt });
    }
    const finish = (reply: WorkerReply): Validated => ({ n, result: reply.result!, rowAt });
    return new Promise<Validated>((resolve, reject) => {
      this.pending.set(task.id, { resolve, reject, redo, finish });
      worker.postMessage(task);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private onReply(m: WorkerReply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    this.counts.worker++;
    if (m.error !== undefined) p.reject(new Error(`validation worker: ${m.error}`));
    else p.resolve(p.finish(m));
  }

  /** The worker died: what it held is done here, and so is everything after. */
  private onWorkerLost(): void {
    const w = this.worker;
    if (!w) return;
    this.worker = undefined;
    void w.terminate().catch(() => undefined);
    const held = [...this.pending.values()];
    this.pending.clear();
    this.counts.inline += held.length;
    // In order: the runner is loaded once, then each chunk is redone.
    void this.runner().then(
      (run) => {
        for (const p of held) {
          try {
            p.resolve(p.redo(run));
          } catch (err) {
            p.reject(err as Error);
          }
        }
      },
      (err: Error) => held.forEach((p) => p.reject(err)),
    );
  }
}

/** A worker bin/vap.js started at launch (see there), taken once. */
function takeEarlyWorker(): { worker: Worker; failed: boolean } | undefined {
  const g = globalThis as { __vapImportWorker?: { worker: Worker; failed: boolean } };
  const early = g.__vapImportWorker;
  delete g.__vapImportWorker;
  return early;
}
