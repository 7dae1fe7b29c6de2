import type { ApiClient } from '../api/client.js';
import { ORGANIZATION_STREAM_PATH } from '../api/events.js';
import { openEventStream, type StreamState as SseState } from '../api/sse.js';
import type { CompletionWatch, StreamState, WatchCompletion } from './wait.js';

const TYPE = 'eval.run.completed';

/**
 * Ends a wait on this run's `eval.run.completed` event. Once the stream is live the caller polls once, so an end before the
 * subscription is not missed, then slows down; while the stream is down it polls at the normal pace; with no stream at all
 * (404, 400, refused connection) it is `unavailable` and polling alone goes on.
 */
export function eventStreamWatch(api: ApiClient): WatchCompletion {
  return ({ runId, signal, onEnd, onOpen, onUnavailable }) => {
    let state: StreamState = 'connecting';
    const stop = new AbortController();
    const streamSignal = AbortSignal.any([signal, stop.signal]);
    const onState = (s: SseState) => {
      if (s.kind === 'live' || s.kind === 'reconnected') {
        state = 'open';
        onOpen();
      } else if (s.kind === 'dropped') state = 'connecting';
    };
    void (async () => {
      try {
        for await (const e of openEventStream<{ data?: { runId?: string } }>(api, {
          path: ORGANIZATION_STREAM_PATH,
          types: [TYPE],
          signal: streamSignal,
          onState,
        })) {
          if (e.type === TYPE && e.data && typeof e.data === 'object' && e.data.data?.runId === runId) {
            onEnd();
            return;
          }
        }
      } catch (err) {
        if (streamSignal.aborted) return;
        state = 'unavailable';
        onUnavailable((err as Error)?.message ?? String(err));
      }
    })();
    const watch: CompletionWatch = {
      get state() {
        return state;
      },
      stop: () => stop.abort(),
    };
    return watch;
  };
}
