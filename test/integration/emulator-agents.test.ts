import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { id3Length, parseFrameHeader } from '../../src/emulator/agents/mp3.js';
import { startEmulator } from '../../src/emulator/server.js';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// The agents, voices and tools routes of document 1, over raw HTTP.

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
});

interface Res {
  status: number;
  headers: Headers;
  body: any;
}

async function call(method: string, path: string, body?: unknown, key: string = ORG_A.apiKey, raw?: string): Promise<Res> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined || raw !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${emu.url}${path}`, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function create(body: Record<string, unknown> = {}, key?: string): Promise<string> {
  const r = await call('POST', '/api/v1/agents', { name: 'Reception', instructions: 'Greet callers.', engine: 'realtime', ...body }, key);
  expect(r.status).toBe(201);
  return r.body.data.id as string;
}

async function toolIds(org: string): Promise<string[]> {
  const r = await emu.control<{ orgs: Array<{ tools: Array<{ id: string }> }> }>('GET', `/tools?org=${org}`);
  return r.orgs[0]!.tools.map((t) => t.id);
}

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('authentication', () => {
  it('refuses a missing key, an unknown key and the x-api-key form with 401', async () => {
    const none = await fetch(`${emu.url}/api/v1/agents`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as any).error.code).toBe('unauthorized');
    expect((await call('GET', '/api/v1/agents', undefined, 'nope')).status).toBe(401);
    const wrongForm = await fetch(`${emu.url}/api/v1/agents`, { headers: { 'x-api-key': ORG_A.apiKey } });
    expect(wrongForm.status).toBe(401);
    expect(((await wrongForm.json()) as any).error.message).toMatch(/Bearer/);
    const voices = await fetch(`${emu.url}/api/v1/voices`, { headers: { 'x-api-key': ORG_A.apiKey } });
    expect(voices.status).toBe(401);
  });
});

describe('agents', () => {
  it('creates (201) and reads back the whole agent in the document 1 envelope', async () => {
    const r = await call('POST', '/api/v1/agents', {
      name: 'Support',
      instructions: 'Help with billing.',
      engine: 'pipeline',
      variables: [{ name: 'customer_name', description: 'first name' }],
      description: 'Billing line',
      tags: ['billing'],
    });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body.data).sort()).toEqual(['currentVersion', 'engine', 'id', 'name']);
    expect(r.body.data).toMatchObject({ name: 'Support', engine: 'pipeline', currentVersion: 1 });
    expect(r.body.meta.requestId).toBe(r.headers.get('x-request-id'));
    const g = await call('GET', `/api/v1/agents/${r.body.data.id}`);
    expect(g.status).toBe(200);
    expect(g.body.meta.requestId).toBe(g.headers.get('x-request-id'));
    const a = g.body.data;
    expect(a).toMatchObject({
      id: r.body.data.id,
      name: 'Support',
      instructions: 'Help with billing.',
      engine: 'pipeline',
      modality: 'voice',
      currentVersion: 1,
      variables: [{ name: 'customer_name', description: 'first name' }],
      description: 'Billing line',
      tags: ['billing'],
    });
    expect(a.voice).toEqual({ name: expect.any(String), language: expect.stringMatching(/^[a-z]{2}-[A-Z]{2}$/) });
    expect(a.createdAt).toMatch(ISO_MS);
    expect(a.updatedAt).toBe(a.createdAt);
  });

  it('answers 400 validation_error naming the field, and 400 for a malformed JSON body', async () => {
    const missing = await call('POST', '/api/v1/agents', { name: 'x', engine: 'realtime' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('validation_error');
    expect(missing.body.error.message).toMatch(/instructions/);
    expect(missing.body.error.details[0].field).toBe('instructions');
    const engine = await call('POST', '/api/v1/agents', { name: 'x', instructions: 'y', engine: 'turbo' });
    expect(engine.status).toBe(400);
    expect(engine.body.error.message).toMatch(/engine.*realtime, pipeline, speech-to-speech/);
    const vars = await call('POST', '/api/v1/agents', { name: 'x', instructions: 'y', engine: 'realtime', variables: [{ description: 'no name' }] });
    expect(vars.status).toBe(400);
    expect(vars.body.error.details[0].field).toBe('variables[0].name');
    const notArray = await call('POST', '/api/v1/agents', { name: 'x', instructions: 'y', engine: 'realtime', variables: 'a' });
    expect(notArray.status).toBe(400);
    const malformed = await call('POST', '/api/v1/agents', undefined, ORG_A.apiKey, '{"name": "x",');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/JSON/);
    const noBody = await call('POST', '/api/v1/agents');
    expect(noBody.status).toBe(400);
    const patchEmpty = await call('PATCH', `/api/v1/agents/${await create()}`, {});
    expect(patchEmpty.status).toBe(400);
  });

  it('pages the listing, clamps pageSize to 200 and refuses a page size that is not a positive integer', async () => {
    const e = await startTestEmulator();
    try {
      const post = (n: number) =>
        fetch(`${e.url}/api/v1/agents`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ORG_A.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Agent ${n}`, instructions: 'x', engine: 'realtime' }),
        });
      for (let i = 1; i <= 5; i++) expect((await post(i)).status).toBe(201);
      const get = async (q: string) => {
        const r = await fetch(`${e.url}/api/v1/agents${q}`, { headers: { authorization: `Bearer ${ORG_A.apiKey}` } });
        return { status: r.status, body: (await r.json()) as any };
      };
      const p1 = await get('?pageSize=2');
      expect(p1.body.data.agents.map((a: any) => a.name)).toEqual(['Agent 1', 'Agent 2']);
      expect(p1.body.meta.pagination).toMatchObject({ nextCursor: '2', limit: 2 });
      const p3 = await get('?pageSize=2&page=3');
      expect(p3.body.data.agents.map((a: any) => a.name)).toEqual(['Agent 5']);
      expect(p3.body.meta.pagination.nextCursor).toBeNull();
      const def = await get('');
      expect(def.body.meta.pagination.limit).toBe(50);
      expect((await get('?pageSize=500')).body.meta.pagination.limit).toBe(200);
      for (const bad of ['?pageSize=0', '?pageSize=abc', '?pageSize=1.5', '?page=0', '?page=-1']) {
        const r = await get(bad);
        expect(r.status, bad).toBe(400);
        expect(r.body.error.code).toBe('validation_error');
      }
    } finally {
      await e.close();
    }
  });

  it('searches name, description and tags, case-insensitively', async () => {
    await create({ name: 'Zebra desk' });
    await create({ name: 'Other', description: 'handles ZEBRA crossings' });
    await create({ name: 'Third', tags: ['zebra-tag'] });
    await create({ name: 'Unrelated' });
    const r = await call('GET', '/api/v1/agents?search=zEbRa');
    expect(r.body.data.agents.map((a: any) => a.name).sort()).toEqual(['Other', 'Third', 'Zebra desk']);
  });

  it('keeps tenants apart: another tenant’s agent is a 404 everywhere', async () => {
    const id = await create({ name: 'Acme only' });
    for (const [method, path, body] of [
      ['GET', `/api/v1/agents/${id}`],
      ['PATCH', `/api/v1/agents/${id}`, { name: 'stolen' }],
      ['DELETE', `/api/v1/agents/${id}`],
      ['GET', `/api/v1/agents/${id}/tools`],
      ['PUT', `/api/v1/agents/${id}/tools`, { toolIds: [] }],
      ['GET', `/api/v1/agents/${id}/voice`],
      ['GET', `/api/v1/agents/${id}/versions`],
      ['POST', `/api/v1/agents/${id}/rollback`, { version: 1 }],
    ] as const) {
      const r = await call(method, path, body, ORG_B.apiKey);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    const list = await call('GET', '/api/v1/agents?search=Acme only', undefined, ORG_B.apiKey);
    expect(list.body.data.agents).toEqual([]);
    expect((await call('GET', `/api/v1/agents/${id}`)).body.data.name).toBe('Acme only');
  });

  it('treats an id as one path segment', async () => {
    const r = await call('GET', `/api/v1/agents/${encodeURIComponent('../voices')}`);
    expect(r.status).toBe(404);
  });

  it('deletes: { deleted: true }, then 404', async () => {
    const id = await create();
    const d = await call('DELETE', `/api/v1/agents/${id}`);
    expect(d.status).toBe(200);
    expect(d.body.data).toEqual({ deleted: true });
    expect((await call('GET', `/api/v1/agents/${id}`)).status).toBe(404);
    expect((await call('DELETE', `/api/v1/agents/${id}`)).status).toBe(404);
  });

  it('refuses read-only and unknown fields in PATCH, naming them', async () => {
    const id = await create();
    const ro = await call('PATCH', `/api/v1/agents/${id}`, { currentVersion: 9 });
    expect(ro.status).toBe(400);
    expect(ro.body.error.details[0].field).toBe('currentVersion');
    const voice = await call('PATCH', `/api/v1/agents/${id}`, { voice: { name: 'x', language: 'en-US' } });
    expect(voice.status).toBe(400);
    expect(voice.body.error.message).toMatch(/PUT .*voice/);
  });
});

describe('versions and rollback', () => {
  it('numbers every change, lists newest first, and rolls back as a new version', async () => {
    const id = await create({ instructions: 'v1 text' });
    const p2 = await call('PATCH', `/api/v1/agents/${id}`, { instructions: 'v2 text' });
    expect(p2.body.data).toEqual({ id, currentVersion: 2 });
    const p3 = await call('PATCH', `/api/v1/agents/${id}`, { name: 'Renamed' });
    expect(p3.body.data.currentVersion).toBe(3);
    // The same value again changes nothing: no new version.
    expect((await call('PATCH', `/api/v1/agents/${id}`, { name: 'Renamed' })).body.data.currentVersion).toBe(3);

    const v = await call('GET', `/api/v1/agents/${id}/versions`);
    expect(v.body.data.currentVersion).toBe(3);
    expect(v.body.data.total).toBe(3);
    const entries = v.body.data.versions;
    expect(entries.map((e: any) => [e.versionNumber, e.changeType, e.isCurrent])).toEqual([
      [3, 'settings_updated', true],
      [2, 'prompt_updated', false],
      [1, 'created', false],
    ]);
    for (const e of entries) {
      expect(e.changedByName).toBe('API key (acme)');
      expect(e.changedAt).toMatch(ISO_MS);
    }

    const current = await call('POST', `/api/v1/agents/${id}/rollback`, { version: 3, reason: 'x' });
    expect(current.status).toBe(422);
    expect(current.body.error.message).toMatch(/already the current version/);
    const future = await call('POST', `/api/v1/agents/${id}/rollback`, { version: 7, reason: 'x' });
    expect(future.status).toBe(422);
    expect(future.body.error.message).toMatch(/no version 7/);
    expect((await call('POST', `/api/v1/agents/${id}/rollback`, { reason: 'x' })).status).toBe(400);
    expect((await call('POST', `/api/v1/agents/${id}/rollback`, { version: '1' })).status).toBe(400);
    expect((await call('POST', `/api/v1/agents/${id}/rollback`, { version: 1.5 })).status).toBe(400);

    const rb = await call('POST', `/api/v1/agents/${id}/rollback`, { version: 1, reason: 'v2 was rude' });
    expect(rb.status).toBe(200);
    expect(rb.body.data).toEqual({ version: 4 });
    const agent = (await call('GET', `/api/v1/agents/${id}`)).body.data;
    expect(agent).toMatchObject({ currentVersion: 4, instructions: 'v1 text', name: 'Reception' });
    const after = (await call('GET', `/api/v1/agents/${id}/versions`)).body.data;
    expect(after.total).toBe(4);
    expect(after.versions[0]).toMatchObject({ versionNumber: 4, changeType: 'rollback', isCurrent: true, rolledBackTo: 1, reason: 'v2 was rude' });
    expect(after.versions.filter((e: any) => e.isCurrent)).toHaveLength(1);
    // History is kept: rolling forward to a version made before the rollback works too.
    expect((await call('POST', `/api/v1/agents/${id}/rollback`, { version: 2, reason: 'again' })).body.data.version).toBe(5);
    expect((await call('GET', `/api/v1/agents/${id}`)).body.data.instructions).toBe('v2 text');
  });

  it('pages versions with limit and offset; limit is clamped to 200, bad values are 400', async () => {
    const id = await create();
    for (let i = 0; i < 4; i++) await call('PATCH', `/api/v1/agents/${id}`, { instructions: `text ${i}` });
    const page = (await call('GET', `/api/v1/agents/${id}/versions?limit=2&offset=1`)).body;
    expect(page.data.versions.map((e: any) => e.versionNumber)).toEqual([4, 3]);
    expect(page.data.total).toBe(5);
    expect((await call('GET', `/api/v1/agents/${id}/versions?limit=1000`)).body.meta.pagination.limit).toBe(200);
    expect((await call('GET', `/api/v1/agents/${id}/versions`)).body.meta.pagination.limit).toBe(50);
    for (const bad of ['limit=0', 'limit=x', 'offset=-1', 'offset=1.5']) {
      expect((await call('GET', `/api/v1/agents/${id}/versions?${bad}`)).status, bad).toBe(400);
    }
  });
});

describe('tools', () => {
  it('replaces the whole list in one step, collapses duplicates, and refuses another tenant’s tool', async () => {
    const id = await create();
    const [t1, t2, t3] = await toolIds(ORG_A.name);
    const [foreign] = await toolIds(ORG_B.name);
    expect(foreign).not.toBe(t1);
    expect((await call('GET', `/api/v1/agents/${id}/tools`)).body.data).toEqual({ tools: [] });
    const put = await call('PUT', `/api/v1/agents/${id}/tools`, { toolIds: [t1, t2, t1] });
    expect(put.status).toBe(200);
    expect(put.body.data.tools).toEqual([
      { id: t1, name: expect.any(String) },
      { id: t2, name: expect.any(String) },
    ]);
    const replaced = await call('PUT', `/api/v1/agents/${id}/tools`, { toolIds: [t3] });
    expect(replaced.body.data.tools.map((t: any) => t.id)).toEqual([t3]);

    const refused = await call('PUT', `/api/v1/agents/${id}/tools`, { toolIds: [t1, foreign] });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('tool_not_found');
    expect(refused.body.error.message).toContain(foreign);
    // Nothing of a refused request is applied.
    expect((await call('GET', `/api/v1/agents/${id}/tools`)).body.data.tools.map((t: any) => t.id)).toEqual([t3]);

    expect((await call('PUT', `/api/v1/agents/${id}/tools`, {})).status).toBe(400);
    expect((await call('PUT', `/api/v1/agents/${id}/tools`, { toolIds: 'x' })).status).toBe(400);
    expect((await call('PUT', `/api/v1/agents/${id}/tools`, { toolIds: [] })).body.data.tools).toEqual([]);
    const versions = (await call('GET', `/api/v1/agents/${id}/versions`)).body.data.versions;
    expect(versions.map((v: any) => v.changeType)).toEqual(['tools_updated', 'tools_updated', 'tools_updated', 'created']);
  });
});

describe('voices and agent voice', () => {
  it('lists at least 10 voices over several languages; `es` matches every Spanish voice', async () => {
    const all = (await call('GET', '/api/v1/voices')).body.data.voices;
    expect(all.length).toBeGreaterThanOrEqual(10);
    expect(new Set(all.map((v: any) => v.language)).size).toBeGreaterThanOrEqual(6);
    for (const v of all) {
      expect(Object.keys(v).sort()).toEqual(['description', 'id', 'language', 'name', 'previewUrl']);
      expect(v.previewUrl).toBe(`/api/v1/voices/${v.id}/preview`);
    }
    const es = (await call('GET', '/api/v1/voices?language=es')).body.data.voices;
    expect(es.map((v: any) => v.language).sort()).toEqual(['es-ES', 'es-MX', 'es-US']);
    const mx = (await call('GET', '/api/v1/voices?language=ES-mx')).body.data.voices;
    expect(mx.map((v: any) => v.language)).toEqual(['es-MX']);
    expect((await call('GET', '/api/v1/voices?language=sv')).body.data.voices).toEqual([]);
    expect((await call('GET', '/api/v1/voices?language=not_a_tag!')).status).toBe(400);
  });

  it('streams a preview as audio/mpeg: an ID3 tag, then consecutive valid MPEG frames', async () => {
    const voices = (await call('GET', '/api/v1/voices')).body.data.voices;
    const fetchPreview = async (v: any) => {
      const res = await fetch(`${emu.url}${v.previewUrl}`, { headers: { authorization: `Bearer ${ORG_A.apiKey}` }, redirect: 'manual' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('audio/mpeg');
      return new Uint8Array(await res.arrayBuffer());
    };
    const a = await fetchPreview(voices[0]);
    const b = await fetchPreview(voices[1]);
    let off = id3Length(a);
    expect(off).toBeGreaterThan(10);
    let frames = 0;
    while (off < a.length) {
      const h = parseFrameHeader(a, off);
      expect(h, `frame at ${off}`).toBeDefined();
      expect(h).toMatchObject({ version: 1, layer: 3, sampleRate: 48_000, channels: 1 });
      off += h!.length;
      frames++;
    }
    expect(off).toBe(a.length);
    expect(frames).toBeGreaterThan(20);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
    const missing = await fetch(`${emu.url}/api/v1/voices/voice_nope/preview`, { headers: { authorization: `Bearer ${ORG_A.apiKey}` } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/application\/json/);
    expect((await fetch(`${emu.url}${voices[0].previewUrl}`)).status).toBe(401);
  });

  it('gives realtime agents a default voice and changes it with PUT voice', async () => {
    const id = await create();
    const def = (await call('GET', `/api/v1/agents/${id}/voice`)).body.data;
    expect(Object.keys(def).sort()).toEqual(['language', 'name', 'voiceId']);
    const voices = (await call('GET', '/api/v1/voices?language=es')).body.data.voices;
    const mateo = voices.find((v: any) => v.language === 'es-MX');
    const put = await call('PUT', `/api/v1/agents/${id}/voice`, { voiceId: mateo.id, language: 'es' });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ voiceId: mateo.id, name: mateo.name, language: 'es-MX' });
    expect((await call('GET', `/api/v1/agents/${id}/voice`)).body.data).toEqual(put.body.data);
    expect((await call('GET', `/api/v1/agents/${id}`)).body.data.voice).toEqual({ name: mateo.name, language: 'es-MX' });
    // Without language: the voice's own.
    expect((await call('PUT', `/api/v1/agents/${id}/voice`, { voiceId: voices[0].id })).body.data.language).toBe(voices[0].language);
    const unknown = await call('PUT', `/api/v1/agents/${id}/voice`, { voiceId: 'voice_nope' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe('voice_not_found');
    const lang = await call('PUT', `/api/v1/agents/${id}/voice`, { voiceId: mateo.id, language: 'fr-FR' });
    expect(lang.status).toBe(422);
    expect(lang.body.error.code).toBe('language_not_supported');
    expect((await call('PUT', `/api/v1/agents/${id}/voice`, { voiceId: mateo.id, language: 'not a tag' })).status).toBe(400);
    expect((await call('PUT', `/api/v1/agents/${id}/voice`, {})).status).toBe(400);
    const types = (await call('GET', `/api/v1/agents/${id}/versions`)).body.data.versions.map((v: any) => v.changeType);
    expect(types).toEqual(['voice_updated', 'voice_updated', 'created']);
  });

  it('refuses PUT voice on a speech-to-speech agent (422 voice_not_supported) and changes nothing', async () => {
    const id = await create({ engine: 'speech-to-speech' });
    const voices = (await call('GET', '/api/v1/voices')).body.data.voices;
    const r = await call('PUT', `/api/v1/agents/${id}/voice`, { voiceId: voices[0].id, language: voices[0].language });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('voice_not_supported');
    expect(r.body.error.message).toMatch(/speech-to-speech engine.*model's own voice/);
    const agent = (await call('GET', `/api/v1/agents/${id}`)).body.data;
    expect(agent.currentVersion).toBe(1);
    expect((await call('GET', `/api/v1/agents/${id}/voice`)).body.data).toEqual({ voiceId: 'model_native', name: "Model's own voice", language: 'en-US' });
  });
});

describe('persistence', () => {
  it('keeps agents and their history across a restart with a data directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-agents-'));
    try {
      const orgs = [ORG_A];
      let e = await startEmulator({ port: 0, orgs, dataDir: dir, seed: 7 });
      const h = { authorization: `Bearer ${ORG_A.apiKey}`, 'content-type': 'application/json' };
      const c = await fetch(`${e.url}/api/v1/agents`, {
        method: 'POST',
        headers: h,
        body: JSON.stringify({ name: 'Kept', instructions: 'a', engine: 'realtime' }),
      });
      const id = ((await c.json()) as any).data.id;
      await fetch(`${e.url}/api/v1/agents/${id}`, { method: 'PATCH', headers: h, body: JSON.stringify({ instructions: 'b' }) });
      await e.close();
      e = await startEmulator({ port: 0, orgs, dataDir: dir, seed: 7 });
      const v = (await (await fetch(`${e.url}/api/v1/agents/${id}/versions`, { headers: h })).json()) as any;
      expect(v.data.versions.map((x: any) => x.versionNumber)).toEqual([2, 1]);
      const c2 = await fetch(`${e.url}/api/v1/agents`, {
        method: 'POST',
        headers: h,
        body: JSON.stringify({ name: 'New', instructions: 'a', engine: 'realtime' }),
      });
      expect(((await c2.json()) as any).data.id).not.toBe(id);
      await e.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
