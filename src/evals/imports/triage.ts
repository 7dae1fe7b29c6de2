import { triageBatch, type TriageBatch } from '../../api/eval-imports.js';
import type { ApiClient } from '../../api/client.js';
import { InterruptedError } from '../../errors.js';

/** Progress after each committed batch. */
export interface TriageProgress {
  /** Calls of the import triaged so far (committed). */
  triaged: number;
  total: number;
  /** Calls the last batch triaged. */
  processed: number;
  remaining: number;
}

export interface TriageAllOptions {
  agentId: string;
  evalId: string;
  importId: string;
  /** Calls per batch, 1..50 (the API's default is 10). */
  batchSize: number;
  /** Ctrl-C: stops between batches (an in-flight batch may still commit on the server). */
  signal?: AbortSignal;
  onProgress?: (p: TriageProgress) => void;
}

/** Thrown when the signal stops the loop; the batches already committed stay triaged. */
export class TriageInterruptedError extends InterruptedError {
  constructor(readonly progress: { triaged: number; total: number }) {
    super(`triage stopped: ${progress.triaged} of ${progress.total} calls triaged (committed batches are kept)`);
    this.name = 'TriageInterruptedError';
  }
}

/**
 * Triages an import batch after batch until nothing remains. Each batch is committed
 * by the server before it answers, so a failure (thrown as is, after the committed
 * batches) or an interruption loses nothing, and calling this again resumes.
 */
export async function triageAll(api: ApiClient, opts: TriageAllOptions): Promise<{ triaged: number; total: number }> {
  const { agentId, evalId, importId, batchSize, signal, onProgress } = opts;
  let last = { triaged: 0, total: 0 };
  for (;;) {
    if (signal?.aborted) throw new TriageInterruptedError(last);
    let batch: TriageBatch;
    try {
      batch = await triageBatch(api, agentId, evalId, importId, batchSize, signal);
    } catch (err) {
      if (signal?.aborted) throw new TriageInterruptedError(last);
      throw err;
    }
    const triaged = batch.import?.triagedCalls ?? last.triaged + batch.processed;
    const remaining = Math.max(0, batch.remaining ?? 0);
    last = { triaged, total: triaged + remaining };
    onProgress?.({ triaged, total: last.total, processed: batch.processed, remaining });
    if (remaining === 0) return last;
    // A server that made no progress but says calls remain would loop forever.
    if (batch.processed <= 0) throw new Error(`the triage of import ${importId} made no progress (${remaining} calls remain); try again later`);
  }
}
