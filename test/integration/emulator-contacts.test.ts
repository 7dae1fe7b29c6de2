import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { call, checkProgress, createList, people, SCHEMA, waitForJob } from './emulator-contacts-helpers.js';

const A = ORG_A.apiKey;
const B = ORG_B.apiKey;
const DAY = 24 * 60 * 60 * 1000;

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ allowLoopbackUrls: true });
});
afterAll(async () => {
  await emu.close();
});

async function importRows(key: string, listId: string, contacts: unknown[]) {
  const r = await call(emu, key, 'POST', `/api/v1/contact-lists/${listId}/contacts`, { contacts });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return r.body.jobId as string;
}

describe('authentication', () => {
  it('takes x-api-key and refuses a bearer credential or a bad key', async () => {
    const ok = await call(emu, A, 'GET', '/api/v1/contact-lists');
    expect(ok.status).toBe(200);
    const bearer = await fetch(`${emu.url}/api/v1/contact-lists`, { headers: { authorization: `Bearer ${A}` } });
    expect(bearer.status).toBe(401);
    expect(((await bearer.json()) as any).error.message).toMatch(/x-api-key/);
    const none = await fetch(`${emu.url}/api/v1/import-jobs`);
    expect(none.status).toBe(401);
    const bad = await call(emu, 'wrong', 'GET', '/api/v1/import-jobs');
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('unauthorized');
  });
});

describe('contact lists', () => {
  it('creates a list (201, { data }) and reads it back with schema and counts', async () => {
    const r = await call(emu, A, 'POST', '/api/v1/contact-lists', { name: '  Leads ', schema: SCHEMA });
    expect(r.status).toBe(201);
    const l = r.body.data;
    expect(l.id).toMatch(/^cl_/);
    expect(l.name).toBe('Leads');
    expect(l.contactCount).toBe(0);
    expect(l.invalidContactCount).toBe(0);
    expect(l.schema.fields[0]).toEqual({ name: 'name', type: 'string', required: true });
    expect(l.schema.fields[2]).toEqual({ name: 'email', type: 'email', required: false });
    expect(Date.parse(l.createdAt)).not.toBeNaN();
    expect(l.updatedAt).toBe(l.createdAt);
    const g = await call(emu, A, 'GET', `/api/v1/contact-lists/${l.id}`);
    expect(g.status).toBe(200);
    expect(g.body.data).toEqual(l);
  });

  it('refuses an unknown type, naming the field and the valid types', async () => {
    const r = await call(emu, A, 'POST', '/api/v1/contact-lists', {
      name: 'x',
      schema: {
        fields: [
          { name: 'a', type: 'string' },
          { name: 'age', type: 'integer' },
        ],
      },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain('"age"');
    expect(r.body.error.message).toContain('schema.fields[1].type');
    expect(r.body.error.message).toContain('string, number, boolean, phone, email, date');
    expect(r.body.meta.requestId).toMatch(/^req_/);
  });

  it('refuses duplicate field names and other bad schemas with 400', async () => {
    const dup = await call(emu, A, 'POST', '/api/v1/contact-lists', {
      name: 'x',
      schema: {
        fields: [
          { name: 'a', type: 'string' },
          { name: 'a', type: 'phone' },
        ],
      },
    });
    expect(dup.status).toBe(400);
    expect(dup.body.error.message).toMatch(/duplicate field name "a"/);
    const cases: unknown[] = [
      { name: 'x' },
      { name: '', schema: SCHEMA },
      { schema: SCHEMA },
      { name: 'x', schema: { fields: [] } },
      { name: 'x', schema: { fields: 'a' } },
      { name: 'x', schema: { fields: [{ name: 'id', type: 'string' }] } },
      { name: 'x', schema: { fields: [{ name: 'a', type: 'string', required: 'yes' }] } },
      { name: 'x', schema: { fields: [{ name: 'a', type: 'string', requried: true }] } },
      { name: 'x', schema: { fields: [null] } },
      [1, 2],
      'null',
    ];
    for (const c of cases) {
      const r = await call(emu, A, 'POST', '/api/v1/contact-lists', c);
      expect(r.status, JSON.stringify(c)).toBe(400);
      expect(r.body.error.code).toMatch(/validation_error|invalid_body/);
    }
    const notJson = await call(emu, A, 'POST', '/api/v1/contact-lists', '{oops');
    expect(notJson.status).toBe(400);
  });

  it('lists with { data, pagination } and clamps limit at 100', async () => {
    const fresh = await startTestEmulator();
    try {
      for (let i = 0; i < 3; i++) await createList(fresh, A, `l${i}`);
      const def = await call(fresh, A, 'GET', '/api/v1/contact-lists');
      expect(def.body.pagination).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1 });
      expect(def.body.data.map((l: any) => l.name)).toEqual(['l0', 'l1', 'l2']);
      expect(def.body.data[0]).toHaveProperty('contactCount', 0);
      const p2 = await call(fresh, A, 'GET', '/api/v1/contact-lists?page=2&limit=2');
      expect(p2.body.data.map((l: any) => l.name)).toEqual(['l2']);
      expect(p2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
      const big = await call(fresh, A, 'GET', '/api/v1/contact-lists?limit=500');
      expect(big.body.pagination.limit).toBe(100);
      expect((await call(fresh, A, 'GET', '/api/v1/contact-lists?limit=0')).status).toBe(400);
      expect((await call(fresh, A, 'GET', '/api/v1/contact-lists?page=abc')).status).toBe(400);
      const other = await call(fresh, B, 'GET', '/api/v1/contact-lists');
      expect(other.body.data).toEqual([]);
      expect(other.body.pagination.total).toBe(0);
    } finally {
      await fresh.close();
    }
  });

  it('keeps tenants apart: another org’s list is a 404 everywhere', async () => {
    const l = await createList(emu, A, 'private');
    for (const [method, path, body] of [
      ['GET', `/api/v1/contact-lists/${l.id}`],
      ['PATCH', `/api/v1/contact-lists/${l.id}/schema`, { fields: [{ name: 'x', type: 'string' }] }],
      ['GET', `/api/v1/contact-lists/${l.id}/contacts`],
      ['POST', `/api/v1/contact-lists/${l.id}/contacts`, { contacts: people(1) }],
    ] as Array<[string, string, unknown]>) {
      const r = await call(emu, B, method, path, body);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    expect((await call(emu, A, 'GET', '/api/v1/contact-lists/cl_nope')).status).toBe(404);
  });
});

describe('imports from the request', () => {
  it('answers 202 with a bare object and runs pending → processing → completed with per-row errors', async () => {
    const l = await createList(emu, A);
    const rows = [
      { name: 'Ann Lee', phone: '+14155550100', email: 'ann@example.com', age: '42', vip: 'yes', birthday: '1990-04-01', extra: 'dropped' },
      { name: 'Bob', phone: '4155550101' },
      { name: '', phone: '+14155550102', email: 'not-an-email' },
      { name: 'Cy', phone: '+1 415 555 0103', age: 7, vip: false },
    ];
    const r = await call(emu, A, 'POST', `/api/v1/contact-lists/${l.id}/contacts`, { contacts: rows });
    expect(r.status).toBe(202);
    expect(Object.keys(r.body).sort()).toEqual(['jobId', 'message', 'status']);
    expect(r.body.jobId).toMatch(/^job_/);
    expect(r.body.status).toBe('pending');
    expect(r.headers.get('location')).toBe(`/api/v1/import-jobs/${r.body.jobId}`);

    const seen: string[] = [];
    const job = await waitForJob(emu, A, r.body.jobId, seen);
    expect(seen[seen.length - 1]).toBe('completed');
    expect(seen.every((s) => ['pending', 'processing', 'completed'].includes(s))).toBe(true);
    expect(job.contactListId).toBe(l.id);
    expect(job.progress).toEqual({ total: 4, processed: 4, successful: 2, failed: 2 });
    expect(job.errors).toEqual([
      { row: 2, field: 'phone', message: expect.stringContaining('E.164') },
      { row: 3, field: 'name', message: 'is required' },
      { row: 3, field: 'email', message: expect.stringContaining('e-mail') },
    ]);
    expect(job.errors[0].message).not.toContain('--default-country');
    expect(job.createdAt <= job.updatedAt).toBe(true);
    expect(job.finishedAt).toBeTruthy();
    expect(Date.parse(job.expiresAt) - Date.parse(job.finishedAt)).toBe(30 * DAY);

    const cs = await call(emu, A, 'GET', `/api/v1/contact-lists/${l.id}/contacts`);
    expect(cs.status).toBe(200);
    expect(cs.body.pagination).toEqual({ page: 1, limit: 50, total: 2, totalPages: 1 });
    const [ann, cy] = cs.body.data;
    expect(ann.id).toMatch(/^ct_/);
    expect(ann).toMatchObject({ name: 'Ann Lee', phone: '+14155550100', email: 'ann@example.com', age: 42, vip: true, birthday: '1990-04-01' });
    expect(ann).not.toHaveProperty('extra');
    expect(ann).not.toHaveProperty('validationErrors');
    expect(Date.parse(ann.createdAt)).not.toBeNaN();
    expect(cy).toMatchObject({ name: 'Cy', phone: '+14155550103', age: 7, vip: false });
    const list = await call(emu, A, 'GET', `/api/v1/contact-lists/${l.id}`);
    expect(list.body.data.contactCount).toBe(2);
  });

  it('refuses bad bodies with 400 (never 5xx)', async () => {
    const l = await createList(emu, A);
    const path = `/api/v1/contact-lists/${l.id}/contacts`;
    const empty = await call(emu, A, 'POST', path, { contacts: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toMatch(/contacts.*empty/);
    const noFormat = await call(emu, A, 'POST', path, { fileUrl: 'http://127.0.0.1:1/x.csv' });
    expect(noFormat.status).toBe(400);
    expect(noFormat.body.error.message).toMatch(/fileFormat/);
    expect(noFormat.body.error.details[0].field).toBe('fileFormat');
    const badFormat = await call(emu, A, 'POST', path, { fileUrl: 'http://127.0.0.1:1/x.csv', fileFormat: 'xlsx' });
    expect(badFormat.status).toBe(400);
    expect(badFormat.body.error.message).toMatch(/fileFormat/);
    for (const b of [
      {},
      { contacts: 'x' },
      { contacts: [1] },
      { contacts: [null] },
      { contacts: people(1), fileUrl: 'http://127.0.0.1/x', fileFormat: 'csv' },
      { contacts: people(1), fileFormat: 'csv' },
      { fileUrl: 5, fileFormat: 'csv' },
      { contactz: [] },
    ]) {
      const r = await call(emu, A, 'POST', path, b);
      expect(r.status, JSON.stringify(b)).toBe(400);
    }
    const tooMany = await call(emu, A, 'POST', path, { contacts: people(10_001) });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.error.code).toBe('too_many_contacts');
    const none = await call(emu, A, 'GET', `/api/v1/import-jobs?contactListId=${l.id}`);
    expect(none.body.data).toEqual([]);
  });
});

describe('contacts listing', () => {
  let listId: string;
  beforeAll(async () => {
    const l = await createList(emu, A, 'search', {
      fields: [
        { name: 'firstName', type: 'string' },
        { name: 'lastName', type: 'string' },
        { name: 'city', type: 'string' },
        { name: 'mobile', type: 'phone' },
      ],
    });
    listId = l.id;
    const rows = people(230).map((p, i) => ({ firstName: `First${i}`, lastName: i === 7 ? 'McKenzie' : `Last${i}`, city: 'Mckinney', mobile: p.phone }));
    await waitForJob(emu, A, await importRows(A, listId, rows));
  });

  it('pages with default 50 and clamps limit at 100', async () => {
    const def = await call(emu, A, 'GET', `/api/v1/contact-lists/${listId}/contacts`);
    expect(def.body.data).toHaveLength(50);
    expect(def.body.pagination).toEqual({ page: 1, limit: 50, total: 230, totalPages: 5 });
    const big = await call(emu, A, 'GET', `/api/v1/contact-lists/${listId}/contacts?limit=1000&page=3`);
    expect(big.body.pagination).toEqual({ page: 3, limit: 100, total: 230, totalPages: 3 });
    expect(big.body.data).toHaveLength(30);
    expect(big.body.data[0].firstName).toBe('First200');
    const beyond = await call(emu, A, 'GET', `/api/v1/contact-lists/${listId}/contacts?page=9`);
    expect(beyond.body.data).toEqual([]);
    expect((await call(emu, A, 'GET', `/api/v1/contact-lists/${listId}/contacts?limit=-1`)).status).toBe(400);
  });

  it('searches name fields case-insensitively and phones by digits', async () => {
    const byName = await call(emu, A, 'GET', `/api/v1/contact-lists/${listId}/contacts?search=mckenzie`);
    expect(byName.body.data.map((c: any) => c.lastName)).toEqual(['McKenzie']);
    // "city" is not a name field, so its "Mckinney" does not match.
    const city = await call(emu, A, 'GET', `/api/v1/contact-lists/${listId}/contacts?search=mckinney`);
    expect(city.body.pagination.total).toBe(0);
    const phone = await call(emu, A, 'GET', `/api/v1/contact-lists/${listId}/contacts?search=${encodeURIComponent('(415) 555-1012')}`);
    expect(phone.body.data.map((c: any) => c.mobile)).toEqual(['+14155551012']);
    const part = await call(emu, A, 'GET', `/api/v1/contact-lists/${listId}/contacts?search=First1&limit=5`);
    expect(part.body.pagination.total).toBe(111); // First1, First10-19, First100-199
    expect(part.body.data).toHaveLength(5);
  });
});

describe('import jobs listing', () => {
  it('filters by list and status, newest first, limit default 20 clamped at 100', async () => {
    const l1 = await createList(emu, A, 'jobs1');
    const l2 = await createList(emu, A, 'jobs2');
    const j1 = await importRows(A, l1.id, people(2));
    const j2 = await importRows(A, l2.id, people(2));
    const j3 = await importRows(A, l1.id, people(1));
    await waitForJob(emu, A, j1);
    await waitForJob(emu, A, j2);
    await waitForJob(emu, A, j3);
    const byList = await call(emu, A, 'GET', `/api/v1/import-jobs?contactListId=${l1.id}`);
    expect(byList.status).toBe(200);
    expect(byList.body.data.map((j: any) => j.id)).toEqual([j3, j1]);
    expect(byList.body.pagination).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    for (const j of byList.body.data) {
      expect(j).toHaveProperty('contactListId', l1.id);
      expect(j).toHaveProperty('createdAt');
      expect(j).toHaveProperty('updatedAt');
      checkProgress(j);
    }
    const completed = await call(emu, A, 'GET', `/api/v1/import-jobs?status=completed&limit=1000`);
    expect(completed.body.pagination.limit).toBe(100);
    expect(completed.body.data.every((j: any) => j.status === 'completed')).toBe(true);
    expect(completed.body.data.map((j: any) => j.id)).toEqual(expect.arrayContaining([j1, j2, j3]));
    const dates = completed.body.data.map((j: any) => j.createdAt);
    expect([...dates].sort().reverse()).toEqual(dates);
    const cancelled = await call(emu, A, 'GET', `/api/v1/import-jobs?status=cancelled&contactListId=${l1.id}`);
    expect(cancelled.body.data).toEqual([]);
    const bad = await call(emu, A, 'GET', '/api/v1/import-jobs?status=done');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('pending, processing, completed, failed, cancelled');
    const page2 = await call(emu, A, 'GET', `/api/v1/import-jobs?contactListId=${l1.id}&limit=1&page=2`);
    expect(page2.body.data.map((j: any) => j.id)).toEqual([j1]);
    expect(page2.body.pagination.totalPages).toBe(2);
  });

  it('keeps tenants apart for jobs', async () => {
    const l = await createList(emu, A, 'tenant-jobs');
    const j = await importRows(A, l.id, people(1));
    expect((await call(emu, B, 'GET', `/api/v1/import-jobs/${j}`)).status).toBe(404);
    expect((await call(emu, B, 'POST', `/api/v1/import-jobs/${j}/cancel`)).status).toBe(404);
    const other = await call(emu, B, 'GET', `/api/v1/import-jobs?contactListId=${l.id}`);
    expect(other.body.data).toEqual([]);
    await waitForJob(emu, A, j);
    expect((await call(emu, A, 'GET', '/api/v1/import-jobs/job_unknown')).status).toBe(404);
    expect((await call(emu, A, 'POST', '/api/v1/import-jobs/job_unknown/cancel')).status).toBe(404);
  });
});

describe('schema changes', () => {
  it('adds and modifies fields and revalidates existing contacts', async () => {
    const l = await createList(emu, A, 'reval', {
      fields: [
        { name: 'name', type: 'string', required: true },
        { name: 'age', type: 'string' },
      ],
    });
    await waitForJob(emu, A, await importRows(A, l.id, [{ name: 'A', age: '42' }, { name: 'B', age: 'forty' }, { name: 'C' }]));
    const r = await call(emu, A, 'PATCH', `/api/v1/contact-lists/${l.id}/schema`, {
      fields: [
        { name: 'age', type: 'number' },
        { name: 'tier', type: 'string' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.data.schema.fields).toEqual([
      { name: 'name', type: 'string', required: true },
      { name: 'age', type: 'number', required: false },
      { name: 'tier', type: 'string', required: false },
    ]);
    expect(r.body.data.revalidation).toEqual({ checked: 3, valid: 2, invalid: 1, newlyInvalid: 1 });
    expect(r.body.data.invalidContactCount).toBe(1);
    expect(r.body.data.contactCount).toBe(3);
    expect(r.body.data.updatedAt >= r.body.data.createdAt).toBe(true);
    const cs = (await call(emu, A, 'GET', `/api/v1/contact-lists/${l.id}/contacts`)).body.data;
    expect(cs[0]).toMatchObject({ name: 'A', age: 42 });
    expect(cs[0]).not.toHaveProperty('validationErrors');
    expect(cs[1]).toMatchObject({ name: 'B', age: 'forty', validationErrors: [{ field: 'age', message: expect.stringContaining('not a number') }] });

    // A new required field makes every contact fail; making it optional again clears them.
    const req = await call(emu, A, 'PATCH', `/api/v1/contact-lists/${l.id}/schema`, { fields: [{ name: 'tier', required: true }] });
    expect(req.body.data.revalidation).toEqual({ checked: 3, valid: 0, invalid: 3, newlyInvalid: 2 });
    const back = await call(emu, A, 'PATCH', `/api/v1/contact-lists/${l.id}/schema`, {
      schema: {
        fields: [
          { name: 'tier', required: false },
          { name: 'age', type: 'string' },
        ],
      },
    });
    expect(back.body.data.revalidation).toEqual({ checked: 3, valid: 3, invalid: 0, newlyInvalid: 0 });
    expect((await call(emu, A, 'GET', `/api/v1/contact-lists/${l.id}`)).body.data.invalidContactCount).toBe(0);

    // Imports validate against the current schema.
    const j = await waitForJob(emu, A, await importRows(A, l.id, [{ name: 'D', age: 5 }]));
    expect(j.progress.successful).toBe(1);
  });

  it('refuses bad schema changes with 400', async () => {
    const l = await createList(emu, A, 'reval-bad', { fields: [{ name: 'name', type: 'string' }] });
    const path = `/api/v1/contact-lists/${l.id}/schema`;
    const unknownType = await call(emu, A, 'PATCH', path, { fields: [{ name: 'x', type: 'datetime' }] });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.error.message).toMatch(/"x".*valid types: string, number, boolean, phone, email, date/);
    const noType = await call(emu, A, 'PATCH', path, { fields: [{ name: 'new' }] });
    expect(noType.status).toBe(400);
    expect(noType.body.error.message).toMatch(/needs a type/);
    const remove = await call(emu, A, 'PATCH', path, { fields: [], removeFields: ['name'] });
    expect(remove.status).toBe(400);
    const removeOnly = await call(emu, A, 'PATCH', path, { removeFields: ['name'] });
    expect(removeOnly.body.error.message).toMatch(/cannot be removed/);
    for (const b of [
      {},
      { fields: [] },
      {
        fields: [
          { name: 'a', type: 'string' },
          { name: 'a', type: 'string' },
        ],
      },
      { fields: [{ name: 'createdAt', type: 'date' }] },
    ]) {
      expect((await call(emu, A, 'PATCH', path, b)).status, JSON.stringify(b)).toBe(400);
    }
    expect((await call(emu, A, 'GET', `/api/v1/contact-lists/${l.id}`)).body.data.schema.fields).toHaveLength(1);
  });
});

describe('cancel and retention', () => {
  it('a finished job cannot be cancelled (409 naming its status)', async () => {
    const l = await createList(emu, A, 'done');
    const j = await importRows(A, l.id, people(3));
    await waitForJob(emu, A, j);
    const r = await call(emu, A, 'POST', `/api/v1/import-jobs/${j}/cancel`);
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain('completed');
    expect(r.body.error.details).toEqual({ status: 'completed' });
  });

  it('cancels a pending job; nothing is imported', async () => {
    // At time scale 0.001 the simulated second of `pending` lasts 1000 real seconds.
    const frozen = await startTestEmulator({ timeScale: 0.001 });
    try {
      const l = await createList(frozen, A, 'pending');
      const r = await call(frozen, A, 'POST', `/api/v1/contact-lists/${l.id}/contacts`, { contacts: people(2) });
      const j = r.body.jobId;
      expect((await call(frozen, A, 'GET', `/api/v1/import-jobs/${j}`)).body).toMatchObject({
        status: 'pending',
        progress: { total: 2, processed: 0, successful: 0, failed: 0 },
      });
      const pending = await call(frozen, A, 'GET', '/api/v1/import-jobs?status=pending,processing');
      expect(pending.body.data.map((x: any) => x.id)).toEqual([j]);
      const c = await call(frozen, A, 'POST', `/api/v1/import-jobs/${j}/cancel`);
      expect(c.status).toBe(200);
      expect(c.body).toMatchObject({ id: j, status: 'cancelled' });
      const job = (await call(frozen, A, 'GET', `/api/v1/import-jobs/${j}`)).body;
      expect(job.status).toBe('cancelled');
      expect(job.finishedAt).toBeTruthy();
      expect((await call(frozen, A, 'GET', `/api/v1/contact-lists/${l.id}`)).body.data.contactCount).toBe(0);
    } finally {
      await frozen.close();
    }
  });

  it('keeps a finished job 30 simulated days, then it is gone', async () => {
    const l = await createList(emu, A, 'retention');
    const j = await importRows(A, l.id, people(1));
    await waitForJob(emu, A, j);
    await emu.control('POST', '/clock/advance', { ms: 29 * DAY });
    expect((await call(emu, A, 'GET', `/api/v1/import-jobs/${j}`)).status).toBe(200);
    await emu.control('POST', '/clock/advance', { ms: 1 * DAY });
    const gone = await call(emu, A, 'GET', `/api/v1/import-jobs/${j}`);
    expect(gone.status).toBe(404);
    const listing = await call(emu, A, 'GET', `/api/v1/import-jobs?contactListId=${l.id}`);
    expect(listing.body.data).toEqual([]);
    expect((await call(emu, A, 'POST', `/api/v1/import-jobs/${j}/cancel`)).status).toBe(404);
    // The contacts it imported stay.
    expect((await call(emu, A, 'GET', `/api/v1/contact-lists/${l.id}`)).body.data.contactCount).toBe(1);
  });
});

describe('progress in simulated time', () => {
  it('shows consistent progress mid-way, and cancel keeps the rows already processed', async () => {
    // 500 rows per simulated second; at time scale 5 a chunk takes 200 real ms.
    const slow = await startTestEmulator({ timeScale: 5 });
    try {
      const l = await createList(slow, A);
      const rows = people(3000).map((p, i) => (i % 10 === 9 ? { name: p.name, phone: 'bad' } : p));
      const r = await call(slow, A, 'POST', `/api/v1/contact-lists/${l.id}/contacts`, { contacts: rows });
      expect(r.status).toBe(202);
      const jobId = r.body.jobId as string;
      let mid: any;
      for (;;) {
        const g = await call(slow, A, 'GET', `/api/v1/import-jobs/${jobId}`);
        checkProgress(g.body);
        expect(g.body.progress.total).toBe(3000);
        if (g.body.status === 'processing' && g.body.progress.processed > 0) {
          mid = g.body;
          break;
        }
        expect(['pending', 'processing']).toContain(g.body.status);
        await new Promise((res) => setTimeout(res, 20));
      }
      expect(mid.progress.processed).toBeLessThan(3000);
      expect(mid.progress.failed).toBe(mid.progress.processed / 10);
      expect(mid.errors.every((e: any) => e.field === 'phone' && e.row % 10 === 0)).toBe(true);
      const c = await call(slow, A, 'POST', `/api/v1/import-jobs/${jobId}/cancel`);
      expect(c.status).toBe(200);
      expect(c.body).toEqual({ id: jobId, status: 'cancelled', message: expect.stringMatching(/stay in the list/) });
      const after = await call(slow, A, 'GET', `/api/v1/import-jobs/${jobId}`);
      expect(after.body.status).toBe('cancelled');
      checkProgress(after.body);
      expect(after.body.progress.processed).toBeLessThan(3000);
      const cs = await call(slow, A, 'GET', `/api/v1/contact-lists/${l.id}/contacts?limit=1`);
      expect(cs.body.pagination.total).toBe(after.body.progress.successful);
      expect(after.body.progress.successful).toBeGreaterThan(0);
      const again = await call(slow, A, 'POST', `/api/v1/import-jobs/${jobId}/cancel`);
      expect(again.status).toBe(409);
      expect(again.body.error.message).toContain('cancelled');
      // Nothing moves after cancel.
      await new Promise((res) => setTimeout(res, 450));
      const still = await call(slow, A, 'GET', `/api/v1/import-jobs/${jobId}`);
      expect(still.body.progress).toEqual(after.body.progress);
    } finally {
      await slow.close();
    }
  });
});
