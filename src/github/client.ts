import { createAgent, type HttpAgent, type HttpResponse } from '../api/http.js';
import { backoffDelay, parseRetryAfter, type RetryPolicy } from '../api/retry.js';

/**
 * A small client for GitHub's REST API over the same undici Agent as vap's API client: Bearer
 * token, GitHub's media type and version, a deadline per request, retries where safe, and pages
 * followed by `Link` headers. It knows nothing of comments (comment.ts) or of vap's API.
 */

type Headers = Record<string, string | string[] | undefined>;

export interface GitHubClientOptions {
  /** GITHUB_API_URL: https://api.github.com, or a GitHub Enterprise Server's https://host/api/v3. */
  apiUrl: string;
  token: string;
  userAgent: string;
  timeoutMs?: number;
  /** One line per request, response and retry (`--verbose`); never sees the token. */
  log?: (line: string) => void;
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
}

export interface GitHubResponse<T> {
  status: number;
  data: T;
  headers: Headers;
}

/** GitHub answered with an error status. `message` is GitHub's own (`Bad credentials`, `Not Found`, …). */
export class GitHubHttpError extends Error {
  readonly status: number;
  readonly method: string;
  readonly url: string;
  readonly documentationUrl?: string;
  /** `X-Accepted-GitHub-Permissions` on a 403: the permissions the endpoint needs (`issues=write; pull_requests=write`). */
  readonly acceptedPermissions?: string;
  /** A 403 or 429 of a rate limit (primary or secondary), rather than of a permission. */
  readonly rateLimited: boolean;
  /** A redirect's `Location` (3xx), made absolute against the request's URL: never followed. */
  readonly location?: string;
  constructor(status: number, method: string, url: string, body: string, headers: Headers) {
    let parsed: { message?: unknown; documentation_url?: unknown } | undefined;
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      parsed = undefined;
    }
    const message = typeof parsed?.message === 'string' && parsed.message ? parsed.message : body.trim().slice(0, 200) || `HTTP ${status}`;
    super(message);
    this.name = 'GitHubHttpError';
    this.status = status;
    this.method = method;
    this.url = url;
    this.documentationUrl = typeof parsed?.documentation_url === 'string' ? parsed.documentation_url : undefined;
    this.acceptedPermissions = header(headers, 'x-accepted-github-permissions');
    this.rateLimited = status === 429 || (status === 403 && (header(headers, 'x-ratelimit-remaining') === '0' || /rate limit/i.test(message)));
    const location = header(headers, 'location');
    if (location !== undefined) {
      try {
        this.location = new URL(location, url).toString();
      } catch {
        this.location = location;
      }
    }
  }
}

/** GitHub could not be reached (refused, reset, DNS, a deadline). */
export class GitHubConnectionError extends Error {
  readonly url: string;
  constructor(url: string, cause: unknown, timedOutMs?: number) {
    const code = (cause as { code?: string } | undefined)?.code;
    super(
      timedOutMs !== undefined
        ? `GitHub did not answer within ${timedOutMs / 1000}s (${new URL(url).origin})`
        : `could not reach GitHub at ${new URL(url).origin}${code ? ` (${code})` : ''}`,
      { cause },
    );
    this.name = 'GitHubConnectionError';
    this.url = url;
  }
}

const RETRY: RetryPolicy = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 4_000, maxRetryAfterMs: 60_000 };
/** Methods that can be sent again without doing twice what they do: a PATCH of a comment's body is one. */
const REPEATABLE = new Set(['GET', 'PATCH']);

export class GitHubClient {
  readonly apiUrl: string;
  private readonly token: string;
  private readonly userAgent: string;
  private readonly timeoutMs: number;
  private readonly log?: (line: string) => void;
  private readonly signal?: AbortSignal;
  private readonly retry: RetryPolicy;
  private agent?: Promise<HttpAgent>;

  constructor(opts: GitHubClientOptions) {
    this.apiUrl = opts.apiUrl.replace(/\/+$/, '');
    this.token = opts.token;
    this.userAgent = opts.userAgent;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.log = opts.log;
    this.signal = opts.signal;
    this.retry = { ...RETRY, ...opts.retry };
  }

  /** A JSON request to `path` (under the API URL) or to a whole URL of the API's origin (a `Link` of the next page). */
  async request<T>(method: string, pathOrUrl: string, body?: unknown): Promise<GitHubResponse<T>> {
    const url = this.url(pathOrUrl);
    const headers: Record<string, string> = {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${this.token}`,
      'user-agent': this.userAgent,
      'x-github-api-version': '2022-11-28',
    };
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    for (let attempt = 0; ; attempt++) {
      this.log?.(`> ${method} ${url} (Authorization: Bearer [redacted])`);
      const started = Date.now();
      let res: HttpResponse;
      let text: string;
      const controller = new AbortController();
      let deadlineHit = false;
      const timer = setTimeout(() => {
        deadlineHit = true;
        controller.abort();
      }, this.timeoutMs);
      const onAbort = () => controller.abort(this.signal?.reason);
      if (this.signal?.aborted) controller.abort(this.signal.reason);
      else this.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const agent = await (this.agent ??= createAgent(Math.min(this.timeoutMs, 10_000)));
        res = await agent.request({
          origin: url.origin,
          path: url.pathname + url.search,
          method,
          headers,
          body: payload,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
          signal: controller.signal,
        });
        text = await res.body.text();
      } catch (err) {
        if (this.signal?.aborted) throw err;
        const wrapped = new GitHubConnectionError(url.toString(), err, deadlineHit ? this.timeoutMs : undefined);
        this.log?.(`< ${wrapped.message} after ${Date.now() - started}ms`);
        // A request that never got an answer may have been carried out: only a repeatable one is sent again.
        if (REPEATABLE.has(method) && attempt < this.retry.maxRetries) {
          await this.wait(backoffDelay(attempt, this.retry), wrapped.message);
          continue;
        }
        throw wrapped;
      } finally {
        clearTimeout(timer);
        this.signal?.removeEventListener('abort', onAbort);
      }
      this.log?.(`< ${res.statusCode} in ${Date.now() - started}ms`);
      const resHeaders = res.headers as Headers;
      // A redirect is an error, never followed: the token would go with it, and a listing or an
      // edit answered elsewhere is not the one asked for (a renamed repository answers 301).
      if (res.statusCode >= 300 && res.statusCode < 400) throw new GitHubHttpError(res.statusCode, method, url.toString(), text, resHeaders);
      if (res.statusCode < 400) {
        let data: unknown;
        try {
          data = text.trim() === '' ? undefined : JSON.parse(text);
        } catch {
          throw new GitHubHttpError(res.statusCode, method, url.toString(), `GitHub answered ${res.statusCode} with a body that is not JSON`, {});
        }
        return { status: res.statusCode, data: data as T, headers: resHeaders };
      }
      const error = new GitHubHttpError(res.statusCode, method, url.toString(), text, resHeaders);
      // A rate limit means the request was not processed (any method may be sent again); a 5xx only for a repeatable one.
      const again = error.rateLimited || (res.statusCode >= 500 && REPEATABLE.has(method));
      if (again && attempt < this.retry.maxRetries) {
        const retryAfter = parseRetryAfter(resHeaders);
        if (retryAfter === undefined ? !error.rateLimited : retryAfter <= this.retry.maxRetryAfterMs) {
          await this.wait(retryAfter ?? backoffDelay(attempt, this.retry), `HTTP ${res.statusCode}`);
          continue;
        }
      }
      throw error;
    }
  }

  /**
   * Every page of a listing, in order: `per_page=100`, then each `rel="next"` link. A next
   * link to another origin than the API's is not followed (the token would go with it).
   */
  async *pages<T>(path: string): AsyncGenerator<T[]> {
    let next: string | undefined = `${path}${path.includes('?') ? '&' : '?'}per_page=100`;
    while (next) {
      const res: GitHubResponse<T[]> = await this.request<T[]>('GET', next);
      yield Array.isArray(res.data) ? res.data : [];
      next = nextLink(header(res.headers, 'link'));
      if (next && new URL(next).origin !== new URL(this.apiUrl).origin)
        throw new GitHubHttpError(502, 'GET', next, `GitHub's next page is on another origin (${new URL(next).origin}); not followed`, {});
    }
  }

  async close(): Promise<void> {
    if (this.agent) await (await this.agent).close();
  }

  private url(pathOrUrl: string): URL {
    if (/^https?:\/\//i.test(pathOrUrl)) return new URL(pathOrUrl);
    return new URL(`${this.apiUrl}${pathOrUrl.startsWith('/') ? '' : '/'}${pathOrUrl}`);
  }

  private async wait(ms: number, reason: string): Promise<void> {
    this.log?.(`  retrying in ${(ms / 1000).toFixed(1)}s after ${reason}`);
    const { setTimeout: sleep } = await import('node:timers/promises');
    await sleep(ms, undefined, { signal: this.signal });
  }
}

/** The `rel="next"` URL of a `Link` header (RFC 8288, as GitHub writes it). */
export function nextLink(link: string | undefined): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const m = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (m && /(^|;)\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(m[2]!)) return m[1];
  }
  return undefined;
}

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
