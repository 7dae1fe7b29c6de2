import type { CallRecord } from '../telephony/types.js';
import type { CallStatus } from '../../spec/calls.js';

/**
 * The rules every analytics figure follows (the wire contract's "Analytics" section):
 * which statuses count as what, the cost rule, the sentiment score, rounding.
 * Pure: no state, no clock.
 */

/** The analysis facts analytics reads (the telephony AnalysisCore and the full analysis both have them). */
export interface AnalysisFacts {
  sentiment: { overallSentiment: string };
  humanContact: { reachedHuman: boolean };
  objectives: { primary?: { status: string } };
  callback: { callbackRequested: boolean };
  doNotCall: { requested: boolean };
}

/** The part of a call record analytics reads (hand-built ones in unit tests, CallRecord in the emulator). */
export type CallFacts = Pick<CallRecord, 'status' | 'direction' | 'duration' | 'createdAt' | 'startedAt' | 'ringingAt' | 'answeredAt' | 'endedAt'> & {
  runId?: string | null;
  analysis: AnalysisFacts | null;
};

export const isActive = (s: CallStatus): boolean => s === 'initiated' || s === 'ringing' || s === 'in_progress';
export const isEnded = (s: CallStatus): boolean => s === 'completed' || s === 'failed';

/**
 * Cost in mills (tenths of a cent), so sums are exact: an ended call costs 10 (the dial)
 * + 15 per started minute of its duration; a failed call the dial only; a call that
 * has not ended (or was cancelled) nothing.
 */
export function costMills(c: Pick<CallFacts, 'status' | 'duration'>): number {
  if (c.status === 'failed') return 10;
  if (c.status !== 'completed') return 0;
  return 10 + 15 * Math.ceil(Math.max(0, c.duration) / 60);
}

/** positive 1, neutral 0.5, negative 0 (an unknown label counts as neutral). */
export function sentimentScore(label: string): number {
  return label === 'positive' ? 1 : label === 'negative' ? 0 : 0.5;
}

export function round(x: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round((x + Number.EPSILON) * f) / f;
}

/** Rates and scores: 4 decimals. */
export const rate = (n: number, of: number): number => (of > 0 ? round(n / of, 4) : 0);
/** Averages of seconds: 2 decimals; 0 when there is nothing to average. */
export const avgSeconds = (sum: number, of: number): number => (of > 0 ? round(sum / of, 2) : 0);
/** Dollars from mills: 2 decimals. */
export const dollars = (mills: number): number => round(mills / 1000, 2);
