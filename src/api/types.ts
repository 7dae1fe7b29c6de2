import type { AuthScheme } from '../spec/groups.js';

/** Pagination, normalised from every listing style of both documents. */
export interface Pagination {
  /** Opaque cursor for the next page (document 1 `meta.pagination.nextCursor`). */
  nextCursor?: string | null;
  page?: number;
  limit?: number;
  total?: number;
  totalPages?: number;
}

/**
 * The server's clock as one response told it (its `Date` header) and when that arrived. Views
 * take "now" from it (src/ui/values.ts), so that a client whose clock is off, or an emulator
 * under --time-scale, never shows a past event as "in 10 minutes".
 */
export interface ServerDate {
  /** The `Date` header, in ms since the epoch (a multiple of 1000). */
  serverMs: number;
  /** The local clock when the response's headers arrived. */
  receivedAtMs: number;
}

/** What every API call returns to a command, whatever envelope the server used. */
export interface ApiResponse<T> {
  data: T;
  pagination?: Pagination;
  requestId?: string;
  /** The server's clock at the answer (from its `Date` header), when it sent one. */
  serverDate?: ServerDate;
  status: number;
  /** The response's headers (`vap api --include` prints them). */
  headers?: Record<string, string | string[] | undefined>;
}

/**
 * The envelopes of the two documents: `meta` is `{ data, meta }` (document 1), `data` is
 * `{ data, pagination? }` (contact lists, calls, campaigns, analytics), `bare` the object itself
 * (import jobs), and `auto` recognises any of them.
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
  /** The server's clock when the stream opened (from its `Date` header), when it sent one. */
  serverDate?: ServerDate;
  body: AsyncIterable<Uint8Array> & NodeJS.ReadableStream;
}
