import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// Two emulators: a fast one (simulated time 1000x) where jobs finish at once, and
// a real-time one where a large job stays pending, then processing, for many seconds.
let fast: TestEmulator;
let slow: TestEmulator;
beforeAll(async () => {
  [fast, slow] = await Promise.all([startTestEmulator({ allowLoopbackUrls: true }), startTestEmulator({ timeScale: 1 })]);
});
afterAll(async () => {
  await Promise.all([fast.close(), slow.close()]);
});

type Emu = TestEmulator;
const vap = (emu: Emu, argv: string[], opts: RunOptions & { key?: string } = {}) =>
  runCli(argv, { ...opts, env: { ...cliEnv(emu.url, opts.key ?? ORG_A.apiKey), ...opts.env } });
const headers = { 'x-api-key': ORG_A.apiKey, 'content-type': 'application/json' };

async function createList(emu: Emu, fields = ['name:string:required', 'phone:phone']): Promise<string> {
  const r = await vap(emu, ['contact-lists', 'create', '--name', 'Jobs', ...fields.flatMap((f) => ['--field', f]), '-q']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

async function startImport(emu: Emu, listId: string, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${emu.url}/api/v1/contact-lists/${listId}/contacts`, { method: 'POST', headers, body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { jobId: string }).jobId;
}

async function jobStatus(emu: Emu, jobId: string): Promise<string> {
  return ((await (await fetch(`${emu.url}/api/v1/import-jobs/${jobId}`, { headers })).json()) as { status: string }).status;
}

async function finished(emu: Emu, jobId: string): Promise<string> {
  for (;;) {
    const s = await jobStatus(emu, jobId);
    if (!['pending', 'processing'].includes(s)) return s;
    await sleep(20);
  }
}

const MIXED = [{ name: 'Ada', phone: '+14155550100' }, { name: 'Bob', phone: 'not a phone' }, { phone: '+14155550102' }];
const big = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, phone: '+14155550100' }));

describe('vap import-jobs list', () => {
  it('lists jobs, filtered by list and status', async () => {
    const l1 = await createList(fast);
    const l2 = await createList(fast);
    const j1 = await startImport(fast, l1, { contacts: MIXED });
    const j2 = await startImport(fast, l2, { contacts: MIXED });
    await finished(fast, j1);
    await finished(fast, j2);
    const byList = await vap(fast, ['import-jobs', 'list', '--list', l1, '-q']);
    expect(byList.code, byList.stderr).toBe(0);
    expect(byList.stdout.trim().split('\n')).toEqual([j1]);
    const completed = await vap(fast, ['import-jobs', 'list', '--status', 'completed', '--json']);
    const ids = JSON.parse(completed.stdout).map((j: { id: string }) => j.id);
    expect(ids).toEqual(expect.arrayContaining([j1, j2]));
    const none = await vap(fast, ['import-jobs', 'list', '--status', 'failed', '--list', l1, '--json']);
    expect(JSON.parse(none.stdout)).toEqual([]);
    // --wide: every column (at 80 columns CREATED is left out so that the table fits).
    const table = await vap(fast, ['import-jobs', 'list', '--list', l1, '--wide'], { tty: true });
    expect(table.stdout).toMatch(/ID\s+LIST\s+STATUS\s+PROCESSED\s+FAILED\s+CREATED/);
    expect(table.stdout).toMatch(new RegExp(`${j1}\\s+${l1}\\s+completed\\s+3/3\\s+2`));
  });

  it('refuses an unknown --status before sending anything', async () => {
    await fast.clearRequests();
    const r = await vap(fast, ['import-jobs', 'list', '--status', 'done']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('pending, processing, completed, failed, cancelled');
    expect(await fast.requests()).toEqual([]);
  });
});

describe('vap import-jobs get', () => {
  it('shows status, progress and the row errors', async () => {
    const list = await createList(fast);
    const job = await startImport(fast, list, { contacts: MIXED });
    await finished(fast, job);
    const r = await vap(fast, ['import-jobs', 'get', job], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/status\s+completed/);
    expect(r.stdout).toContain('3/3 (1 ok, 2 failed)');
    expect(r.stdout).toMatch(/row 2, field phone: .*not a valid phone number|row 2, field phone: .*E\.164/);
    expect(r.stdout).toContain('row 3, field name: is required');
    const json = await vap(fast, ['import-jobs', 'get', job, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      id: job,
      contactListId: list,
      status: 'completed',
      progress: { total: 3, processed: 3, successful: 1, failed: 2 },
    });
  });

  it("does not show another tenant's job", async () => {
    const list = await createList(fast);
    const job = await startImport(fast, list, { contacts: MIXED });
    const r = await vap(fast, ['import-jobs', 'get', job], { key: ORG_B.apiKey });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`import job ${job} not found`);
    const c = await vap(fast, ['import-jobs', 'cancel', job], { key: ORG_B.apiKey });
    expect(c.code).toBe(1);
    expect(c.stderr).toContain('not found');
  });
});

describe('vap import-jobs cancel', () => {
  it('cancels a pending job', async () => {
    const list = await createList(slow);
    const job = await startImport(slow, list, { contacts: big(2000) });
    const r = await vap(slow, ['import-jobs', 'cancel', job, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: job, status: 'cancelled' });
    expect(r.stderr).toContain(`Cancelled import job ${job}`);
    expect(await jobStatus(slow, job)).toBe('cancelled');
  });

  it('explains in one line that a finished job cannot be cancelled', async () => {
    const list = await createList(fast);
    const job = await startImport(fast, list, { contacts: MIXED });
    expect(await finished(fast, job)).toBe('completed');
    const r = await vap(fast, ['import-jobs', 'cancel', job]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: job ${job} has already completed; only pending or processing jobs can be cancelled\n`);
  });
});

describe('vap import-jobs watch', () => {
  it('exits 0 when the job completes, with progress lines on stderr and the job on stdout', async () => {
    const list = await createList(fast);
    const job = await startImport(fast, list, { contacts: MIXED });
    const r = await vap(fast, ['import-jobs', 'watch', job, '--interval', '100ms', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: job, status: 'completed' });
    expect(r.stderr).toContain(`import job ${job} completed: 3/3 (1 ok, 2 failed)`);
  });

  it('draws a progress bar on a terminal', async () => {
    const list = await createList(fast);
    const job = await startImport(fast, list, { contacts: MIXED });
    const r = await vap(fast, ['import-jobs', 'watch', job, '--interval', '100ms'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('\r');
    expect(r.stderr).toMatch(/█+ 100%\s+3\/3\s+1 ok, 2 failed\s+completed/);
    expect(r.stdout).toMatch(/status\s+completed/);
  });

  it('exits 1 when the job fails', async () => {
    const list = await createList(fast);
    const job = await startImport(fast, list, { fileUrl: `${fast.url}/no-such-file.csv`, fileFormat: 'csv' });
    const r = await vap(fast, ['import-jobs', 'watch', job, '--interval', '100ms']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`error: import job ${job} failed`));
  });

  it('exits 1 when the job is cancelled while watched', async () => {
    const list = await createList(slow);
    const job = await startImport(slow, list, { contacts: big(5000) });
    const watching = vap(slow, ['import-jobs', 'watch', job, '--interval', '100ms']);
    await sleep(150);
    const c = await vap(slow, ['import-jobs', 'cancel', job, '-q']);
    expect(c.code, c.stderr).toBe(0);
    const r = await watching;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: import job ${job} was cancelled`);
  });

  it('exits 124 at --timeout and leaves the job running', async () => {
    const list = await createList(slow);
    const job = await startImport(slow, list, { contacts: big(5000) });
    const r = await vap(slow, ['import-jobs', 'watch', job, '--interval', '100ms', '--timeout', '300ms']);
    expect(r.code).toBe(124);
    expect(r.stderr).toContain(`import job ${job} had not finished after 300ms`);
    expect(['pending', 'processing']).toContain(await jobStatus(slow, job));
    await vap(slow, ['import-jobs', 'cancel', job]);
  });

  it('exits 124 when --timeout passes during a slow response', async () => {
    const list = await createList(fast);
    const job = await startImport(fast, list, { contacts: MIXED });
    await fast.fault({ method: 'GET', path: `/api/v1/import-jobs/${job}`, delayMs: 3000 });
    const r = await vap(fast, ['import-jobs', 'watch', job, '--timeout', '1ms']);
    expect(r.code).toBe(124);
    expect(r.stderr).toContain('had not finished after 1ms');
  });

  it('stops on Ctrl-C with exit 130 and does not cancel the job', async () => {
    const list = await createList(slow);
    const job = await startImport(slow, list, { contacts: big(5000) });
    const ctl = new AbortController();
    const watching = vap(slow, ['import-jobs', 'watch', job, '--interval', '100ms'], { signal: ctl.signal });
    await sleep(150);
    ctl.abort();
    const r = await watching;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('stopped watching');
    expect(['pending', 'processing']).toContain(await jobStatus(slow, job));
    const requests = await slow.requests();
    expect(requests.filter((q) => q.method === 'POST' && q.path.endsWith(`${job}/cancel`))).toEqual([]);
    await vap(slow, ['import-jobs', 'cancel', job]);
  });

  it('refuses a bad duration', async () => {
    const r = await vap(fast, ['import-jobs', 'watch', 'job_x', '--timeout', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--timeout takes a duration such as 500ms, 30s, 10m or 1h');
  });
});

describe('help', () => {
  it.each(['list', 'get', 'cancel', 'watch'])('%s --help has an example', async (verb) => {
    const r = await vap(fast, ['import-jobs', verb, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`$ vap import-jobs ${verb}`);
  });
});
