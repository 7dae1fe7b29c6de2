// A JSON answer is read whole through undici's dispatch with vap's own handler (src/api/http.ts
// dispatchText): what request() and body.text() gave — a body in many chunks joined, a UTF-8
// BOM left out, an informational answer (103) passed over, the headers parsed — and an error
// status whose body is cut off is still the error its status says; a stop in the middle of a
// body stops it. Against a plain HTTP server on a random port.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const json = (status: number, body: string, extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_1', ...extra });
      res.end(body);
    };
    if (req.url === '/bom') return json(200, '\ufeff{"data":{"ok":true}}');
    if (req.url === '/chunks') {
      res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] });
      const text = JSON.stringify({ data: { text: 'é'.repeat(50_000) } });
      const bytes = Buffer.from(text);
      // Split inside a two-byte character too.
      for (let i = 0; i < bytes.length; i += 4097) res.write(bytes.subarray(i, i + 4097));
      return res.end();
    }
    if (req.url === '/early') {
      res.writeEarlyHints({ link: '</x>; rel=preload' });
      return json(200, '{"data":{"late":1}}');
    }
    if (req.url === '/cut-error') {
      res.writeHead(500, { 'content-type': 'application/json', 'content-length': '200' });
      res.write('{"error":{"code":"boom"');
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    if (req.url === '/slow-body') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"data":');
      return; // the rest never comes
    }
    json(404, '{"error":{"code":"not_found","message":"no route"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = () => new ApiClient({ baseUrl: base, apiKey: 'k', userAgent: 'vap/test', retry: { maxRetries: 0 } });

describe('a JSON answer read whole', () => {
  it('leaves out a UTF-8 BOM, and keeps the request id and the headers', async () => {
    const api = client();
    const r = await api.request<{ ok: boolean }>({ method: 'GET', path: '/bom', auth: 'bearer' });
    expect(r).toMatchObject({ data: { ok: true }, status: 200, requestId: 'req_1' });
    expect(r.headers?.['content-type']).toBe('application/json');
    await api.close();
  });

  it('joins a body that comes in many chunks (a character split between two), and parses repeated headers as undici does', async () => {
    const api = client();
    const r = await api.request<{ text: string }>({ method: 'GET', path: '/chunks', auth: 'bearer' });
    expect(r.data.text).toBe('é'.repeat(50_000));
    expect(r.headers?.['set-cookie']).toEqual(['a=1', 'b=2']);
    await api.close();
  });

  it('passes over an informational answer', async () => {
    const api = client();
    expect((await api.request<{ late: number }>({ method: 'GET', path: '/early', auth: 'bearer' })).data).toEqual({ late: 1 });
    await api.close();
  });

  it('says what an error status says, also when its body is cut off', async () => {
    const api = client();
    const err = await api.request({ method: 'GET', path: '/cut-error', auth: 'bearer' }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(500);
    const missing = await api.request({ method: 'GET', path: '/nowhere', auth: 'bearer' }).catch((e) => e);
    expect(missing).toMatchObject({ status: 404, message: 'no route' });
    await api.close();
  });

  it('stops in the middle of a body when the caller says so', async () => {
    const api = client();
    const stop = new AbortController();
    const pending = api.request({ method: 'GET', path: '/slow-body', auth: 'bearer', signal: stop.signal }).catch((e) => e);
    setTimeout(() => stop.abort(new Error('stopped mid-body')), 100);
    expect(await pending).toMatchObject({ message: 'stopped mid-body' });
    await api.close();
  });
});
