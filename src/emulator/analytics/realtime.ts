import type { CallFacts } from './rules.js';

/**
 * GET …/analytics/realtime: what is happening now, from the calls' statuses and
 * times in simulated time. One pass, string comparisons only (ISO timestamps of
 * one format compare as text), so 100,000 calls take a few milliseconds.
 */

export interface Realtime {
  activeCalls: number;
  queuedCalls: number;
  callsCompletedToday: number;
  currentCallRate: number;
  lastCallAt: string | null;
}

/** The window of currentCallRate: calls started in the last 60 simulated seconds, per minute. */
export const RATE_WINDOW_MS = 60_000;

export function realtimeOf(calls: Iterable<Pick<CallFacts, 'status' | 'startedAt' | 'endedAt'>>, nowMs: number): Realtime {
  const nowIso = new Date(nowMs).toISOString();
  const today = nowIso.slice(0, 10);
  const windowStart = new Date(nowMs - RATE_WINDOW_MS).toISOString();
  let activeCalls = 0;
  let queuedCalls = 0;
  let callsCompletedToday = 0;
  let started = 0;
  let lastCallAt: string | null = null;
  for (const c of calls) {
    const s = c.status;
    if (s === 'queued') queuedCalls++;
    else if (s === 'initiated' || s === 'ringing' || s === 'in_progress') activeCalls++;
    else if (s === 'completed' && c.endedAt !== null && c.endedAt.startsWith(today)) callsCompletedToday++;
    const at = c.startedAt;
    if (at !== null) {
      if (at > windowStart && at <= nowIso) started++;
      if (lastCallAt === null || at > lastCallAt) lastCallAt = at;
    }
  }
  return { activeCalls, queuedCalls, callsCompletedToday, currentCallRate: (started * 60_000) / RATE_WINDOW_MS, lastCallAt };
}
