import type { CallRecord, CallStatus } from './types.js';
import { fail, int, isoMs, oneOf, pageSize } from './validate.js';

/**
 * The calls listing: every filter of the spec, the summary over all matches and one
 * page, in one backward walk over the organization's index (newest first) without
 * copying it.
 */

export const CALLS_PAGE = { def: 50, max: 100 } as const;
const STATUS_VALUES = ['queued', 'completed', 'failed', 'cancelled', 'in-progress', 'in_progress', 'initiated', 'ringing'] as const;

export interface CallQuery {
  page: number;
  pageSize: number;
  match: (c: CallRecord) => boolean;
}

export function parseCallQuery(q: Record<string, unknown>, campaignId?: string): CallQuery {
  const page = int(q.page, 'page', 1, Number.MAX_SAFE_INTEGER) ?? 1;
  const size = pageSize(q.pageSize, CALLS_PAGE.def, CALLS_PAGE.max);
  const status = oneOf(q.status, 'status', STATUS_VALUES);
  const statuses: Set<CallStatus> | null = !status ? null : status === 'in-progress' || status === 'in_progress' ? new Set(['initiated', 'ringing', 'in_progress']) : new Set([status as CallStatus]);
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
  const match = (c: CallRecord): boolean => {
    if (cid !== undefined && c.campaignId !== cid) return false;
    if (statuses && !statuses.has(c.status)) return false;
    if (direction && c.direction !== direction) return false;
    if (fromIso !== undefined && c.createdAt < fromIso) return false;
    if (toIso !== undefined && c.createdAt > toIso) return false;
    if (minD !== undefined && c.duration < minD) return false;
    if (maxD !== undefined && c.duration > maxD) return false;
    if (search) {
      if (digits) {
        if (!c.phoneNumber.replace(/\D/g, '').includes(digits) && !c.calleeName.toLowerCase().includes(search)) return false;
      } else if (!c.calleeName.toLowerCase().includes(search) && !c.phoneNumber.toLowerCase().includes(search)) return false;
    }
    return true;
  };
  return { page, pageSize: size, match };
}

export interface CallPage {
  calls: CallRecord[];
  total: number;
  summary: { total: number; completed: number; failed: number; active: number; queued: number };
}

export function listCalls(index: readonly CallRecord[], q: CallQuery): CallPage {
  const start = (q.page - 1) * q.pageSize;
  const end = start + q.pageSize;
  const calls: CallRecord[] = [];
  let n = 0;
  let completed = 0;
  let failed = 0;
  let active = 0;
  let queued = 0;
  for (let i = index.length - 1; i >= 0; i--) {
    const c = index[i]!;
    if (!q.match(c)) continue;
    if (n >= start && n < end) calls.push(c);
    n++;
    switch (c.status) {
      case 'completed':
        completed++;
        break;
      case 'failed':
        failed++;
        break;
      case 'queued':
        queued++;
        break;
      case 'initiated':
      case 'ringing':
      case 'in_progress':
        active++;
        break;
    }
  }
  return { calls, total: n, summary: { total: n, completed, failed, active, queued } };
}
