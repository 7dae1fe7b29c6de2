import type { ApiResponse, EnvelopeKind, Pagination } from './types.js';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Normalises any envelope of either document to `{ data, pagination, requestId }`. */
export function unwrapEnvelope<T>(body: unknown, kind: EnvelopeKind, status: number, headerRequestId?: string): ApiResponse<T> {
  const detected = kind === 'auto' ? detect(body) : kind;
  if (detected === 'bare' || !isObj(body)) {
    return { data: body as T, status, requestId: headerRequestId };
  }
  const meta = isObj(body.meta) ? body.meta : undefined;
  const data = body.data as T;
  const requestId = (typeof meta?.requestId === 'string' ? meta.requestId : undefined) ?? headerRequestId;
  const pagination =
    normalisePagination(meta?.pagination) ?? normalisePagination(body.pagination) ?? (isObj(data) ? normalisePagination((data as Obj).pagination) : undefined);
  return { data, pagination, requestId, status };
}

function detect(body: unknown): EnvelopeKind {
  if (!isObj(body)) return 'bare';
  if ('data' in body && isObj(body.meta)) return 'meta';
  if ('data' in body) return 'data';
  return 'bare';
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function normalisePagination(p: unknown): Pagination | undefined {
  if (!isObj(p)) return undefined;
  const out: Pagination = {};
  if ('nextCursor' in p) out.nextCursor = p.nextCursor == null ? null : String(p.nextCursor);
  const page = num(p.page);
  const limit = num(p.limit) ?? num(p.pageSize);
  const total = num(p.total);
  const totalPages = num(p.totalPages);
  if (page !== undefined) out.page = page;
  if (limit !== undefined) out.limit = limit;
  if (total !== undefined) out.total = total;
  if (totalPages !== undefined) out.totalPages = totalPages;
  return out;
}
