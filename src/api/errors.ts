/**
 * Typed API errors. `ApiError.fromResponse` picks a subclass by status, the way
 * Stainless SDKs do, and always carries message, status and request id, whatever
 * shape the error body had (JSON of any form, plain text, or nothing).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly requestId?: string;
  readonly code?: string;
  readonly body: unknown;
  /** Field-level details when the server gave them (`{ field, message }`). */
  readonly details?: unknown;
  /** The response's headers (`vap api --include` prints them before the error). */
  readonly headers?: Record<string, string | string[] | undefined>;

  constructor(
    status: number,
    message: string,
    opts: { requestId?: string; code?: string; body?: unknown; details?: unknown; headers?: Record<string, string | string[] | undefined> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.requestId = opts.requestId;
    this.code = opts.code;
    this.body = opts.body;
    this.details = opts.details;
    this.headers = opts.headers;
  }

  static fromResponse(status: number, rawBody: string, headers: Record<string, string | string[] | undefined>): ApiError {
    const requestId = headerValue(headers, 'x-request-id');
    const parsed = parseBody(rawBody);
    const { message, code, details, requestId: bodyRequestId } = describeBody(parsed, status);
    const opts = { requestId: bodyRequestId ?? requestId, code, body: parsed, details, headers };
    const Cls = errorClassFor(status);
    return new Cls(status, message, opts);
  }
}

export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
export class UnprocessableEntityError extends ApiError {
  override name = 'UnprocessableEntityError';
}
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}
export class InternalServerError extends ApiError {
  override name = 'InternalServerError';
}

/** The request never produced an HTTP response: refused, reset, DNS failure. */
export class ConnectionError extends Error {
  readonly url: string;
  readonly code?: string;
  constructor(url: string, cause: unknown) {
    const code = (cause as { code?: string } | undefined)?.code;
    super(`could not reach ${new URL(url).origin}${code ? ` (${code})` : ''}`, { cause });
    this.name = 'ConnectionError';
    this.url = url;
    this.code = code;
  }
}

/**
 * The response began (status and headers) but its body was cut off: the connection closed,
 * or was reset, before the answer was complete. Idempotent requests are retried; for the
 * others the request may or may not have taken effect.
 */
export class IncompleteResponseError extends ConnectionError {
  /** The request's method: whether it may have taken effect depends on it. */
  readonly method?: string;
  /** Whether the method is idempotent (then it was retried before this was thrown). */
  readonly idempotent: boolean;
  constructor(url: string, cause: unknown, method?: string, idempotent = true) {
    super(url, cause);
    this.method = method;
    this.idempotent = idempotent;
    this.message = `the connection to ${new URL(url).origin} closed before the answer was complete`;
    this.name = 'IncompleteResponseError';
  }
}

/** Whether an error while reading a response body means the connection was cut (not an abort of ours). */
export function isConnectionCut(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  return (
    code === 'UND_ERR_SOCKET' ||
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' ||
    code === 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH'
  );
}

/** No response within the timeout. */
export class RequestTimeoutError extends ConnectionError {
  readonly timeoutMs: number;
  constructor(url: string, timeoutMs: number, cause?: unknown) {
    super(url, cause);
    this.message = `no response from ${new URL(url).origin} within ${timeoutMs < 1000 ? `${timeoutMs}ms` : `${Math.round(timeoutMs / 1000)}s`}`;
    this.name = 'RequestTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

function errorClassFor(status: number): typeof ApiError {
  switch (status) {
    case 400:
      return BadRequestError;
    case 401:
      return AuthenticationError;
    case 403:
      return PermissionDeniedError;
    case 404:
      return NotFoundError;
    case 409:
      return ConflictError;
    case 422:
      return UnprocessableEntityError;
    case 429:
      return RateLimitError;
    default:
      return status >= 500 ? InternalServerError : ApiError;
  }
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function parseBody(raw: string): unknown {
  const text = raw.trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const MAX_MESSAGE = 300;

function describeBody(body: unknown, status: number): { message: string; code?: string; details?: unknown; requestId?: string } {
  const fallback = `HTTP ${status}${STATUS_TEXT[status] ? ` ${STATUS_TEXT[status]}` : ''}`;
  if (body === undefined || body === null) return { message: fallback };
  if (typeof body === 'string') {
    const firstLine =
      stripHtml(body)
        .split('\n')
        .map((l) => l.trim())
        .find(Boolean) ?? '';
    return { message: firstLine ? clip(firstLine) : fallback };
  }
  if (typeof body !== 'object') return { message: clip(String(body)) };
  const o = body as Record<string, unknown>;
  const meta = o.meta as Record<string, unknown> | undefined;
  const requestId = str(meta?.requestId) ?? str(o.requestId) ?? str(o.request_id);
  const err = o.error;
  if (err && typeof err === 'object') {
    const e = err as Record<string, unknown>;
    const message = str(e.message) ?? str(e.detail) ?? str(e.description) ?? fallback;
    return { message: clip(message), code: str(e.code) ?? str(e.type), details: e.details ?? e.errors, requestId: requestId ?? str(e.requestId) };
  }
  const message = str(err) ?? str(o.message) ?? str(o.detail) ?? str(o.title) ?? str(o.error_description) ?? firstErrorMessage(o.errors) ?? fallback;
  return { message: clip(message), code: str(o.code), details: o.errors ?? o.details, requestId };
}

function firstErrorMessage(errors: unknown): string | undefined {
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const first = errors[0] as unknown;
  if (typeof first === 'string') return first;
  if (first && typeof first === 'object') {
    const f = first as Record<string, unknown>;
    const msg = str(f.message) ?? str(f.detail);
    if (msg) return str(f.field) ? `${String(f.field)}: ${msg}` : msg;
  }
  return undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > MAX_MESSAGE ? `${one.slice(0, MAX_MESSAGE - 1)}…` : one;
}

function stripHtml(s: string): string {
  if (!/^\s*</.test(s)) return s;
  const title = /<title>([^<]*)<\/title>/i.exec(s)?.[1];
  return title ?? s.replace(/<[^>]+>/g, ' ');
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};
