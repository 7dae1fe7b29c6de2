import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSchemeFor } from '../../src/spec/groups.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// The emulator's own contract at its edges: a field named like an Object.prototype member
// is refused as any unknown field is; a malformed path, a body that is not JSON and any
// framework-level error get the one error envelope; the control path refuses absurdly
// nested event data (which would stall every replay).

let emu: TestEmulator;
const ids: Record<string, string> = {};

beforeAll(async () => {
  emu = await startTestEmulator({ timeScale: 1000 });
  const must = async (method: string, path: string, body?: unknown) => {
    const r = await emu.api(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  ids.agent = (await must('POST', '/api/v1/agents', { name: 'Edges', instructions: 'Greet callers.', engine: 'realtime' })).data.id;
  ids.suite = (await must('POST', `/api/v1/agents/${ids.agent}/evals`, { name: 'S' })).data.id;
  ids.list = (
    await must('POST', '/api/v1/contact-lists', {
      name: 'L',
      schema: {
        fields: [
          { name: 'name', type: 'string' },
          { name: 'phone', type: 'phone' },
        ],
      },
    })
  ).data.id;
  ids.campaign = (await must('POST', '/api/v1/campaigns', { name: 'C', direction: 'outbound', contactListId: ids.list, agentId: ids.agent })).data.id;
  ids.api = (await must('POST', '/api/v1/campaigns', { name: 'API', type: 'api', agentId: ids.agent })).data.id;
  ids.endpoint = (await must('POST', '/api/v1/webhook-endpoints', { name: 'h', url: 'https://93.184.216.34/h', events: ['call.ended'] })).data.id;
  const tools = await emu.control<{ orgs: Array<{ tools: Array<{ id: string }> }> }>('GET', '/tools?org=acme');
  ids.tool = tools.orgs[0]!.tools[0]!.id;
  ids.voice = (await must('GET', '/api/v1/voices')).data.voices[0].id;
  const center = (await must('GET', `/api/v1/agents/${ids.agent}/evals/${ids.suite}/imports/sources`)).data.callCenters[0];
  const calls = (await must('GET', `/api/v1/agents/${ids.agent}/evals/${ids.suite}/imports/candidates?sourceType=call_center&sourceId=${center.id}&pageSize=3`))
    .data.calls;
  ids.import = (
    await must('POST', `/api/v1/agents/${ids.agent}/evals/${ids.suite}/imports`, {
      sourceType: 'call_center',
      sourceId: center.id,
      callIds: calls.map((c: { id: string }) => c.id),
    })
  ).data.id;
});
afterAll(async () => {
  await emu.close();
});

/** Raw text to the API with the path's header form and a JSON content type. */
async function raw(method: string, path: string, text: string | undefined, contentType = 'application/json'): Promise<{ status: number; body: any }> {
  const auth: Record<string, string> = authSchemeFor(path) === 'bearer' ? { authorization: `Bearer ${ORG_A.apiKey}` } : { 'x-api-key': ORG_A.apiKey };
  const res = await fetch(`${emu.url}${path}`, { method, headers: { ...auth, ...(text === undefined ? {} : { 'content-type': contentType }) }, body: text });
  const t = await res.text();
  return { status: res.status, body: t ? JSON.parse(t) : undefined };
}

// Every endpoint that takes a body, with a body it accepts.
const ENDPOINTS: Array<[string, string, () => Record<string, unknown>]> = [
  ['POST', '/api/v1/agents', () => ({ name: 'n', instructions: 'i', engine: 'realtime' })],
  ['PATCH', '/api/v1/agents/:agent', () => ({ name: 'renamed' })],
  ['PUT', '/api/v1/agents/:agent/tools', () => ({ toolIds: [ids.tool!] })],
  ['PUT', '/api/v1/agents/:agent/voice', () => ({ voiceId: ids.voice! })],
  ['POST', '/api/v1/agents/:agent/rollback', () => ({ version: 1 })],
  ['POST', '/api/v1/agents/:agent/evals', () => ({ name: 's' })],
  ['PATCH', '/api/v1/agents/:agent/evals/:suite', () => ({ name: 's2' })],
  ['POST', '/api/v1/agents/:agent/evals/:suite/scenarios', () => ({ name: 'a', persona: 'p', goal: 'g', category: 'happy_path' })],
  ['POST', '/api/v1/agents/:agent/evals/:suite/imports/:import/triage', () => ({ batchSize: 2 })],
  ['POST', '/api/v1/agents/:agent/evals/:suite/imports/:import/scenarios', () => ({ callIds: ['x'] })],
  ['POST', '/api/v1/webhook-endpoints', () => ({ name: 'h', url: 'https://93.184.216.34/h', events: ['call.ended'] })],
  ['PATCH', '/api/v1/webhook-endpoints/:endpoint', () => ({ name: 'h2' })],
  ['POST', '/api/v1/contact-lists', () => ({ name: 'l', schema: { fields: [{ name: 'name', type: 'string' }] } })],
  ['PATCH', '/api/v1/contact-lists/:list/schema', () => ({ fields: [{ name: 'extra', type: 'string' }] })],
  ['POST', '/api/v1/contact-lists/:list/contacts', () => ({ contacts: [{ name: 'a', phone: '+14155550100' }] })],
  ['POST', '/api/v1/campaigns', () => ({ name: 'c', direction: 'outbound', contactListId: ids.list!, agentId: ids.agent! })],
  ['PATCH', '/api/v1/campaigns/:campaign', () => ({ name: 'c2' })],
  ['POST', '/api/v1/campaigns/:campaign/contacts', () => ({ contactIds: ['ct_none'] })],
  ['POST', '/api/v1/campaigns/:campaign/calls', () => ({ queueAllPending: true })],
  ['POST', '/api/v1/campaigns/:api/trigger', () => ({ phoneNumber: '+14155550100' })],
];

const path = (p: string) => p.replace(/:(\w+)/g, (_, k: string) => ids[k]!);

describe('a body field named like an Object.prototype member', () => {
  it.each(ENDPOINTS)('%s %s: refused like any unknown field, naming it', async (method, p, body) => {
    const unknown = await raw(method, path(p), JSON.stringify({ ...body(), bogusField: 1 }));
    expect(unknown.status).toBe(400);
    for (const name of ['toString', 'constructor', 'hasOwnProperty', '__proto__']) {
      // __proto__ as a key of the JSON text (an object literal would set the prototype instead)
      const text = `${JSON.stringify(body()).slice(0, -1)},"${name}":{"polluted":true}}`;
      const r = await raw(method, path(p), text);
      expect(r.status, name).toBe(400);
      expect(r.body.error.code, name).toBe(unknown.body.error.code);
      expect(r.body.error.message, name).toContain(name);
      expect(r.body.error.message, name).not.toMatch(/function|native code|\[object/);
      expect(r.body.meta.requestId).toMatch(/^req_/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('errors the framework raises', () => {
  it('a malformed percent-encoding in the path: 400 in the one envelope', async () => {
    for (const p of ['/api/v1/agents/%E0%A4%A', '/api/v1/agents/%zz', '/api/v1/calls/%']) {
      const r = await raw('GET', p, undefined);
      expect(r.status, p).toBe(400);
      expect(r.body.error.code, p).toBe('invalid_path');
      expect(r.body.error.message, p).toMatch(/malformed percent-encoding/);
      expect(r.body.meta.requestId).toMatch(/^req_/);
    }
  });

  it('a body that is not JSON, sent to a JSON endpoint: 415 naming application/json', async () => {
    for (const [type, text] of [
      ['text/plain', 'name=x'],
      ['application/x-www-form-urlencoded', 'name=x&engine=realtime'],
      ['multipart/form-data; boundary=x', '--x--'],
    ] as const) {
      const r = await raw('POST', '/api/v1/agents', text, type);
      expect(r.status, type).toBe(415);
      expect(r.body.error.code).toBe('unsupported_media_type');
      expect(r.body.error.message).toContain('content-type: application/json');
      expect(r.body.error.message).toContain(type.split(';')[0]);
    }
    const agents = (await emu.api('GET', '/api/v1/agents?search=x')).body.meta.pagination.total;
    expect(agents).toBe(0);
  });

  it('a JSON content type with parameters is still JSON; a JSON body that does not parse is 400 invalid_body', async () => {
    expect(
      (await raw('POST', '/api/v1/agents', JSON.stringify({ name: 'p', instructions: 'i', engine: 'realtime' }), 'application/json; charset=utf-8')).status,
    ).toBe(201);
    const bad = await raw('POST', '/api/v1/agents', '{"name":', 'application/json');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_body');
  });

  it('a body larger than the limit: 413 in the envelope', async () => {
    const small = await startTestEmulator({ bodyLimit: 1024 });
    try {
      const res = await fetch(`${small.url}/api/v1/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ORG_A.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x'.repeat(5000) }),
      });
      expect(res.status).toBe(413);
      expect(((await res.json()) as any).error.code).toBe('payload_too_large');
    } finally {
      await small.close();
    }
  });

  it('a request the HTTP parser cannot read: 400 in the envelope, then the connection closes', async () => {
    const { port, hostname } = new URL(emu.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const s = new Socket();
      let got = '';
      s.on('data', (c: Buffer) => (got += c.toString()));
      s.on('close', () => resolve(got));
      s.on('error', reject);
      s.connect(Number(port), hostname, () => s.write('GET /api/v1/agents HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(body.error.code).toBe('bad_request');
    expect(body.meta.requestId).toMatch(/^req_/);
  });
});

describe('import rows', () => {
  it('nested absurdly deep are refused before anything is stored', async () => {
    const text = `{"contacts":[{"name":"a","phone":${'['.repeat(50_000)}${']'.repeat(50_000)}}]}`;
    const r = await raw('POST', `/api/v1/contact-lists/${ids.list}/contacts`, text);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^contacts\[0\]: nested more than/);
  });
});

describe('the control path', () => {
  it('refuses absurdly nested event data; streams replay as before', async () => {
    // 100,000 levels: JSON.parse reads it, JSON.stringify (every replay) could not write it out
    const text = `{"type":"call.ended","callId":"c1","data":${'{"d":'.repeat(100_000)}{}${'}'.repeat(100_000)}}`;
    const res = await fetch(`${emu.url}/_emulator/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe('validation_error');
    expect(body.error.message).toMatch(/nested/);
    // nesting within the limit is fine
    let ok: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 20; i++) ok = { d: ok };
    const fine = await emu.control<{ firstId: string }>('POST', '/events', { type: 'call.ended', callId: 'c1', data: ok });
    // a replay from before it answers at once
    const ac = new AbortController();
    const stream = await fetch(`${emu.url}/api/v1/events?lastEventId=0`, { headers: { authorization: `Bearer ${ORG_A.apiKey}` }, signal: ac.signal });
    const reader = stream.body!.getReader();
    let seen = '';
    while (!/: replayed \d+/.test(seen)) seen += Buffer.from((await reader.read()).value!).toString();
    ac.abort();
    expect(seen).toContain(`id: ${fine.firstId}`);
  });
});
