import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY_POLICY, isIdempotent, parseRetryAfter, shouldRetryStatus } from '../../src/api/retry.js';
import fc from 'fast-check';
import { apiPath, apiTarget, apiUrl, checkId, idProblem } from '../../src/api/path.js';
import { UsageError } from '../../src/errors.js';

describe('retry policy', () => {
  it('retries 429 for every method, 5xx and 408 only for idempotent ones', () => {
    expect(shouldRetryStatus('POST', 429)).toBe(true);
    expect(shouldRetryStatus('POST', 500)).toBe(false);
    expect(shouldRetryStatus('POST', 503)).toBe(false);
    expect(shouldRetryStatus('PATCH', 502)).toBe(false);
    expect(shouldRetryStatus('GET', 503)).toBe(true);
    expect(shouldRetryStatus('PUT', 500)).toBe(true);
    expect(shouldRetryStatus('DELETE', 408)).toBe(true);
    expect(shouldRetryStatus('GET', 404)).toBe(false);
    expect(shouldRetryStatus('GET', 400)).toBe(false);
    expect(isIdempotent('get')).toBe(true);
  });

  it('parses Retry-After as seconds, an HTTP date, or retry-after-ms', () => {
    expect(parseRetryAfter({ 'retry-after': '3' })).toBe(3000);
    expect(parseRetryAfter({ 'retry-after': '0.5' })).toBe(500);
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }, now)).toBe(5000);
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined();
    expect(parseRetryAfter({})).toBeUndefined();
  });

  it('backs off exponentially, capped, with at most 25% jitter', () => {
    const p = DEFAULT_RETRY_POLICY;
    expect(backoffDelay(0, p, () => 0)).toBe(500);
    expect(backoffDelay(1, p, () => 0)).toBe(1000);
    expect(backoffDelay(2, p, () => 0)).toBe(2000);
    expect(backoffDelay(10, p, () => 0)).toBe(p.maxDelayMs);
    expect(backoffDelay(1, p, () => 0.999)).toBeGreaterThanOrEqual(750);
  });
});

describe('paths', () => {
  it('encodes every id as one segment', () => {
    expect(apiPath`/api/v1/agents/${'a b%c'}/voice`).toBe('/api/v1/agents/a%20b%25c/voice');
    expect(apiPath`/api/v1/agents/${'José'}`).toBe('/api/v1/agents/Jos%C3%A9');
    expect(apiPath`/api/v1/agents/${'ag_1'}/versions/${3}`).toBe('/api/v1/agents/ag_1/versions/3');
  });

  it('gives every id the segment (or the refusal) the checks and encodeURIComponent give it', () => {
    const slow = (id: string) => {
      try {
        return `/a/${encodeURIComponent(checkId(id))}/b`;
      } catch (e) {
        return `refused: ${(e as Error).message}`;
      }
    };
    const fast = (id: string) => {
      try {
        return apiPath`/a/${id}/b`;
      } catch (e) {
        return `refused: ${(e as Error).message}`;
      }
    };
    const idChars = fc.constantFrom(...'ab_-.Z09/\\?#% é\n\u202e'.split(''));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: idChars }), fc.stringMatching(/^[A-Za-z0-9_-]{0,30}$/)), (id) => fast(id) === slow(id)),
      { numRuns: 2000 },
    );
  });

  it('refuses, as a usage error, an id that could not stay one segment', () => {
    for (const id of ['', '.', '..', '../admin', 'a/b', 'a\\b', 'a?b', 'a#b', 'a\nb', 'a\x1b[2Jb', 'a\x7fb', 'a\u009bb', 'a\u202eb']) {
      let err: unknown;
      try {
        apiPath`/api/v1/campaigns/c1/contacts/${id}`;
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(id)).toBeInstanceOf(UsageError);
      expect((err as UsageError).exitCode).toBe(2);
    }
    expect(() => checkId('..', '<contactId...>')).toThrow(/^<contactId\.\.\.> "\.\." is not a valid id/);
    expect(idProblem('ag_ok-1.2')).toBeUndefined();
  });

  it('joins a base URL with or without a path prefix and a trailing slash', () => {
    expect(apiTarget('http://h:1/', '/api/v1/agents').href).toBe('http://h:1/api/v1/agents');
    expect(apiTarget('https://h/prefix/', '/api/v1/agents', { page: 2, search: undefined, q: '' }).href).toBe('https://h/prefix/api/v1/agents?page=2');
  });

  it("gives a request's origin, path and URL as a parsed URL does, for any base and path", () => {
    const bases = [
      'http://127.0.0.1:4010',
      'http://127.0.0.1:4010/',
      'https://api.example.com',
      'http://h:8080/prefix',
      'http://h:8080/prefix/',
      'http://user:pw@h',
      'HTTP://H.example',
      'http://h:80',
      'http://h/p?x=1',
      'http://h/a%2e%2e',
      'http://h/a b',
    ];
    const segment = fc.oneof(
      fc.constantFrom('agents', 'ag_1', '.', '..', '%2e%2E', '%2E', 'a b', 'ü', 'a\\b', 'a?b', 'a#b', '%', '%zz', '%41', "!$&'()*+,;=:@", '~-._', ''),
      fc.string(),
    );
    const path = fc.oneof(
      fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`),
      fc.string().map((id) => (idProblem(id) ? '/api/v1/agents' : apiPath`/api/v1/agents/${id}/tools`)),
    );
    const query = fc.option(fc.dictionary(fc.constantFrom('page', 'search', 'q'), fc.oneof(fc.string(), fc.integer(), fc.constant(undefined))), {
      nil: undefined,
    });
    fc.assert(
      fc.property(fc.constantFrom(...bases), path, query, (base, p, q) => {
        let url: URL;
        try {
          url = apiUrl(base, p, q);
        } catch {
          expect(() => apiTarget(base, p, q)).toThrow();
          return;
        }
        expect(apiTarget(base, p, q)).toEqual({ origin: url.origin, path: url.pathname + url.search, href: url.toString() });
      }),
      { numRuns: 5000 },
    );
  });
});
