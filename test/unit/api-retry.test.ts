import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY_POLICY, isIdempotent, parseRetryAfter, shouldRetryStatus } from '../../src/api/retry.js';
import { apiPath, joinUrl } from '../../src/api/path.js';

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
    expect(apiPath`/api/v1/agents/${'../admin'}`).toBe('/api/v1/agents/..%2Fadmin');
    expect(apiPath`/api/v1/agents/${'..'}/voice`).toBe('/api/v1/agents/%2E%2E/voice');
    expect(apiPath`/api/v1/agents/${'a b?c#d'}`).toBe('/api/v1/agents/a%20b%3Fc%23d');
  });

  it('joins a base URL with or without a path prefix and a trailing slash', () => {
    expect(joinUrl('http://h:1/', '/api/v1/agents')).toBe('http://h:1/api/v1/agents');
    expect(joinUrl('https://h/prefix/', '/api/v1/agents', { page: 2, search: undefined, q: '' })).toBe('https://h/prefix/api/v1/agents?page=2');
  });
});
