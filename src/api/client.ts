import { EventEmitter } from 'node:events';
import { createAgent, dispatchText, type DispatchError, type HttpAgent } from './http.js';
import { ApiError, ConnectionError, IncompleteResponseError, RequestTimeoutError } from './errors.js';
import { unwrapEnvelope } from './envelope.js';
import { apiTarget } from './path.js';
import { redactUrl } from './redact.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, isIdempotent, parseRetryAfter, shouldRetryStatus, type RetryPolicy } from './retry.js';
import type { AuthScheme } from '../spec/groups.js';
import type { ApiResponse, RequestOptions, ServerDate, StreamResponse } from './types.js';

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Receives one line per request, response and retry (`--verbose`); never sees the key. */
  log?: (line: string) => void;
  /**
   * Told the server's clock of every response that carries a `Date` header (errors and
   * streams included), as it arrives: the context keeps the presentation's "now" on it.
   */
  onServerDate?: (date: ServerDate) => void;
}

type Headers = Record<string, string | string[] | undefined>;

/** An answer as send gives it: a JSON one read whole (`text`), a stream's body left unread (`body`). */
interface Sent {
  statusCode: number;
  headers: Headers;
  text: string;
  body?: import('undici').Dispatcher.ResponseData['body'];
  serverDate?: ServerDate;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * The thin HTTP layer over undici: base URL joining, the auth header by group,
 * timeouts, retries, envelope unwrapping and typed errors. It knows the spec's
 * transport rules and nothing about rendering or prompting.
 */
export class ApiClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly userAgent: string;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly log?: (line: string) => void;
  private readonly onServerDate?: (date: ServerDate) => void;
  private agent?: Promise<HttpAgent>;

  constructor(opts: ClientOptions) {
    this.baseUrl = opts.baseUrl;
    this.apiKey = opts.apiKey;
    this.userAgent = opts.userAgent;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
    this.log = opts.log;
    this.onServerDate = opts.onServerDate;
  }

  /** The agent once made: a request then goes out without waiting on a promise first (thousands of requests a plan). */
  private ready?: HttpAgent;

  private dispatcher(): Promise<HttpAgent> {
    return (this.agent ??= createAgent(Math.min(this.timeoutMs, 10_000)).then((a) => (this.ready = a)));
  }

  /**
   * A JSON request; the envelope is unwrapped to `{ data, pagination, requestId }`. The body
   * is read inside the retry loop: a response cut off in the middle of its body is a
   * connection error, retried for idempotent methods like any other.
   */
  async request<T>(opts: RequestOptions): Promise<ApiResponse<T>> {
    const res = await this.send(opts, false);
    const { text, serverDate } = res;
    const requestId = first(res.headers['x-request-id']);
    if (res.statusCode === 204 || text.trim() === '') {
      return { data: undefined as T, status: res.statusCode, requestId, ...(serverDate ? { serverDate } : {}), headers: res.headers as Headers };
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ApiError(res.statusCode, `the server answered ${res.statusCode} with a body that is not JSON`, { requestId, body: text.slice(0, 200) });
    }
    // The envelope's result, completed in place (a fresh object: no copy of it for each of thousands of answers).
    const out = unwrapEnvelope<T>(body, opts.envelope ?? 'auto', res.statusCode, requestId);
    if (serverDate) out.serverDate = serverDate;
    out.headers = res.headers as Headers;
    return out;
  }

  /** A request whose body is streamed back as is (audio, server-sent events). */
  async stream(opts: RequestOptions & { accept?: string }): Promise<StreamResponse> {
    const res = await this.send(opts, true);
    return {
      status: res.statusCode,
      headers: res.headers as Headers,
      contentType: first(res.headers['content-type']),
      requestId: first(res.headers['x-request-id']),
      ...(res.serverDate ? { serverDate: res.serverDate } : {}),
      body: res.body as unknown as StreamResponse['body'],
    };
  }

  async close(): Promise<void> {
    if (this.agent) await (await this.agent).close();
  }

  /** The headers of a request without a body, made once per auth scheme and accept (thousands of requests a plan; never changed once made). */
  private readonly headerSets = new Map<string, Readonly<Record<string, string>>>();
  /** The same for JSON, the accept of nearly every request, found by scheme alone (no key made). */
  private readonly jsonHeaders: Partial<Record<AuthScheme, Record<string, string>>> = {};

  private headersFor(scheme: AuthScheme, accept?: string): Record<string, string> {
    if (accept === undefined) return (this.jsonHeaders[scheme] ??= this.headersFor(scheme, 'application/json'));
    const key = `${scheme} ${accept}`;
    let h = this.headerSets.get(key);
    if (!h) {
      h = Object.freeze({
        'user-agent': this.userAgent,
        accept,
        ...(scheme === 'bearer' ? { authorization: `Bearer ${this.apiKey}` } : { 'x-api-key': this.apiKey }),
      });
      this.headerSets.set(key, h);
    }
    return h as Record<string, string>;
  }

  /**
   * Sends with retries; returns a 2xx response, or throws. A JSON body is read whole within the
   * attempt (http.ts dispatchText), so that a body cut off by the connection is retried; a
   * streaming body is left unread.
   */
  private async send(opts: RequestOptions & { accept?: string }, streaming: boolean): Promise<Sent> {
    const { origin, path, href } = apiTarget(this.baseUrl, opts.path, opts.query);
    let headers: Record<string, string>;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers = { ...this.headersFor(opts.auth, opts.accept), 'content-type': 'application/json' };
    } else {
      headers = this.headersFor(opts.auth, opts.accept);
    }
    const timeout = opts.timeoutMs ?? this.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      const started = Date.now();
      this.log?.(`> ${opts.method} ${redactUrl(href)}${opts.auth === 'bearer' ? ' (Authorization: Bearer [redacted])' : ' (x-api-key: [redacted])'}`);
      let res: Sent;
      // The headers (and a JSON body) must arrive within the timeout. undici's own timers are cheaper
      // than a controller and a timer per request but fire up to a second late, so a deadline under
      // a second gets a timer of vap's own (ShortDeadline).
      const own = timeout < UNDICI_DEADLINE_MIN_MS ? new ShortDeadline(timeout, opts.signal) : undefined;
      const stop = abortEmitterOf(own ? own.signal : opts.signal);
      try {
        const agent = this.ready ?? (await this.dispatcher());
        const request = { origin, path, method: opts.method, headers, body, headersTimeout: timeout, bodyTimeout: streaming ? 0 : timeout };
        if (streaming) {
          const r = await agent.request({ ...request, signal: stop });
          if (own) {
            if (r.body.destroyed || r.body.readableEnded) own.unlink();
            else r.body.once('close', own.unlink);
          }
          res = { statusCode: r.statusCode, headers: r.headers as Headers, text: '', body: r.body };
        } else {
          res = await dispatchText(agent, request, stop);
          own?.unlink();
        }
      } catch (err) {
        own?.unlink();
        if (opts.signal?.aborted) throw err;
        const code = (err as { code?: string }).code;
        const timedOut = own?.hit === true || (code !== undefined && TIMEOUT_CODES.has(code));
        const partial = (err as DispatchError).afterHeaders;
        if (partial && partial.statusCode >= 400) {
          // An error status whose body was cut off: the status says what went wrong.
          res = { statusCode: partial.statusCode, headers: partial.headers, text: '' };
        } else {
          const wrapped = timedOut
            ? new RequestTimeoutError(href, timeout, err)
            : partial
              ? new IncompleteResponseError(href, err, opts.method, isIdempotent(opts.method))
              : new ConnectionError(href, err);
          this.log?.(`< ${wrapped.message} after ${ms(started)}`);
          if (isIdempotent(opts.method) && attempt < this.retry.maxRetries) {
            await this.wait(backoffDelay(attempt, this.retry), attempt, wrapped.message, opts.signal);
            continue;
          }
          throw wrapped;
        }
      } finally {
        own?.clear();
      }
      const serverDate = dateOf(res.headers, Date.now());
      if (serverDate) {
        res.serverDate = serverDate;
        this.onServerDate?.(serverDate);
      }
      const requestId = first(res.headers['x-request-id']);
      this.log?.(`< ${res.statusCode} in ${ms(started)}${requestId ? ` (request id ${requestId})` : ''}`);
      if (res.statusCode < 400) return res;
      const text = res.body ? await res.body.text().catch(() => '') : res.text;
      const error = ApiError.fromResponse(res.statusCode, text, res.headers);
      if (shouldRetryStatus(opts.method, res.statusCode) && attempt < this.retry.maxRetries) {
        const retryAfter = parseRetryAfter(res.headers);
        if (retryAfter === undefined || retryAfter <= this.retry.maxRetryAfterMs) {
          await this.wait(retryAfter ?? backoffDelay(attempt, this.retry), attempt, `HTTP ${res.statusCode}`, opts.signal);
          continue;
        }
      }
      throw error;
    }
  }

  private async wait(delayMs: number, attempt: number, reason: string, signal?: AbortSignal): Promise<void> {
    this.log?.(`  retrying in ${(delayMs / 1000).toFixed(1)}s after ${reason} (retry ${attempt + 1} of ${this.retry.maxRetries})`);
    // node:timers/promises is loaded on the first retry only (a command that needs none skips it).
    const { setTimeout: sleep } = await import('node:timers/promises');
    await sleep(delayMs, undefined, { signal });
  }
}

/**
 * The caller's signal as undici is given it: an EventEmitter that says `abort` when the signal
 * does. An AbortSignal's listeners are costly to add and remove for each of the thousands of
 * requests a plan sends; an emitter's cost next to nothing. One per signal.
 */
class AbortEmitter extends EventEmitter {
  constructor(private readonly signal: AbortSignal) {
    super();
    this.setMaxListeners(0);
    signal.addEventListener('abort', () => this.emit('abort'), { once: true });
  }

  get aborted(): boolean {
    return this.signal.aborted;
  }

  get reason(): unknown {
    return this.signal.reason;
  }
}

const abortEmitters = new WeakMap<AbortSignal, AbortEmitter>();

function abortEmitterOf(signal: AbortSignal | undefined): AbortEmitter | undefined {
  if (!signal) return undefined;
  let e = abortEmitters.get(signal);
  if (!e) {
    e = new AbortEmitter(signal);
    abortEmitters.set(signal, e);
  }
  return e;
}

/** Deadlines this long or longer are kept by undici's own timers (precise below a second, to within a second above). */
const UNDICI_DEADLINE_MIN_MS = 1_000;

/**
 * A deadline shorter than a second on a timer of vap's own, one controller for it and the
 * caller's signal: not AbortSignal.any, whose signals Node 20 never frees (a leak per request).
 * The caller's signal is unlinked once the response body is done with.
 */
class ShortDeadline {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  hit = false;
  readonly unlink: () => void;

  constructor(timeoutMs: number, caller: AbortSignal | undefined) {
    this.timer = setTimeout(() => {
      this.hit = true;
      this.controller.abort();
    }, timeoutMs);
    const onCallerAbort = () => this.controller.abort(caller?.reason);
    if (caller?.aborted) this.controller.abort(caller.reason);
    else caller?.addEventListener('abort', onCallerAbort, { once: true });
    this.unlink = () => caller?.removeEventListener('abort', onCallerAbort);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/** The `Date` header as a reading of the server's clock; none when it is missing or not a date. */
function dateOf(headers: Headers, receivedAtMs: number): ServerDate | undefined {
  const raw = first(headers.date);
  if (!raw) return undefined;
  const serverMs = parseDate(raw);
  return Number.isFinite(serverMs) ? { serverMs, receivedAtMs } : undefined;
}

/** The header changes once a second: the thousands of responses of a plan parse it once each second. */
let lastDate: { raw: string; ms: number } = { raw: '', ms: NaN };

function parseDate(raw: string): number {
  if (raw !== lastDate.raw) lastDate = { raw, ms: Date.parse(raw) };
  return lastDate.ms;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function ms(started: number): string {
  return `${Date.now() - started}ms`;
}
