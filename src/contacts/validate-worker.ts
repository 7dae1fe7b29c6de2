import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { ChunkResult } from './check-chunk.js';
import { packedValues, type PackedRows } from './rows.js';
import type { TaskRunner, TaskSpec } from './task.js';

/**
 * The validation worker. This module is a chunk of its own in the bundle (only imported
 * dynamically), so one file is both where the main thread learns the worker's URL and what the
 * worker runs; it imports the validators only in the worker, sparing the main thread.
 */

export const WORKER_KIND = 'vap-contacts-validate';

/**
 * A small young generation: the worker's objects die within a chunk, so it costs nothing and
 * keeps peak memory flat (docs/performance.md). bin/vap.js passes the same (a test checks).
 */
export const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };

/** The URL of this module (a .js chunk when bundled, the .ts source under tests). */
export const workerUrl: string = import.meta.url;

/** What the worker is asked: the spec, once; then chunks of rows (CSV: packed, see PackedRows; JSON: the values). */
export type WorkerTask =
  | { id: 0; kind: 'init'; spec: TaskSpec }
  | { id: number; kind: 'packed'; rows: PackedRows }
  | { id: number; kind: 'values'; n: number; values: unknown[]; rowErrors?: Array<[number, string]> };

export interface WorkerReply {
  id: number;
  result?: ChunkResult;
  error?: string;
}

if (!isMainThread && parentPort && (workerData as { kind?: string } | null)?.kind === WORKER_KIND) {
  const port = parentPort;
  // Loaded at once, before the spec arrives: the worker is started before the mapping is
  // known, so that this (the validators and the phone metadata) overlaps the main thread's start.
  const validators = import('./task.js');
  let ready: Promise<{ run: TaskRunner; spec: TaskSpec }> | undefined;
  // Tasks are handled in order: each waits for the one before (only the first waits for anything).
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (task: WorkerTask) => {
    if (task.kind === 'init') {
      ready = validators.then(({ taskRunner }) => ({ run: taskRunner(task.spec), spec: task.spec }));
      return;
    }
    queue = queue.then(async () => {
      let reply: WorkerReply;
      try {
        if (!ready) throw new Error('no spec yet');
        const { run, spec } = await ready;
        if (task.kind === 'packed') {
          const { values, rowErrors } = packedValues(spec.extract, task.rows);
          reply = { id: task.id, result: run.values(task.rows.n, values, rowErrors) };
        } else {
          reply = { id: task.id, result: run.values(task.n, task.values, task.rowErrors) };
        }
      } catch (err) {
        reply = { id: task.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
      }
      port.postMessage(reply);
    });
  });
}
