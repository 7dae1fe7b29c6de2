import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

let emu: TestEmulator;
let listId: string;
let bigId: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  listId = await createList('People', ['name:string:required', 'phone:phone', 'age:number']);
  await seedContacts(listId, [
    { name: 'Ada Lovelace', phone: '+14155550100', age: 36 },
    { name: 'Bob Tab\there', phone: '+14155550101' },
    { name: 'Cy Young', phone: '+442071838750', age: 41 },
  ]);
  bigId = await createList('Big', ['name:string']);
  await seedContacts(
    bigId,
    Array.from({ length: 150 }, (_, i) => ({ name: `c${i}` })),
  );
});
afterAll(async () => {
  await emu.close();
});

const vap = (argv: string[], opts: RunOptions & { key?: string } = {}) =>
  runCli(argv, { ...opts, env: { ...cliEnv(emu.url, opts.key ?? ORG_A.apiKey), ...opts.env } });

async function createList(name: string, fields: string[]): Promise<string> {
  const r = await vap(['contact-lists', 'create', '--name', name, ...fields.flatMap((f) => ['--field', f]), '-q']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

async function seedContacts(id: string, contacts: Array<Record<string, unknown>>): Promise<void> {
  const headers = { 'x-api-key': ORG_A.apiKey, 'content-type': 'application/json' };
  const res = await fetch(`${emu.url}/api/v1/contact-lists/${id}/contacts`, { method: 'POST', headers, body: JSON.stringify({ contacts }) });
  expect(res.status).toBe(202);
  const { jobId } = (await res.json()) as { jobId: string };
  for (;;) {
    const job = (await (await fetch(`${emu.url}/api/v1/import-jobs/${jobId}`, { headers })).json()) as { status: string; progress: { failed: number } };
    if (job.status === 'completed') {
      expect(job.progress.failed).toBe(0);
      return;
    }
    expect(['pending', 'processing']).toContain(job.status);
    await sleep(20);
  }
}

describe('vap contacts list', () => {
  it('prints a table whose columns are the id and the schema fields', async () => {
    const r = await vap(['contacts', 'list', listId], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+PHONE\s+AGE$/);
    expect(lines).toHaveLength(4);
    expect(r.stdout).toMatch(/Ada Lovelace\s+\+14155550100\s+36/);
  });

  it('prints TSV with the same columns when piped', async () => {
    const r = await vap(['contacts', 'list', listId]);
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).toHaveLength(4);
    expect(rows.map((x) => x.slice(1))).toContainEqual(['Bob Tab\\there', '+14155550101', '']);
  });

  it('prints NDJSON with the same columns, and JSON as the raw objects', async () => {
    const nd = await vap(['contacts', 'list', listId, '-o', 'ndjson']);
    const objs = nd.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(objs).toHaveLength(3);
    for (const o of objs) expect(Object.keys(o)).toEqual(['id', 'name', 'phone', 'age']);
    const json = await vap(['contacts', 'list', listId, '--json']);
    const raw = JSON.parse(json.stdout);
    expect(raw).toHaveLength(3);
    expect(raw.find((c: { name: string }) => c.name === 'Ada Lovelace')).toMatchObject({ phone: '+14155550100', age: 36 });
    expect(raw[0].id).toBe(objs[0].id);
  });

  it('searches by name or phone', async () => {
    const byName = await vap(['contacts', 'list', listId, '--search', 'lovelace', '--json']);
    expect(JSON.parse(byName.stdout).map((c: { name: string }) => c.name)).toEqual(['Ada Lovelace']);
    const byPhone = await vap(['contacts', 'list', listId, '--search', '+44 20 7183', '--json']);
    expect(JSON.parse(byPhone.stdout).map((c: { name: string }) => c.name)).toEqual(['Cy Young']);
    const none = await vap(['contacts', 'list', listId, '--search', 'zzz'], { tty: true });
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('match "zzz"');
  });

  it('pages with --limit, --page and --all (at most 100 a page)', async () => {
    const two = await vap(['contacts', 'list', bigId, '--limit', '2', '-q']);
    expect(two.stdout.trim().split('\n')).toHaveLength(2);
    const next = await vap(['contacts', 'list', bigId, '--limit', '2', '--page', '2', '-q']);
    const nextIds = next.stdout.trim().split('\n');
    expect(nextIds).toHaveLength(2);
    expect(nextIds).not.toContain(two.stdout.trim().split('\n')[0]);
    const dflt = await vap(['contacts', 'list', bigId, '-q']);
    expect(dflt.stdout.trim().split('\n')).toHaveLength(50);
    await emu.clearRequests();
    const all = await vap(['contacts', 'list', bigId, '--all', '-q']);
    expect(new Set(all.stdout.trim().split('\n')).size).toBe(150);
    const pages = (await emu.requests()).filter((q) => q.path === `/api/v1/contact-lists/${bigId}/contacts`);
    expect(pages).toHaveLength(2);
  });

  it('says so when a list is empty', async () => {
    const empty = await createList('Empty', ['name:string']);
    const r = await vap(['contacts', 'list', empty], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`No contacts in ${empty} yet`);
  });

  it("does not list another tenant's contacts", async () => {
    const r = await vap(['contacts', 'list', listId], { key: ORG_B.apiKey });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`contact list ${listId} not found`);
    expect(r.stdout).toBe('');
  });

  it('refuses a bad --limit before sending anything', async () => {
    await emu.clearRequests();
    const r = await vap(['contacts', 'list', listId, '--limit', '0']);
    expect(r.code).toBe(2);
    expect(await emu.requests()).toEqual([]);
  });

  it('has --help with examples', async () => {
    const r = await vap(['contacts', 'list', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('$ vap contacts list cl_123');
  });
});
