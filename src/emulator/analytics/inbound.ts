import type { InboundFigures } from '../../spec/analytics.js';
import { avgSeconds, type CallFacts } from './rules.js';

/**
 * GET …/analytics/inbound, pure. answered = connected (answeredAt set, in progress or completed);
 * missed = failed; wait = ringing to answer; handle = duration of the answered calls that ended;
 * hours = the UTC hour of createdAt.
 */

export const HOURS: readonly string[] = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'));

export function inboundOf(calls: Iterable<CallFacts>): InboundFigures {
  const byHour = new Array<number>(24).fill(0);
  let total = 0;
  let answered = 0;
  let missed = 0;
  let waitMs = 0;
  let waited = 0;
  let handleSec = 0;
  let handled = 0;
  for (const c of calls) {
    if (c.direction !== 'inbound') continue;
    total++;
    byHour[Number(c.createdAt.slice(11, 13))]!++;
    if (c.status === 'failed') missed++;
    if (c.answeredAt !== null) {
      answered++;
      if (c.ringingAt !== null) {
        waitMs += Date.parse(c.answeredAt) - Date.parse(c.ringingAt);
        waited++;
      }
      if (c.status === 'completed') {
        handleSec += c.duration;
        handled++;
      }
    }
  }
  let peak = -1;
  for (let h = 0; h < 24; h++) if (byHour[h]! > 0 && (peak < 0 || byHour[h]! > byHour[peak]!)) peak = h;
  const callsByHour: Record<string, number> = {};
  for (let h = 0; h < 24; h++) callsByHour[HOURS[h]!] = byHour[h]!;
  return {
    totalInboundCalls: total,
    answeredCalls: answered,
    missedCalls: missed,
    avgWaitTime: avgSeconds(waitMs / 1000, waited),
    avgHandleTime: avgSeconds(handleSec, handled),
    peakHour: peak < 0 ? null : `${HOURS[peak]}:00`,
    callsByHour,
  };
}
