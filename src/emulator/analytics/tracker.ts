import { count, emptyTally, type Tally } from './metrics.js';
import { RATE_WINDOW_MS, type Realtime } from './realtime.js';
import type { CallFacts } from './rules.js';

/**
 * Incremental figures of a campaign's calls: a call whose figures can no longer change is folded
 * once into running totals, so a request reads only the open calls (when a call settles:
 * src/emulator/README.md).
 */

const finalStatus = (s: CallFacts['status']) => s === 'completed' || s === 'failed' || s === 'cancelled';
const tallySettled = (c: CallFacts) => c.status === 'cancelled' || c.status === 'failed' || (c.status === 'completed' && c.analysis !== null);

export class CampaignTracker {
  private seenTally = 0;
  private seenRealtime = 0;
  private readonly openTally = new Set<CallFacts>();
  private readonly openRealtime = new Set<CallFacts>();
  private readonly settled: Tally = emptyTally();
  /** Settled completed calls per UTC day of endedAt. */
  private readonly completedByDay = new Map<string, { n: number }>();
  /** The day entry last counted into (calls come mostly in time order: no new string per call). */
  private lastDay: { day: string; entry: { n: number } } | null = null;
  /** Latest startedAt among calls settled for realtime. */
  private lastStartedAt: string | null = null;
  /** startedAt of settled calls that may still be inside the rate window, ascending. */
  private recentStarts: string[] = [];

  constructor(private readonly calls: readonly CallFacts[]) {}

  /** Takes in the calls appended since the last tally: those already settled are folded in at once (a bulk seed of ended calls never enters the open set). */
  private ingestTally(): void {
    for (; this.seenTally < this.calls.length; this.seenTally++) {
      const c = this.calls[this.seenTally]!;
      if (tallySettled(c)) count(this.settled, c);
      else this.openTally.add(c);
    }
  }

  /** The same for the realtime figures. */
  private ingestRealtime(windowStart: string): void {
    for (; this.seenRealtime < this.calls.length; this.seenRealtime++) {
      const c = this.calls[this.seenRealtime]!;
      if (finalStatus(c.status)) this.settleRealtime(c, windowStart);
      else this.openRealtime.add(c);
    }
  }

  /** The tally of every call of the campaign. */
  tally(): Tally {
    this.ingestTally();
    const t: Tally = { ...this.settled };
    for (const c of this.openTally) {
      if (tallySettled(c)) {
        count(this.settled, c);
        this.openTally.delete(c);
      }
      count(t, c);
    }
    return t;
  }

  realtime(nowMs: number): Realtime {
    const nowIso = new Date(nowMs).toISOString();
    const windowStart = new Date(nowMs - RATE_WINDOW_MS).toISOString();
    this.ingestRealtime(windowStart);
    let activeCalls = 0;
    let queuedCalls = 0;
    let started = 0;
    let last = this.lastStartedAt;
    for (const c of this.openRealtime) {
      if (finalStatus(c.status)) {
        this.settleRealtime(c, windowStart);
        this.openRealtime.delete(c);
        continue;
      }
      if (c.status === 'queued') queuedCalls++;
      else activeCalls++;
      const at = c.startedAt;
      if (at !== null) {
        if (at > windowStart && at <= nowIso) started++;
        if (last === null || at > last) last = at;
      }
    }
    if (this.lastStartedAt !== null && (last === null || this.lastStartedAt > last)) last = this.lastStartedAt;
    // Starts at or before the window's start never count again (simulated time only moves forward).
    let drop = 0;
    while (drop < this.recentStarts.length && this.recentStarts[drop]! <= windowStart) drop++;
    if (drop > 0) this.recentStarts = this.recentStarts.slice(drop);
    for (const at of this.recentStarts) if (at <= nowIso) started++;
    return {
      activeCalls,
      queuedCalls,
      callsCompletedToday: this.completedByDay.get(nowIso.slice(0, 10))?.n ?? 0,
      currentCallRate: (started * 60_000) / RATE_WINDOW_MS,
      lastCallAt: last,
    };
  }

  private settleRealtime(c: CallFacts, windowStart: string): void {
    if (c.status === 'completed' && c.endedAt !== null) {
      if (this.lastDay !== null && c.endedAt.startsWith(this.lastDay.day)) this.lastDay.entry.n++;
      else {
        const day = c.endedAt.slice(0, 10);
        let entry = this.completedByDay.get(day);
        if (!entry) this.completedByDay.set(day, (entry = { n: 0 }));
        entry.n++;
        this.lastDay = { day, entry };
      }
    }
    const at = c.startedAt;
    if (at === null) return;
    if (this.lastStartedAt === null || at > this.lastStartedAt) this.lastStartedAt = at;
    if (at > windowStart) {
      let i = this.recentStarts.length;
      while (i > 0 && this.recentStarts[i - 1]! > at) i--;
      this.recentStarts.splice(i, 0, at);
    }
  }
}

const trackers = new WeakMap<readonly CallFacts[], CampaignTracker>();

/** The tracker of a campaign's call array (a new array, after a regrouping, gets a new one). */
export function trackerOf(calls: readonly CallFacts[]): CampaignTracker {
  let t = trackers.get(calls);
  if (!t) {
    t = new CampaignTracker(calls);
    trackers.set(calls, t);
  }
  return t;
}
