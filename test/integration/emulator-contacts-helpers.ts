import type { TestEmulator } from '../helpers/emulator.js';

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A raw document-2 request with `x-api-key`. */
export async function call<T = any>(
  emu: { url: string },
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Res<T>> {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

export const FINISHED = new Set(['completed', 'failed', 'cancelled']);

/** Polls a job until it finishes, checking the progress invariants on every read. */
export async function waitForJob(emu: { url: string }, key: string, jobId: string, seen: string[] = []): Promise<any> {
  for (;;) {
    const r = await call(emu, key, 'GET', `/api/v1/import-jobs/${jobId}`);
    if (r.status !== 200) throw new Error(`GET job ${jobId}: ${r.status} ${JSON.stringify(r.body)}`);
    checkProgress(r.body);
    if (seen[seen.length - 1] !== r.body.status) seen.push(r.body.status);
    if (FINISHED.has(r.body.status)) return r.body;
    await new Promise((res) => setTimeout(res, 10));
  }
}

export function checkProgress(job: any): void {
  const p = job.progress;
  for (const k of ['total', 'processed', 'successful', 'failed']) {
    if (!Number.isInteger(p[k]) || p[k] < 0) throw new Error(`progress.${k} is not a non-negative integer: ${JSON.stringify(p)}`);
  }
  if (p.processed !== p.successful + p.failed) throw new Error(`processed != successful + failed: ${JSON.stringify(p)}`);
  if (p.processed > p.total) throw new Error(`processed > total: ${JSON.stringify(p)}`);
}

export const SCHEMA = {
  fields: [
    { name: 'name', type: 'string', required: true },
    { name: 'phone', type: 'phone', required: true },
    { name: 'email', type: 'email' },
    { name: 'age', type: 'number' },
    { name: 'vip', type: 'boolean' },
    { name: 'birthday', type: 'date' },
  ],
};

export async function createList(emu: TestEmulator | { url: string }, key: string, name = 'customers', schema: unknown = SCHEMA): Promise<any> {
  const r = await call(emu, key, 'POST', '/api/v1/contact-lists', { name, schema });
  if (r.status !== 201) throw new Error(`create list: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

/** n valid contacts with distinct US phone numbers. */
export function people(n: number, from = 0): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => ({ name: `Person ${from + i}`, phone: `+1415555${String(1000 + ((from + i) % 9000)).padStart(4, '0')}` }));
}
