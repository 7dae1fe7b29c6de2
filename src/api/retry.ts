/** Retry policy: capped exponential backoff with jitter; Retry-After honoured. */
export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for; the error is returned. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT.has(method.toUpperCase());
}

/**
 * Whether a response status may be retried for this method. 429 means the request
 * was not processed, so any method may be retried; 408 and 5xx only for idempotent
 * methods: a POST that got a 5xx may have created something.
 */
export function shouldRetryStatus(method: string, status: number): boolean {
  if (status === 429) return true;
  if (status === 408 || status >= 500) return isIdempotent(method);
  return false;
}

/** Parses Retry-After (delta seconds or an HTTP date) and retry-after-ms into milliseconds. */
export function parseRetryAfter(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | undefined {
  const ms = first(headers['retry-after-ms']);
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms);
  const ra = first(headers['retry-after']);
  if (ra === undefined) return undefined;
  const trimmed = ra.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (!Number.isNaN(date)) return Math.max(0, date - now);
  return undefined;
}

/** Delay before retry number `attempt` (0-based): base * 2^attempt, capped, with up to 25% jitter. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random = Math.random): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(exp * (1 - random() * 0.25));
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
