/**
 * Builds an API path with every interpolated value encoded as one path segment:
 * `apiPath\`/api/v1/agents/${id}\``. An id is data, never a path fragment:
 * `../x` becomes `..%2Fx`, and a bare `.` or `..` is encoded too.
 */
export function apiPath(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += encodeSegment(String(v)) + (strings[i + 1] ?? '');
  });
  return out;
}

export function encodeSegment(value: string): string {
  if (value === '.' || value === '..') return value.replace(/\./g, '%2E');
  return encodeURIComponent(value);
}

/** Joins a base URL (which may itself carry a path prefix) and an API path. */
export function joinUrl(baseUrl: string, path: string, query?: Record<string, unknown>): string {
  const base = baseUrl.replace(/\/+$/, '');
  const url = new URL(base + (path.startsWith('/') ? path : `/${path}`));
  if (query) {
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined || v === null || v === '') continue;
      url.searchParams.set(k, String(v));
    }
  }
  return url.toString();
}
