import type { ApiClient } from '../api/client.js';
import { FINISHED_RUN_STATUSES, getRun, listRunResults, type RunDetail, type RunResult } from '../api/evals.js';

/** Polling: the first poll after this long, then ×POLL_FACTOR up to POLL_CAP_MS. */
export const POLL_START_MS = 150;
export const POLL_FACTOR = 1.5;
export const POLL_CAP_MS = 500;
/** With the event stream open, polls only refresh the progress (and catch a lost event). */
export const SLOW_POLL_MS = 2000;

export type StreamState = 'connecting' | 'open' | 'unavailable';

/** A subscription to the run's end: calls `onEnd` when the stream says the run ended. */
export interface CompletionWatch {
  readonly state: StreamState;
  stop(): void;
}

/**
 * Starts watching for the run's end on an event stream. `onOpen` is called once the
 * stream is connected (the caller then polls once, so that an end that happened before
 * the subscription is not missed); `onUnavailable` when there is no stream to use.
 */
export type WatchCompletion = (hooks: {
  runId: string;
  signal: AbortSignal;
  onEnd(): void;
  onOpen(): void;
  onUnavailable(reason: string): void;
}) => CompletionWatch;

export interface WaitOptions {
  agentId: string;
  evalId: string;
  runId: string;
  /** Aborted on Ctrl-C or at the deadline; the wait then rejects with the abort reason. */
  signal: AbortSignal;
  /** The run as last seen (saves the first request). */
  initial?: RunDetail;
  /** Each fresh view of the run while waiting. */
  onProgress?(detail: RunDetail): void;
  /** The event stream said the run ended: called once, as its run and results are asked for (what else the caller needs can be asked for beside them). */
  onEnded?(): void;
  /** Event-driven end (optional): without it, or when it is unavailable, polling alone. */
  watch?: WatchCompletion;
}

/**
 * Follows a run until it is completed or failed and returns it as last read.
 * Polls with a capped backoff; with `watch`, an event ends the wait at once and the
 * polls slow down to a progress refresh. The run itself is never touched.
 */
export async function waitForRun(api: ApiClient, opts: WaitOptions): Promise<{ detail: RunDetail; results?: RunResult[] }> {
  if (opts.initial && FINISHED_RUN_STATUSES.has(opts.initial.run.status)) return { detail: opts.initial };
  let woken = false;
  /** The stream said the run ended: read the run and its results at once, side by side. */
  let ended = false;
  let endedSaid = false;
  let wake: (() => void) | undefined;
  const poke = () => {
    woken = true;
    wake?.();
  };
  const stop = new AbortController();
  const watch = opts.watch?.({
    runId: opts.runId,
    signal: AbortSignal.any([opts.signal, stop.signal]),
    onEnd: () => {
      ended = true;
      poke();
    },
    onOpen: poke,
    onUnavailable: () => poke(),
  });
  let delay = POLL_START_MS;
  let detail = opts.initial;
  try {
    for (;;) {
      let results: RunResult[] | undefined;
      if (!detail) {
        woken = false;
        if (ended) {
          const both = Promise.all([
            getRun(api, opts.agentId, opts.evalId, opts.runId, opts.signal),
            listRunResults(api, opts.agentId, opts.evalId, opts.runId, opts.signal),
          ]);
          if (!endedSaid) {
            endedSaid = true;
            opts.onEnded?.();
          }
          [detail, results] = await both;
        } else {
          detail = await getRun(api, opts.agentId, opts.evalId, opts.runId, opts.signal);
        }
        opts.onProgress?.(detail);
      }
      if (FINISHED_RUN_STATUSES.has(detail.run.status)) return { detail, results };
      detail = undefined;
      if (woken) continue;
      const cap = watch?.state === 'open' ? SLOW_POLL_MS : POLL_CAP_MS;
      const wait = Math.min(delay, cap);
      delay = Math.min(delay * POLL_FACTOR, cap);
      await new Promise<void>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          opts.signal.removeEventListener('abort', aborted);
          wake = undefined;
          resolve();
        };
        const aborted = () => {
          clearTimeout(timer);
          wake = undefined;
          reject(opts.signal.reason);
        };
        const timer = setTimeout(done, wait);
        if (opts.signal.aborted) return aborted();
        opts.signal.addEventListener('abort', aborted, { once: true });
        wake = done;
        if (woken) done();
      });
    }
  } finally {
    stop.abort();
    watch?.stop();
  }
}
