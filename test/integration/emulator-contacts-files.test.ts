import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { call, createList, waitForJob } from './emulator-contacts-helpers.js';

const A = ORG_A.apiKey;

const CSV =
  '\uFEFFname,phone,age,notes\n' +
  'Ann Lee,+14155550100,42,"likes ""quotes"", commas"\n' +
  '\n' +
  'Bob,not-a-phone,7,\n' +
  ',+14155550102,x,\n' +
  'Dee,+14155550103\n';
const JSON_FILE = JSON.stringify([
  { name: 'Ann', phone: '+14155550100', age: 42 },
  'oops',
  { name: 'Cy', phone: '+14155550103', age: 'old' },
  { name: 'Dee', phone: '+442071838750' },
]);

let files: Server;
let base: string;
let emu: TestEmulator;
let strict: TestEmulator;

beforeAll(async () => {
  files = createServer((req, res) => {
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    };
    switch (req.url) {
      case '/people.csv':
        return send(200, 'text/csv', CSV);
      case '/people.json':
        return send(200, 'application/json', JSON_FILE);
      case '/bad.json':
        return send(200, 'application/json', '[{"name": "x",');
      case '/object.json':
        return send(200, 'application/json', '{"contacts": []}');
      case '/bad.csv':
        return send(200, 'text/csv', 'name,phone\n"unterminated,+14155550100\n');
      case '/empty.csv':
        return send(200, 'text/csv', '');
      case '/redirect-ok':
        return send(302, 'text/plain', '', { location: '/people.csv' });
      case '/redirect-private':
        return send(302, 'text/plain', '', { location: 'http://10.0.0.1/people.csv' });
      case '/redirect-metadata':
        return send(307, 'text/plain', '', { location: 'http://169.254.169.254/latest/meta-data/' });
      case '/loop':
        return send(302, 'text/plain', '', { location: '/loop' });
      default:
        return send(404, 'text/plain', 'no such file');
    }
  });
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  emu = await startTestEmulator({ allowLoopbackUrls: true });
  strict = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
  await strict.close();
  await new Promise((r) => files.close(r));
});

const SCHEMA = {
  fields: [
    { name: 'name', type: 'string', required: true },
    { name: 'phone', type: 'phone', required: true },
    { name: 'age', type: 'number' },
  ],
};

async function importFile(e: TestEmulator, path: string, fileFormat: 'csv' | 'json') {
  const l = await createList(e, A, `file ${path}`, SCHEMA);
  const r = await call(e, A, 'POST', `/api/v1/contact-lists/${l.id}/contacts`, { fileUrl: `${base}${path}`, fileFormat });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  expect(r.body.status).toBe('pending');
  return { list: l, job: await waitForJob(e, A, r.body.jobId) };
}

describe('file imports', () => {
  it('imports a CSV file: header row of field names, data rows numbered from 1 after it', async () => {
    const { list, job } = await importFile(emu, '/people.csv', 'csv');
    expect(job.status).toBe('completed');
    expect(job.source).toEqual({ type: 'file', fileUrl: `${base}/people.csv`, fileFormat: 'csv' });
    expect(job.progress).toEqual({ total: 4, processed: 4, successful: 2, failed: 2 });
    expect(job.errors).toEqual([
      { row: 2, field: 'phone', message: expect.any(String) },
      { row: 3, field: 'name', message: 'is required' },
      { row: 3, field: 'age', message: expect.stringContaining('not a number') },
    ]);
    const cs = await call(emu, A, 'GET', `/api/v1/contact-lists/${list.id}/contacts`);
    expect(cs.body.data.map((c: any) => ({ name: c.name, phone: c.phone, age: c.age }))).toEqual([
      { name: 'Ann Lee', phone: '+14155550100', age: 42 },
      { name: 'Dee', phone: '+14155550103', age: undefined },
    ]);
    expect(cs.body.data[0]).not.toHaveProperty('notes');
  });

  it('imports a JSON file: an array of objects, rows numbered by index + 1', async () => {
    const { list, job } = await importFile(emu, '/people.json', 'json');
    expect(job.status).toBe('completed');
    expect(job.progress).toEqual({ total: 4, processed: 4, successful: 2, failed: 2 });
    expect(job.errors).toEqual([
      { row: 2, field: '(row)', message: expect.stringContaining('object') },
      { row: 3, field: 'age', message: expect.any(String) },
    ]);
    const cs = await call(emu, A, 'GET', `/api/v1/contact-lists/${list.id}/contacts`);
    expect(cs.body.data.map((c: any) => c.name)).toEqual(['Ann', 'Dee']);
  });

  it('follows a redirect to an allowed URL', async () => {
    const { job } = await importFile(emu, '/redirect-ok', 'csv');
    expect(job.status).toBe('completed');
    expect(job.progress.successful).toBe(2);
  });

  it.each([
    ['/missing.csv', 'csv', /HTTP 404/],
    ['/bad.json', 'json', /not valid JSON/],
    ['/object.json', 'json', /not an array/],
    ['/bad.csv', 'csv', /not valid CSV/],
    ['/empty.csv', 'csv', /empty/],
    ['/redirect-private', 'csv', /not allowed.*10\.0\.0\.1.*private/],
    ['/redirect-metadata', 'csv', /not allowed.*link-local/],
    ['/loop', 'csv', /redirects/],
  ] as const)('fails the job when %s cannot be fetched or parsed', async (path, format, reason) => {
    const { list, job } = await importFile(emu, path, format);
    expect(job.status).toBe('failed');
    expect(job.message).toMatch(reason);
    expect(job.finishedAt).toBeTruthy();
    expect(job.progress.processed).toBe(0);
    expect((await call(emu, A, 'GET', `/api/v1/contact-lists/${list.id}`)).body.data.contactCount).toBe(0);
    const again = await call(emu, A, 'POST', `/api/v1/import-jobs/${job.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('failed');
  });

  it('fails the job when the file server is unreachable', async () => {
    const l = await createList(emu, A, 'unreachable', SCHEMA);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const r = await call(emu, A, 'POST', `/api/v1/contact-lists/${l.id}/contacts`, { fileUrl: `http://127.0.0.1:${port}/x.csv`, fileFormat: 'csv' });
    const job = await waitForJob(emu, A, r.body.jobId);
    expect(job.status).toBe('failed');
    expect(job.message).toMatch(/could not fetch the file/);
  });
});

describe('the URL guard at POST time', () => {
  it.each([
    'http://10.0.0.1/people.csv',
    'http://169.254.169.254/latest/meta-data',
    'http://192.168.1.1/people.csv',
    'http://[::1]:8080/people.csv',
    'http://127.0.0.1:8080/people.csv',
    'http://localhost:8080/people.csv',
    'http://100.64.0.1/x.csv',
    'http://[fe80::1]/x.csv',
    'http://0.0.0.0/x.csv',
    'file:///etc/passwd',
    'ftp://example.com/x.csv',
    'not a url',
  ])('refuses %s without --allow-loopback-urls', async (fileUrl) => {
    const l = await createList(strict, A, 'guard', SCHEMA);
    const r = await call(strict, A, 'POST', `/api/v1/contact-lists/${l.id}/contacts`, { fileUrl, fileFormat: 'csv' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('url_not_allowed');
    expect(r.body.error.message).toMatch(/^fileUrl: /);
    const jobs = await call(strict, A, 'GET', `/api/v1/import-jobs?contactListId=${l.id}`);
    expect(jobs.body.data).toEqual([]);
  });

  it('with the flag allows loopback only', async () => {
    const l = await createList(emu, A, 'guard2', SCHEMA);
    for (const fileUrl of ['http://10.0.0.1/x.csv', 'http://169.254.169.254/', 'http://192.168.1.1/', 'http://172.16.5.4/', 'http://[fd00::1]/']) {
      const r = await call(emu, A, 'POST', `/api/v1/contact-lists/${l.id}/contacts`, { fileUrl, fileFormat: 'csv' });
      expect(r.status, fileUrl).toBe(400);
      expect(r.body.error.code).toBe('url_not_allowed');
    }
    const ok = await call(emu, A, 'POST', `/api/v1/contact-lists/${l.id}/contacts`, {
      fileUrl: `http://localhost:${new URL(base).port}/people.csv`,
      fileFormat: 'csv',
    });
    expect(ok.status).toBe(202);
    expect((await waitForJob(emu, A, ok.body.jobId)).status).toBe('completed');
  });
});
