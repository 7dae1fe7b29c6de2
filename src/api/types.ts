/** Which of the two authentication forms an endpoint takes (spec doc 1 §5). */
export type AuthScheme = 'bearer' | 'x-api-key';

/** Pagination, normalised from every listing style of both documents. */
export interface Pagination {
  /** Opaque cursor for the next page (document 1 `meta.pagination.nextCursor`). */
  nextCursor?: string | null;
  page?: number;
  limit?: number;
  total?: number;
  totalPages?: number;
}

/** What every API call returns to a command, whatever envelope the server used. */
export interface ApiResponse<T> {
  data: T;
  pagination?: Pagination;
  requestId?: string;
  status: number;
  /** The response's headers (`vap api --include` prints them). */
  headers?: Record<string, string | string[] | undefined>;
}

/**
 * The envelopes of the two documents:
 * - `meta`: `{ data, meta: { requestId, pagination } }` (document 1);
 * - `data`: `{ data, pagination? }` (contact lists; calls, campaigns, analytics);
 * - `bare`: the object itself (import jobs);
 * - `auto`: recognise any of them.
 */
export type EnvelopeKind = 'meta' | 'data' | 'bare' | 'auto';

export type QueryValue = string | number | boolean | undefined | null;

export interface RequestOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the base URL, built with `apiPath` so that ids are encoded. */
  path: string;
  auth: AuthScheme;
  query?: Record<string, QueryValue>;
  body?: unknown;
  envelope?: EnvelopeKind;
  /** Per-request timeout in milliseconds (default: the client's). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface StreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType?: string;
  requestId?: string;
  body: AsyncIterable<Uint8Array> & NodeJS.ReadableStream;
}
