import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { ChunkResult } from './check-chunk.js';
import { InputError } from './source.js';
import { taskRunner, unpackValues, type TaskOutput, type TaskSpec } from './task.js';

/**
 * The validation worker. This module is its own chunk in the bundle (it is only
 * loaded with a dynamic import), so the same file is both what the main thread
 * imports to learn the worker's URL and what the worker runs.
 */

export const WORKER_KIND = 'vap-contacts-validate';

/** The URL of this module (a .js chunk when bundled, the .ts source under tests). */
export const workerUrl: string = import.meta.url;

/** What the worker is asked: a CSV slice to parse and validate, or rows already read (packed strings or any values). */
export type WorkerTask =
  | { id: 0; kind: 'init'; spec: TaskSpec }
  | { id: number; kind: 'csv'; bytes: Uint8Array; startLine: number }
  | { id: number; kind: 'packed'; n: number; text: string; lengths: Uint32Array; rowErrors?: Array<[number, string]> }
  | { id: number; kind: 'values'; n: number; values: unknown[]; rowErrors?: Array<[number, string]> };

export interface WorkerReply {
  id: number;
  output?: TaskOutput;
  result?: ChunkResult;
  /** The slice is not valid CSV. */
  inputError?: { message: string; line?: number };
  error?: string;
}

if (!isMainThread && parentPort && (workerData as { kind?: string } | null)?.kind === WORKER_KIND) {
  const port = parentPort;
  // Started before the mapping is known (its start-up overlaps the main thread's); the spec comes first.
  let run: ReturnType<typeof taskRunner> | undefined;
  port.on('message', (task: WorkerTask) => {
    if (task.kind === 'init') {
      run = taskRunner(task.spec);
      return;
    }
    let reply: WorkerReply;
    try {
      if (!run) throw new Error('no spec yet');
      if (task.kind === 'csv') reply = { id: task.id, output: run.csv(task.bytes, task.startLine) };
      else if (task.kind === 'packed') reply = { id: task.id, result: run.values(task.n, unpackValues(task.text, task.lengths), task.rowErrors) };
      else reply = { id: task.id, result: run.values(task.n, task.values, task.rowErrors) };
    } catch (err) {
      reply = err instanceof InputError ? { id: task.id, inputError: { message: err.message, line: err.line } } : { id: task.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    port.postMessage(reply);
  });
}
