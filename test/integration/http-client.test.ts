import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { ApiError, AuthenticationError, ConnectionError, InternalServerError, RequestTimeoutError } from '../../src/api/errors.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
const logs: string[] = [];
const client = (opts: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) =>
  new ApiClient({
    baseUrl: emu.url,
    apiKey: ORG_A.apiKey,
    userAgent: 'vap/test',
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    log: (l) => logs.push(l),
    ...opts,
  });

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  logs.length = 0;
  await emu.control('DELETE', '/faults');
  await emu.clearRequests();
});

describe('ApiClient against the emulator', () => {
  it('sends the bearer header and User-Agent, unwraps the envelope and keeps the request id', async () => {
    const api = client();
    const res = await api.request<{ agents: unknown[] }>({ method: 'GET', path: '/api/v1/agents', auth: 'bearer' });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.data.agents)).toBe(true);
    expect(res.requestId).toMatch(/^req_/);
    const [req] = await emu.requests();
    expect(req).toMatchObject({ method: 'GET', path: '/api/v1/agents', auth: 'bearer', userAgent: 'vap/test' });
    await api.close();
  });

  it('sends x-api-key to document 2 endpoints', async () => {
    const api = client();
    await api.request({ method: 'GET', path: '/api/v1/contact-lists', auth: 'x-api-key' }).catch(() => undefined);
    expect((await emu.requests())[0]).toMatchObject({ auth: 'x-api-key' });
    await api.close();
  });

  it('retries a GET on 503 with backoff, then succeeds', async () => {
    await emu.fault({ method: 'GET', path: '/api/v1/agents', status: 503, count: 2 });
    const api = client();
    const res = await api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer' });
    expect(res.status).toBe(200);
    expect((await emu.requests()).map((r) => r.status)).toEqual([503, 503, 200]);
    expect(logs.filter((l) => l.includes('retrying'))).toHaveLength(2);
    await api.close();
  });

  it('honours Retry-After on 429, also for a POST', async () => {
    await emu.fault({ method: 'POST', path: '/api/v1/agents', status: 429, count: 1, retryAfter: 1 });
    const api = client();
    const res = await api.request({ method: 'POST', path: '/api/v1/agents', auth: 'bearer', body: { name: 'R', instructions: 'Hi', engine: 'realtime' } });
    expect(res.status).toBe(201);
    expect(logs.some((l) => l.includes('retrying in 1.0s'))).toBe(true);
    expect((await emu.requests()).map((r) => r.status)).toEqual([429, 201]);
    await api.close();
  });

  it('never retries a POST that got a 5xx (it could create a duplicate)', async () => {
    await emu.fault({ method: 'POST', path: '/api/v1/agents', status: 500, count: 3 });
    const api = client();
    await expect(
      api.request({ method: 'POST', path: '/api/v1/agents', auth: 'bearer', body: { name: 'X', instructions: 'Hi', engine: 'realtime' } }),
    ).rejects.toBeInstanceOf(InternalServerError);
    expect((await emu.requests()).filter((r) => r.method === 'POST')).toHaveLength(1);
    await api.close();
  });

  it('gives up after the retry budget with the last typed error', async () => {
    await emu.fault({ method: 'GET', path: '/api/v1/agents', status: 502, count: 10 });
    const api = client({ retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    const err = await api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer' }).catch((e) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err.status).toBe(502);
    expect(err.requestId).toMatch(/^req_/);
    expect(await emu.requests()).toHaveLength(3);
    await api.close();
  });

  it('retries a GET whose connection was dropped', async () => {
    await emu.fault({ method: 'GET', path: '/api/v1/agents', drop: true, count: 1 });
    const api = client();
    const res = await api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer' });
    expect(res.status).toBe(200);
    await api.close();
  });

  it('times out a slow response', async () => {
    await emu.fault({ method: 'GET', path: '/api/v1/agents', delayMs: 500, count: 5 });
    const api = client({ timeoutMs: 100, retry: { maxRetries: 0 } });
    await expect(api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer' })).rejects.toBeInstanceOf(RequestTimeoutError);
    await api.close();
  });

  it('times out a slow response under a deadline of a second or more (kept by undici)', async () => {
    await emu.fault({ method: 'GET', path: '/api/v1/agents', delayMs: 4000, count: 5 });
    const api = client({ timeoutMs: 1000, retry: { maxRetries: 0 } });
    // The answer comes after 4 s: a timeout error, not the answer, is the deadline kept.
    await expect(api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer' })).rejects.toBeInstanceOf(RequestTimeoutError);
    await api.close();
  });

  it("the caller's signal stops a request in flight under a long deadline, and gains no listener per request", async () => {
    await emu.fault({ method: 'GET', path: '/api/v1/agents', delayMs: 2000, count: 1 });
    const api = client({ retry: { maxRetries: 0 } });
    const stop = new AbortController();
    const pending = api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer', signal: stop.signal }).catch((e) => e);
    setTimeout(() => stop.abort(new Error('stopped')), 100);
    // The answer comes after 2 s, the signal at 0.1 s: an error, not the answer, is the request stopped.
    const stopped = await pending;
    expect(stopped).toBeInstanceOf(Error);
    expect(stopped).not.toBeInstanceOf(RequestTimeoutError);

    // One listener on the signal, whatever the number of requests (undici is given an emitter
    // that follows the signal, and each request's listener on it is removed with the response).
    const kept = new AbortController();
    await api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer', signal: kept.signal });
    for (let i = 0; i < 20; i++) await api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer', signal: kept.signal });
    await new Promise((resolve) => setImmediate(resolve)); // the last body's close
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(1);
    // And it still stops the next request in flight.
    await emu.fault({ method: 'GET', path: '/api/v1/agents', delayMs: 2000, count: 1 });
    const late = api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer', signal: kept.signal }).catch((e) => e);
    setTimeout(() => kept.abort(new Error('stopped later')), 100);
    expect(await late).toMatchObject({ message: 'stopped later' });
    await api.close();
  });

  it('401 is an AuthenticationError with the server message and request id', async () => {
    const api = client({ apiKey: 'wrong' });
    const err = await api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer' }).catch((e) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.message).toBe('invalid API key');
    expect(err.requestId).toMatch(/^req_/);
    await api.close();
  });

  it('an unreachable host is a ConnectionError after retries', async () => {
    const api = client({ baseUrl: 'http://127.0.0.1:1', retry: { maxRetries: 1, baseDelayMs: 1 } });
    const err = await api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer' }).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toContain('could not reach http://127.0.0.1:1');
    await api.close();
  });

  it('a 404 for an unknown route is a typed error carrying the JSON envelope message', async () => {
    const api = client();
    const err = await api.request({ method: 'GET', path: '/api/v1/nope', auth: 'bearer' }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(404);
    expect(err.message).toBe('no route GET /api/v1/nope');
    await api.close();
  });

  it('never logs the key', async () => {
    const api = client({ apiKey: 'key_acme_test' });
    await api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer' });
    expect(logs.join('\n')).not.toContain('key_acme_test');
    expect(logs[0]).toContain('[redacted]');
    await api.close();
  });
});
