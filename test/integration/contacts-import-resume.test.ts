import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type CliResult } from '../helpers/run-cli.js';

/** The state file of an import of `file` (in VAP_STATE_DIR, found by the input path it records). */
function statePathOf(file: string): string {
  const d = join(env.VAP_STATE_DIR!, 'imports');
  for (const n of existsSync(d) ? readdirSync(d) : []) {
    if (!n.endsWith('.json')) continue;
    try {
      if (JSON.parse(readFileSync(join(d, n), 'utf8')).input?.path === resolvePath(file)) return join(d, n);
    } catch {
      // mid-rename or being written: not this one
    }
  }
  return join(d, 'none.json');
}

// Interrupted imports and their resumption: however the run stopped, the list ends
// with every valid row exactly once.

let emu: TestEmulator;
let env: Record<string, string>;
let dir: string;

const api = <T = any>(method: string, path: string, body?: unknown) => emu.api<T>(method, path, body);

async function createList(): Promise<string> {
  const r = await api<{ data: { id: string } }>('POST', '/api/v1/contact-lists', {
    name: 'resume',
    schema: {
      fields: [
        { name: 'name', type: 'string', required: true },
        { name: 'phone', type: 'phone', required: true },
      ],
    },
  });
  return r.body.data.id;
}

async function contactCount(listId: string): Promise<number> {
  return (await api<{ data: { contactCount: number } }>('GET', `/api/v1/contact-lists/${listId}`)).body.data.contactCount;
}

async function jobsOf(listId: string): Promise<Array<{ id: string; progress: { total: number } }>> {
  return (await api<{ data: Array<{ id: string; progress: { total: number } }> }>('GET', `/api/v1/import-jobs?contactListId=${listId}&limit=100`)).body.data;
}

/** `valid` valid rows with distinct phones, and a bad row every 7th. */
function csvFile(name: string, valid: number): string {
  const lines = ['name,phone'];
  let v = 0;
  for (let i = 1; v < valid; i++) {
    if (i % 7 === 0) lines.push(`Bad ${i},nope`);
    else lines.push(`Person ${v},+1415555${String(1000 + v++).padStart(4, '0')}`);
  }
  const p = join(dir, name);
  writeFileSync(p, `${lines.join('\n')}\n`);
  return p;
}

const readState = (file: string) => JSON.parse(readFileSync(statePathOf(file), 'utf8'));
const knownJobs = (file: string) => (existsSync(statePathOf(file)) ? (readState(file).jobs as Array<string | null>).filter(Boolean).length : 0);

async function until(cond: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Starts an import whose POSTs the emulator slows down, presses Ctrl-C once `jobs`
 * batches have reached the server, and clears the faults again.
 */
async function interruptedImport(
  listId: string,
  file: string,
  o: { jobs: number; batchSize: number; concurrency: number; delayMs: number },
): Promise<CliResult> {
  await emu.fault({ method: 'POST', path: `/api/v1/contact-lists/${listId}/contacts`, delayMs: o.delayMs, count: 1000 });
  const ac = new AbortController();
  const running = runCli(['contacts', 'import', listId, file, '--batch-size', String(o.batchSize), '--concurrency', String(o.concurrency)], {
    env,
    signal: ac.signal,
  });
  await until(() => knownJobs(file) >= o.jobs);
  ac.abort();
  const r = await running;
  await fetch(`${emu.url}/_emulator/faults`, { method: 'DELETE' });
  return r;
}

beforeAll(async () => {
  emu = await startTestEmulator();
  env = { ...cliEnv(emu.url, ORG_A.apiKey), VAP_STATE_DIR: mkdtempSync(join(tmpdir(), 'vap-import-state-')) };
  dir = mkdtempSync(join(tmpdir(), 'vap-resume-'));
});
afterAll(async () => {
  await emu.close();
});

describe('interrupt and resume', () => {
  it('Ctrl-C after some batches: the in-flight POST is recorded, exit 130 with the resume command; --resume finishes with an exact count', async () => {
    const listId = await createList();
    const file = csvFile('ctrlc.csv', 60);
    const r = await interruptedImport(listId, file, { jobs: 3, batchSize: 5, concurrency: 2, delayMs: 80 });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(`Resume with:\n  vap contacts import ${listId} ${file} --resume --batch-size 5\n`);
    expect(r.stderr).toMatch(/nothing was cancelled/);
    const state = readState(file);
    expect(state.complete).toBe(false);
    expect(state.owner).toBeNull();
    expect(state.open.filter((b: { st: string }) => b.st === 'sending')).toEqual([]);
    const sentBefore = state.jobs.filter(Boolean).length;
    expect(sentBefore).toBeGreaterThanOrEqual(3);
    expect(sentBefore).toBeLessThan(12);
    expect(existsSync(join(dir, 'ctrlc.errors.csv'))).toBe(false); // partial errors file discarded

    const resumed = await runCli(['contacts', 'import', listId, file, '--resume', '--batch-size', '5', '--json'], { env });
    expect(resumed.code).toBe(1); // the bad rows
    const summary = JSON.parse(resumed.stdout);
    expect(summary).toMatchObject({ resumed: true, complete: true, imported: 60, rejectedByServer: 0, jobs: 12 });
    expect(summary.rejectedLocally).toBe(9);
    expect(await contactCount(listId)).toBe(60);
    expect(await jobsOf(listId)).toHaveLength(12);
    // The errors file is whole again after the resumed run.
    expect(readFileSync(join(dir, 'ctrlc.errors.csv'), 'utf8').trim().split('\n')).toHaveLength(10);
  });

  it('a 5xx on a POST: the batch is looked up among the jobs, and sent again only because it never arrived', async () => {
    const listId = await createList();
    const file = csvFile('503.csv', 20);
    await emu.fault({ method: 'POST', path: `/api/v1/contact-lists/${listId}/contacts`, status: 503, count: 1 });
    const r = await runCli(['contacts', 'import', listId, file, '--batch-size', '10', '--allow-invalid'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/batch 1 \(rows 1–11\): injected fault: HTTP 503 \(HTTP 503.*checking whether it reached the server/);
    expect(r.stderr).toMatch(/batch 1 never reached the server; sending it again/);
    expect(await contactCount(listId)).toBe(20);
    expect(await jobsOf(listId)).toHaveLength(2);
  });

  it('a POST whose answer is lost after the server took it: found among the jobs, not sent twice', async () => {
    const listId = await createList();
    const file = csvFile('lost.csv', 20);
    // A proxy that passes the first POST on but drops the connection instead of answering.
    let dropped = 0;
    const upstream = new URL(emu.url);
    const proxy = createServer((req, res) => {
      const up = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (ur) => {
        if (req.method === 'POST' && dropped === 0) {
          dropped++;
          ur.resume();
          ur.on('end', () => req.socket.destroy());
          return;
        }
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
      });
      req.pipe(up);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const proxied = cliEnv(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, ORG_A.apiKey);
      const r = await runCli(['contacts', 'import', listId, file, '--batch-size', '10', '--allow-invalid'], { env: proxied });
      expect(dropped).toBe(1);
      expect(r.stderr).toMatch(/batch 1 \(rows 1–11\): could not reach .*; checking whether it reached the server/);
      expect(r.stderr).toMatch(/batch 1 did reach the server as job job_/);
      expect(r.code).toBe(0);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
    expect(await contactCount(listId)).toBe(20);
    expect(await jobsOf(listId)).toHaveLength(2);
  });

  it('a crash between the POST and the state write (batch left "sending"): --resume finds its job', async () => {
    const listId = await createList();
    const file = csvFile('crash-after.csv', 30);
    const first = await runCli(['contacts', 'import', listId, file, '--batch-size', '10', '--allow-invalid'], { env });
    expect(first.code).toBe(0);
    // Rewind the state as if the process died right after batch 3's POST: its job unknown, the import unfinished.
    const s = readState(file);
    const lastJob = s.jobs[2];
    s.complete = false;
    delete s.completedAt;
    const rows = readFileSync(file, 'utf8').trim().split('\n').length - 1; // 34 rows: 30 valid, 4 bad
    s.prefix = { batches: 2, rows: 20, ok: 20, bad: 0, to: 23 };
    s.jobs = s.jobs.slice(0, 2);
    s.open = [{ i: 2, from: 24, to: rows, n: 10, st: 'sending', at: new Date().toISOString() }];
    writeFileSync(statePathOf(file), JSON.stringify(s));
    const r = await runCli(['contacts', 'import', listId, file, '--batch-size', '10', '--resume', '--allow-invalid', '--json'], { env });
    expect(r.stderr).toContain(`batch 3 (rows 24–${rows}) had reached the server as job ${lastJob}`);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ imported: 30, jobs: 3, complete: true });
    expect(await contactCount(listId)).toBe(30);
    expect(await jobsOf(listId)).toHaveLength(3);
  });

  it('a crash between the state write and the POST: --resume proves the batch never arrived and sends it', async () => {
    const listId = await createList();
    const file = csvFile('crash-before.csv', 30);
    expect((await interruptedImport(listId, file, { jobs: 1, batchSize: 10, concurrency: 1, delayMs: 60 })).code).toBe(130);
    const s = readState(file);
    const next = s.jobs.filter(Boolean).length;
    s.open.push({ i: next, from: 1000, to: 1000, n: 10, st: 'sending', at: new Date().toISOString() });
    // from/to as recorded would be checked against the file: use the real ones.
    const dataRows = readFileSync(file, 'utf8').trim().split('\n').slice(1);
    const validRows = dataRows
      .map((l, i) => [l, i + 1] as const)
      .filter(([l]) => !l.endsWith(',nope'))
      .map(([, n]) => n);
    s.open[s.open.length - 1] = { ...s.open[s.open.length - 1], from: validRows[next * 10], to: validRows[next * 10 + 9] };
    writeFileSync(statePathOf(file), JSON.stringify(s));
    const r = await runCli(['contacts', 'import', listId, file, '--batch-size', '10', '--resume', '--allow-invalid'], { env });
    expect(r.stderr).toContain(`batch ${next + 1} (rows ${validRows[next * 10]}–${validRows[next * 10 + 9]}) never reached the server; it will be sent again`);
    expect(r.code).toBe(0);
    expect(await contactCount(listId)).toBe(30);
    expect(await jobsOf(listId)).toHaveLength(3);
  });

  it('polling that keeps failing stops the import (exit 1) with the resume command; --resume completes it exactly', async () => {
    const listId = await createList();
    const file = csvFile('poll.csv', 20);
    await emu.fault({ method: 'GET', path: '/api/v1/import-jobs/*', status: 500, count: 4, retryAfter: 0 });
    const r = await runCli(['contacts', 'import', listId, file, '--batch-size', '10'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The import stopped before the end.');
    expect(r.stderr).toContain(`vap contacts import ${listId} ${file} --resume --batch-size 10`);
    expect(r.stderr).toMatch(/error: injected fault: HTTP 500/);
    const again = await runCli(['contacts', 'import', listId, file, '--batch-size', '10', '--resume', '--allow-invalid', '--json'], { env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ imported: 20, jobs: 2 });
    expect(await contactCount(listId)).toBe(20);
  });

  it('--resume refuses another file, other options, another list; a second run without --resume is refused', async () => {
    const listId = await createList();
    const file = csvFile('refuse.csv', 30);
    expect((await interruptedImport(listId, file, { jobs: 1, batchSize: 10, concurrency: 1, delayMs: 60 })).code).toBe(130);

    const cases: Array<[string[], RegExp]> = [
      [['--resume', '--batch-size', '5'], /--batch-size was 10, now 5/],
      [['--resume', '--batch-size', '10', '--default-country', 'US'], /--default-country was not given, now US/],
      [['--resume', '--batch-size', '10', '--map', 'phone=name', '--map', 'name=phone'], /the column mapping was/],
      [['--batch-size', '10'], /an unfinished import of .* exists .*--resume/],
      [['--resume', '--force'], /contradict/],
    ];
    for (const [args, msg] of cases) {
      const r = await runCli(['contacts', 'import', listId, file, ...args], { env });
      expect(r.stderr).toMatch(msg);
      expect(r.code).toBe(2);
    }
    const other = await createList();
    const wrongList = await runCli(['contacts', 'import', other, file, '--resume', '--batch-size', '10'], { env });
    expect(wrongList.code).toBe(2);
    expect(wrongList.stderr).toMatch(new RegExp(`is for list ${listId}, not ${other}`));

    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace('Person 0,', 'Persen 0,'));
    const changed = await runCli(['contacts', 'import', listId, file, '--resume', '--batch-size', '10'], { env });
    expect(changed.code).toBe(2);
    expect(changed.stderr).toMatch(/is not the file this import began with/);
    writeFileSync(file, original);

    const done = await runCli(['contacts', 'import', listId, file, '--resume', '--batch-size', '10', '--allow-invalid'], { env });
    expect(done.stderr).toMatch(/moved or touched since the import began/);
    expect(done.code).toBe(0);
    expect(await contactCount(listId)).toBe(30);
    // --force starts over (and imports everything again, as it says).
    const forced = await runCli(['contacts', 'import', listId, file, '--batch-size', '10', '--force', '--allow-invalid'], { env });
    expect(forced.code).toBe(0);
    expect(await contactCount(listId)).toBe(60);
  });

  it('rows the server rejected in an earlier run are reported again (and written to the errors file) when resumed', async () => {
    const listId = await createList();
    const file = csvFile('server-resume.csv', 30);
    // Hold the first POST while the schema gains a required field: the server rejects every row.
    await emu.fault({ method: 'POST', path: `/api/v1/contact-lists/${listId}/contacts`, delayMs: 1000, count: 1 });
    await emu.fault({ method: 'POST', path: `/api/v1/contact-lists/${listId}/contacts`, delayMs: 150, count: 100 });
    const ac = new AbortController();
    const running = runCli(['contacts', 'import', listId, file, '--batch-size', '10', '--concurrency', '1'], { env, signal: ac.signal });
    await until(() => existsSync(statePathOf(file)) && readState(file).open.length > 0);
    expect((await api('PATCH', `/api/v1/contact-lists/${listId}/schema`, { fields: [{ name: 'company', type: 'string', required: true }] })).status).toBe(200);
    await until(() => readState(file).prefix.batches >= 1);
    ac.abort();
    expect((await running).code).toBe(130);
    await fetch(`${emu.url}/_emulator/faults`, { method: 'DELETE' });
    // Let the jobs already sent finish under that schema, then make the field optional again.
    await until(async () =>
      (await api<{ data: Array<{ status: string }> }>('GET', `/api/v1/import-jobs?contactListId=${listId}`)).body.data.every((j) =>
        ['completed', 'failed', 'cancelled'].includes(j.status),
      ),
    );
    const rejectedBatches = (await jobsOf(listId)).length;
    expect((await api('PATCH', `/api/v1/contact-lists/${listId}/schema`, { fields: [{ name: 'company', required: false }] })).status).toBe(200);
    const r = await runCli(['contacts', 'import', listId, file, '--batch-size', '10', '--resume', '--json'], { env });
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      imported: 30 - 10 * rejectedBatches,
      rejectedByServer: 10 * rejectedBatches,
      rejectedLocally: 4,
      jobs: 3,
      complete: true,
    });
    // Row 1 was in the first batch, rejected in the first run: reported again from its job.
    expect(r.stderr).toContain('row 1, field company: is required (server)');
    const lines = readFileSync(join(dir, 'server-resume.errors.csv'), 'utf8').trim().split('\r\n');
    expect(lines).toHaveLength(1 + 10 * rejectedBatches + 4);
    expect(await contactCount(listId)).toBe(30 - 10 * rejectedBatches);
  });

  it('Ctrl-C during a dry run: exit 130, no errors file, no state', async () => {
    const listId = await createList();
    const file = csvFile('dry-ctrlc.csv', 150_000);
    const ac = new AbortController();
    const running = runCli(['contacts', 'import', listId, file, '--dry-run'], { env, signal: ac.signal });
    setTimeout(() => ac.abort(), 150);
    const r = await running;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/Interrupted after reading [\d,]+ rows/);
    expect(existsSync(join(dir, 'dry-ctrlc.errors.csv'))).toBe(false);
    expect(existsSync(join(dir, 'dry-ctrlc.dry-run.errors.csv'))).toBe(false);
    expect(existsSync(statePathOf(file))).toBe(false);
  });
});
