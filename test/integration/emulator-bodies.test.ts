import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// Clients that send `content-type: application/json` on every request, body or not: the
// emulator reads an empty JSON body as `{}` (a body-less POST or DELETE works), and a body
// that is not JSON is one 400 `invalid_body` naming why.

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ timeScale: 1000 });
});
afterAll(async () => {
  await emu.close();
});

async function send(method: string, path: string, raw: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${emu.url}${path}`, { method, headers: { authorization: `Bearer ${ORG_A.apiKey}`, 'content-type': 'application/json' }, body: raw });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe('JSON bodies', () => {
  it('an empty body with content-type: application/json on a body-less POST and DELETE', async () => {
    const agent = (await emu.api<{ data: { id: string } }>('POST', '/api/v1/agents', { name: 'Bodies', instructions: 'Greet callers.', engine: 'realtime' }))
      .body.data.id;
    const suite = (await emu.api<{ data: { id: string } }>('POST', `/api/v1/agents/${agent}/evals`, { name: 'S' })).body.data.id;
    await emu.api('POST', `/api/v1/agents/${agent}/evals/${suite}/scenarios`, { name: 'A', persona: 'p', goal: 'g', category: 'happy_path' });
    const run = await send('POST', `/api/v1/agents/${agent}/evals/${suite}/runs`, '');
    expect(run.status).toBe(201);
    expect(run.body.data).toMatchObject({ status: 'pending' });
    const del = await send('DELETE', `/api/v1/agents/${agent}/evals/${suite}/runs/${run.body.data.id}`, '');
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ deleted: true });
  });

  it('an empty body where one is required is a validation error naming the field, not a parse error', async () => {
    const r = await send('POST', '/api/v1/agents', '');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.message).toMatch(/name/);
  });

  it('a body that is not JSON: 400 invalid_body saying why, with the request id', async () => {
    const r = await send('POST', '/api/v1/agents', '{"name": ');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_body');
    expect(r.body.error.message).toMatch(/^the body is not valid JSON: /);
    expect(r.body.meta.requestId).toMatch(/^req_/);
  });

  it('a bad page parameter names it in details', async () => {
    const r = await emu.api('GET', '/api/v1/agents?page=0');
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([{ field: 'page', message: expect.stringMatching(/integer/) }]);
  });
});
