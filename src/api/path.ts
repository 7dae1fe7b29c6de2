import { UsageError } from '../errors.js';

/**
 * Builds an API path with every interpolated value as one encoded path segment:
 * `apiPath\`/api/v1/agents/${id}\``. An id is data, never a path fragment: a value that
 * could not stay one segment is refused before anything is sent (see checkId).
 */
export function apiPath(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    // The ids the platform makes (`ag_…`, UUIDs) are one segment as they are: one test instead of the checks and the encoding.
    const segment = typeof v === 'number' ? String(v) : PLAIN_ID.test(v) ? v : encodeSegment(checkId(v));
    out += segment + (strings[i + 1] ?? '');
  }
  return out;
}

/** An id of letters, digits, `_` and `-` only: never empty, `.` or `..`, and unchanged by encodeURIComponent. */
const PLAIN_ID = /^[A-Za-z0-9_-]+$/;

/** Characters an id never holds: C0 and C1 controls, DEL, line separators, bidi overrides and isolates. */
const CONTROL = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** Characters that end or escape a path segment, or start a query or fragment. */
const SEPARATOR = /[/\\?#]/;

/**
 * Why a value cannot be an id (one path segment), or undefined: `.`, `..` (encoded too) because URL
 * parsers resolve them; `/`, `\`, `?`, `#` because a server splits there even when encoded;
 * control characters because no id holds them and they would reach logs and terminals.
 */
export function idProblem(value: string): string | undefined {
  if (PLAIN_ID.test(value)) return undefined;
  if (value === '') return 'it is empty';
  if (value === '.' || value === '..') return `"${value}" is not an id`;
  if (SEPARATOR.test(value)) return `it contains "${SEPARATOR.exec(value)![0]}"`;
  if (CONTROL.test(value)) return 'it contains a control character';
  return undefined;
}

/** An id that stays one path segment, or a usage error (exit 2) naming the argument when known. */
export function checkId(value: string, name?: string): string {
  const problem = idProblem(value);
  if (problem === undefined) return value;
  throw new UsageError(
    // The value is shown as it is: the line it ends up in is made safe where it is printed (src/report.ts).
    `${name ? `${name} ` : ''}"${value}" is not a valid id: ${problem}`,
    'an id is one path segment: not empty, not "." or "..", without / \\ ? # or control characters',
  );
}

export function encodeSegment(value: string): string {
  return encodeURIComponent(value);
}

/** A base URL (which may itself carry a path prefix) joined with an API path and its query. */
export function apiUrl(baseUrl: string, path: string, query?: Record<string, unknown>): URL {
  const base = baseUrl.replace(/\/+$/, '');
  const url = new URL(base + (path.startsWith('/') ? path : `/${path}`));
  if (query) {
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined || v === null || v === '') continue;
      url.searchParams.set(k, String(v));
    }
  }
  return url;
}

/** Where a request goes: the origin to connect to, the path and query to ask for, and the whole URL (messages, logs). */
export interface ApiTarget {
  origin: string;
  path: string;
  href: string;
}

/** A path already in the form a URL parser leaves as it is: no dot segment, no character it would encode, no stray %. */
const PLAIN_PATH = /^(?:\/(?!\.{1,2}(?:\/|$))(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%(?![2][eE])[0-9A-Fa-f]{2})*)+$/;

/** Base URLs split once (a client asks for thousands of paths on one). */
const bases = new Map<string, { origin: string; prefix: string } | null>();

/**
 * apiUrl's origin, path and href, without parsing a URL for each request when the base is a
 * plain one (no credentials, query or fragment) and the path is already plain (apiPath makes
 * such paths) with no query: the same strings, by concatenation. Anything else is parsed.
 */
export function apiTarget(baseUrl: string, path: string, query?: Record<string, unknown>): ApiTarget {
  let base = bases.get(baseUrl);
  if (base === undefined) {
    base = plainBase(baseUrl);
    if (bases.size < 16) bases.set(baseUrl, base);
  }
  if (base && !query && PLAIN_PATH.test(path)) {
    const full = base.prefix + path;
    return { origin: base.origin, path: full, href: base.origin + full };
  }
  const url = apiUrl(baseUrl, path, query);
  return { origin: url.origin, path: url.pathname + url.search, href: url.toString() };
}

function plainBase(baseUrl: string): { origin: string; prefix: string } | null {
  let url: URL;
  try {
    url = new URL(baseUrl.replace(/\/+$/, ''));
  } catch {
    return null;
  }
  if (url.username || url.password || url.search || url.hash || baseUrl.includes('#') || baseUrl.includes('?')) return null;
  const prefix = url.pathname === '/' ? '' : url.pathname;
  // The base as the parser writes it: only then is concatenation what apiUrl gives.
  if (`${url.origin}${prefix}` !== baseUrl.replace(/\/+$/, '') || !PLAIN_PATH.test(prefix || '/x')) return null;
  return { origin: url.origin, prefix };
}
