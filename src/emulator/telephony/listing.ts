import type { OrderedIndex, Selection } from '../ordered-index.js';
import type { CallRecord, Direction } from './types.js';
import { fail, int, isoMs, oneOf, pageSize } from './validate.js';
import { type CallStatus, CALL_STATUSES } from '../../spec/calls.js';

/** The calls listing: every filter of the spec, the summary over all matches and one page. */

export const CALLS_PAGE = { def: 50, max: 100 } as const;
const STATUS_VALUES = ['queued', 'completed', 'failed', 'cancelled', 'in-progress', 'in_progress', 'initiated', 'ringing'] as const;

export interface CallQuery {
  page: number;
  pageSize: number;
  /** The campaign the listing is about (its own index), if any. */
  campaignId: string | undefined;
  /** Statuses asked for (null: all). */
  statuses: CallStatus[] | null;
  direction: Direction | undefined;
  /** createdAt bounds (ISO, inclusive). */
  fromIso: string | undefined;
  toIso: string | undefined;
  /** Filters no index serves (duration, search), with a key naming them; null when none. */
  scan: { key: string; match: (c: CallRecord) => boolean } | null;
}

export function parseCallQuery(q: Record<string, unknown>, campaignId?: string): CallQuery {
  const page = int(q.page, 'page', 1, Number.MAX_SAFE_INTEGER) ?? 1;
  const size = pageSize(q.pageSize, CALLS_PAGE.def, CALLS_PAGE.max);
  const status = oneOf(q.status, 'status', STATUS_VALUES);
  const statuses: CallStatus[] | null = !status
    ? null
    : status === 'in-progress' || status === 'in_progress'
      ? ['initiated', 'ringing', 'in_progress']
      : [status as CallStatus];
  const direction = oneOf(q.direction, 'direction', ['outbound', 'inbound'] as const);
  const cid = campaignId ?? (typeof q.campaignId === 'string' && q.campaignId !== '' ? q.campaignId : undefined);
  if (q.campaignId !== undefined && typeof q.campaignId !== 'string') fail('campaignId', 'must be a string');
  const from = isoMs(q.dateFrom, 'dateFrom');
  const to = isoMs(q.dateTo, 'dateTo', true);
  if (from !== undefined && to !== undefined && from > to) fail('dateFrom', 'is after dateTo');
  const minD = int(q.minDuration, 'minDuration', 0, Number.MAX_SAFE_INTEGER);
  const maxD = int(q.maxDuration, 'maxDuration', 0, Number.MAX_SAFE_INTEGER);
  if (minD !== undefined && maxD !== undefined && minD > maxD) fail('minDuration', 'is greater than maxDuration');
  if (q.search !== undefined && typeof q.search !== 'string') fail('search', 'must be a string');
  const search = typeof q.search === 'string' ? q.search.trim().toLowerCase() : '';
  if (search.length > 200) fail('search', 'must have at most 200 characters');
  const digits = search && /^[\d\s+().-]+$/.test(search) ? search.replace(/\D/g, '') : '';
  const fromIso = from !== undefined ? new Date(from).toISOString() : undefined;
  const toIso = to !== undefined ? new Date(to).toISOString() : undefined;
  const scanned = minD !== undefined || maxD !== undefined || search !== '';
  const match = (c: CallRecord): boolean => {
    if (minD !== undefined && c.duration < minD) return false;
    if (maxD !== undefined && c.duration > maxD) return false;
    if (search) {
      if (digits) {
        if (!c.phoneNumber.replace(/\D/g, '').includes(digits) && !c.calleeName.toLowerCase().includes(search)) return false;
      } else if (!c.calleeName.toLowerCase().includes(search) && !c.phoneNumber.toLowerCase().includes(search)) return false;
    }
    return true;
  };
  const key = JSON.stringify([statuses, direction, fromIso, toIso, minD, maxD, search]);
  return { page, pageSize: size, campaignId: cid, statuses, direction, fromIso, toIso, scan: scanned ? { key, match } : null };
}

export interface CallSummary {
  total: number;
  completed: number;
  failed: number;
  active: number;
  queued: number;
}

export interface CallPage {
  calls: CallRecord[];
  total: number;
  summary: CallSummary;
}

/**
 * One page of the calls listing, newest first, with the total and summary over every match, from
 * the index's facets and date range, so a page and its counts cost about the page
 * (ordered-index.ts).
 */
export function listCalls(idx: OrderedIndex<CallRecord>, q: CallQuery): CallPage {
  const lo = q.fromIso !== undefined ? idx.boundary((c) => c.createdAt >= q.fromIso!) : 0;
  const hi = q.toIso !== undefined ? idx.boundary((c) => c.createdAt > q.toIso!) : idx.size;
  const of = (statuses: readonly CallStatus[]): Selection =>
    q.direction ? { facet: 'dirStatus', values: statuses.map((st) => `${q.direction}|${st}`), lo, hi } : { facet: 'status', values: statuses, lo, hi };
  const sel: Selection = q.statuses || q.direction ? of(q.statuses ?? CALL_STATUSES) : { lo, hi };
  const start = (q.page - 1) * q.pageSize;
  if (q.scan) {
    const { positions, extra } = idx.scan(q.scan.key, sel, q.scan.match, summarize);
    return { calls: idx.pageOf(positions, start, q.pageSize, true), total: positions.length, summary: extra };
  }
  const n = (st: CallStatus) => (q.statuses && !q.statuses.includes(st) ? 0 : idx.count(of([st])));
  const summary: CallSummary = {
    total: 0,
    completed: n('completed'),
    failed: n('failed'),
    active: n('initiated') + n('ringing') + n('in_progress'),
    queued: n('queued'),
  };
  summary.total = summary.completed + summary.failed + summary.active + summary.queued + n('cancelled');
  return { calls: idx.page(sel, start, q.pageSize, true), total: summary.total, summary };
}

function summarize(calls: readonly CallRecord[]): CallSummary {
  const s: CallSummary = { total: calls.length, completed: 0, failed: 0, active: 0, queued: 0 };
  for (const c of calls) {
    switch (c.status) {
      case 'completed':
        s.completed++;
        break;
      case 'failed':
        s.failed++;
        break;
      case 'queued':
        s.queued++;
        break;
      case 'initiated':
      case 'ringing':
      case 'in_progress':
        s.active++;
        break;
    }
  }
  return s;
}
