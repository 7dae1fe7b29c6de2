import type { ApiClient } from '../api/client.js';
import { callStreamPath, isStreamOnly, listEventTypes, ORGANIZATION_STREAM_PATH, type CatalogEntry } from '../api/events.js';
import { openEventBatches, type StreamEvent, type StreamState } from '../api/sse.js';
import type { Context, GlobalOptions } from '../context.js';
import { SilentExit, UsageError, WaitTimeoutError } from '../errors.js';
import { numericSetting } from '../config/resolve.js';
import { ExitCode } from '../exit-codes.js';
import { nearest } from '../ui/suggest.js';
import { formatDuration } from '../ui/values.js';

/**
 * The loop the tails and `webhooks listen` share: each event handed to the caller, each reconnection
 * reported on stderr, and, when it stops with more to come, the command that resumes from the
 * last id. A call that is over has nothing more to come: the tail says so.
 */

export interface FollowSpec {
  stream: 'organization' | 'call';
  callId?: string;
  /** Types for the server's filter (already checked against the catalog). */
  types?: string[];
  lastEventId?: string;
  /** Say on stderr how many events the first connection replayed (when the user resumed). */
  announceResume?: boolean;
  /** End (exit 0) after the first event of this type. */
  exitOn?: string;
  /** End with exit 124 after this long. */
  timeoutMs?: number;
  /** End after the call's final after-call event (call.analysis.completed). */
  endAfterAnalysis?: boolean;
  /** The command that resumes after `lastId` (shown on exit). */
  resumeCommand: (lastId: string) => string;
  /** What the stream is, for the messages ("the organization's events", "call c_1"). */
  label: string;
  /** Receives each event (writes it, forwards it). Its promise is awaited before the next. */
  handle: (event: StreamEvent) => Promise<void> | void;
  /** Called before the closing lines on stderr (writes out buffered stdout). */
  flush?: () => Promise<void>;
  /** The delay ceiling of reconnections (default 30 s). */
  maxRetryDelayMs?: number;
}

export const FINAL_CALL_EVENT = 'call.analysis.completed';

/** Whether a call.ended envelope (`{ type, callId, data: { status } }`) says the call failed. */
function endedFailed(envelope: unknown): boolean {
  const data = (envelope as { data?: { status?: unknown } } | null)?.data;
  return typeof data === 'object' && data !== null && data.status === 'failed';
}

/** Runs the loop until it ends; throws SilentExit(130) on Ctrl-C and WaitTimeoutError on --timeout. */
export async function followEvents(ctx: Context, api: ApiClient, spec: FollowSpec): Promise<void> {
  const deadline = new AbortController();
  const timer = spec.timeoutMs !== undefined ? setTimeout(() => deadline.abort(new DOMException('timed out', 'TimeoutError')), spec.timeoutMs) : undefined;
  const signal = AbortSignal.any([ctx.signal, deadline.signal]);
  let lastId = spec.lastEventId;
  let count = 0;
  const onState = (s: StreamState) => reportState(ctx, spec, s);
  const resumeLine = async () => {
    await spec.flush?.().catch(() => undefined);
    // Said even with -q: it is what a script needs to carry on.
    if (lastId !== undefined && lastId !== '') {
      // The id is the server's text: shown safe (an id with a control character prints visibly escaped).
      // On a terminal, the command goes on lines of its own when the whole does not fit, copyable whole.
      ctx.noteCommand(`last event id ${lastId}; resume with:`, spec.resumeCommand(lastId));
    } else {
      ctx.note(`no event received; run the same command again to follow ${spec.label}`);
    }
  };
  try {
    const path = spec.stream === 'call' ? callStreamPath(spec.callId!) : ORGANIZATION_STREAM_PATH;
    stream: for await (const batch of openEventBatches(api, {
      path,
      types: spec.types,
      lastEventId: spec.lastEventId,
      signal,
      onState,
      maxRetryDelayMs: spec.maxRetryDelayMs ?? retryCap(ctx.env),
    })) {
      for (const event of batch) {
        // The SSE event name is the type: nothing is parsed here (a --json tail passes the data on as is).
        // A handler that had nothing to wait for returns nothing: no await per event in a burst.
        const pending = spec.handle(event);
        if (pending) await pending;
        if (event.id) lastId = event.id;
        count++;
        if (spec.exitOn && event.type === spec.exitOn) break stream;
        // A call that never connected has nothing to analyse: its call.ended is its last event.
        const over =
          spec.endAfterAnalysis && event.type === FINAL_CALL_EVENT
            ? 'its analysis is in'
            : spec.endAfterAnalysis && event.type === 'call.ended' && endedFailed(event.data)
              ? 'it did not connect, so no analysis follows'
              : undefined;
        if (over) {
          // The notice comes after the last event it refers to: what is gathered for stdout is written first.
          // Nothing follows a call that is over, so there is nothing to resume.
          await spec.flush?.().catch(() => undefined);
          ctx.info(`call ${spec.callId} is over: ${over} (${count} event${count === 1 ? '' : 's'}); --follow keeps listening`);
          return;
        }
      }
    }
  } catch (err) {
    if (ctx.signal.aborted) {
      await resumeLine();
      ctx.io.stderr.write('interrupted\n');
      throw new SilentExit(ExitCode.INTERRUPTED);
    }
    if (deadline.signal.aborted) {
      await resumeLine();
      throw new WaitTimeoutError(`stopped following ${spec.label} after ${formatDuration(spec.timeoutMs!)} (--timeout)`);
    }
    if (isBrokenPipe(err)) return;
    throw err;
  } finally {
    clearTimeout(timer);
  }
  await resumeLine();
}

/**
 * VAP_STREAM_MAX_RETRY_MS caps the reconnection delay (default 30 s; the server's `retry:`
 * is the base). Tests set it low to force many drops quickly; a user may, on a flaky link.
 */
function retryCap(env: Context['env']): number | undefined {
  return numericSetting(env, 'VAP_STREAM_MAX_RETRY_MS');
}

function reportState(ctx: Context, spec: FollowSpec, s: StreamState): void {
  switch (s.kind) {
    case 'opened':
      if (!s.reconnect && ctx.io.stderrIsTTY) ctx.info(`Following ${spec.label}${spec.types?.length ? ` (${spec.types.join(', ')})` : ''}; Ctrl-C to stop`);
      return;
    case 'live':
      if (spec.announceResume && spec.lastEventId !== undefined)
        ctx.info(`resumed after event ${spec.lastEventId}: replayed ${s.replayed} event${s.replayed === 1 ? '' : 's'}`);
      return;
    case 'dropped':
      // A single drop is reported by the reconnection line; a reconnection that keeps failing is said as it happens.
      if (s.attempt > 1 || ctx.globals.verbose) ctx.info(`connection lost: ${s.reason}; reconnecting in ${formatDuration(s.retryInMs)} (attempt ${s.attempt})`);
      return;
    case 'reconnected':
      ctx.info(`reconnected after ${(s.afterMs / 1000).toFixed(1)}s, replayed ${s.replayed} missed event${s.replayed === 1 ? '' : 's'}`);
      return;
  }
}

export function isBrokenPipe(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}

/**
 * Checks type names against the live catalog (one GET; nothing is sent to a stream when a
 * name is refused). On the organization stream a stream-only type is refused with the
 * command that does carry it.
 */
export async function checkTypes(
  api: ApiClient,
  names: Array<{ flag: string; types: string[] }>,
  opts: { stream: 'organization' | 'call'; signal: AbortSignal },
): Promise<CatalogEntry[]> {
  const all = names.flatMap((n) => n.types);
  if (all.length === 0) return [];
  const catalog = await listEventTypes(api, opts.signal);
  const known = new Map(catalog.map((e) => [e.type, e]));
  for (const { flag, types } of names) {
    for (const t of types) {
      const entry = known.get(t);
      if (!entry) {
        const near = nearest(
          t,
          catalog.map((e) => e.type),
        );
        throw new UsageError(
          `unknown event type "${t}" in ${flag}`,
          near.length ? `did you mean ${near.join(' or ')}? (\`vap events types\` lists them all)` : `known types: ${catalog.map((e) => e.type).join(', ')}`,
        );
      }
      if (opts.stream === 'organization' && isStreamOnly(entry)) {
        throw new UsageError(
          `"${t}" is sent on a call's own stream only, not on the organization stream`,
          `follow it with \`vap calls tail <callId> --types ${t}\``,
        );
      }
    }
  }
  return catalog;
}

/** Splits `a,b , c` into names (blanks dropped, duplicates removed, order kept). */
export function parseTypeList(value: string, previous: string[] = []): string[] {
  const out = [...previous];
  for (const t of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean))
    if (!out.includes(t)) out.push(t);
  return out;
}

/** Checks a --last-event-id value: the ids of this API are decimal numbers. */
export function parseLastEventId(value: string): string {
  const v = value.trim();
  if (!/^\d{1,20}$/.test(v))
    throw new UsageError(
      `--last-event-id takes an event id (a number such as 1234), not "${value}"`,
      'use the id printed when a tail ended, or the `id` of a --json line',
    );
  return v;
}

/** The global flags a resumed command must repeat to reach the same stream and print the same way. */
export function globalFlags(g: GlobalOptions): string[] {
  const out: string[] = [];
  if (g.profile) out.push('--profile', g.profile);
  if (g.baseUrl) out.push('--base-url', g.baseUrl);
  if (g.json) out.push('--json');
  else if (g.output) out.push('-o', g.output);
  if (g.query) out.push('--query', g.query);
  if (g.quiet) out.push('-q');
  if (g.absoluteTimes) out.push('--absolute-times');
  return out;
}

/** A command line, each word quoted for a POSIX shell when it needs it. */
export function commandLine(words: string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
