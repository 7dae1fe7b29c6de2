import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-cl-'));
});
afterAll(async () => {
  await emu.close();
});

const vap = (argv: string[], opts: RunOptions & { key?: string } = {}) =>
  runCli(argv, { ...opts, env: { ...cliEnv(emu.url, opts.key ?? ORG_A.apiKey), ...opts.env } });
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

async function createList(name: string, fields: string[]): Promise<string> {
  const r = await vap(['contact-lists', 'create', '--name', name, ...fields.flatMap((f) => ['--field', f]), '-q']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

/** Puts contacts into a list through the API (an import job) and waits for it to finish. */
async function seedContacts(listId: string, contacts: Array<Record<string, unknown>>): Promise<void> {
  const headers = { 'x-api-key': ORG_A.apiKey, 'content-type': 'application/json' };
  const res = await fetch(`${emu.url}/api/v1/contact-lists/${listId}/contacts`, { method: 'POST', headers, body: JSON.stringify({ contacts }) });
  expect(res.status).toBe(202);
  const { jobId } = (await res.json()) as { jobId: string };
  for (;;) {
    const job = (await (await fetch(`${emu.url}/api/v1/import-jobs/${jobId}`, { headers })).json()) as { status: string };
    if (job.status === 'completed') return;
    expect(['pending', 'processing']).toContain(job.status);
    await sleep(20);
  }
}

describe('vap contact-lists create', () => {
  it('creates a list from --field flags', async () => {
    const r = await vap([
      'contact-lists',
      'create',
      '--name',
      'Leads',
      '--field',
      'name:string:required',
      '--field',
      'phone:phone:required',
      '--field',
      'email:email',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout);
    expect(list.id).toMatch(/^cl_/);
    expect(list.name).toBe('Leads');
    expect(list.schema.fields).toEqual([
      { name: 'name', type: 'string', required: true },
      { name: 'phone', type: 'phone', required: true },
      { name: 'email', type: 'email', required: false },
    ]);
    expect(r.stderr).toContain(`Created contact list ${list.id}`);
  });

  it('prints only the id with -q', async () => {
    const r = await vap(['contact-lists', 'create', '--name', 'Q', '--field', 'a:string', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^cl_\S+\n$/);
    expect(r.stderr).toBe('');
  });

  describe('usage errors send nothing', () => {
    beforeEach(async () => {
      await emu.clearRequests();
    });

    it.each([['name'], [':string'], ['a:string:maybe'], ['a:']])('a malformed --field %s exits 2 naming the flag and the form', async (spec) => {
      const r = await vap(['contact-lists', 'create', '--name', 'X', '--field', spec]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`--field "${spec}"`);
      expect(r.stderr).toContain('name:type[:required]');
      expect(await emu.requests()).toEqual([]);
    });

    it('an unknown type lists the valid ones', async () => {
      const r = await vap(['contact-lists', 'create', '--name', 'X', '--field', 'age:integer']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('unknown field type "integer"');
      expect(r.stderr).toContain('valid types: string, number, boolean, phone, email, date');
      expect(await emu.requests()).toEqual([]);
    });

    it('refuses a field given twice', async () => {
      const r = await vap(['contact-lists', 'create', '--name', 'X', '--field', 'a:string', '--field', 'a:number']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('"a" is given twice');
      expect(await emu.requests()).toEqual([]);
    });

    it('needs a schema, and a name', async () => {
      const none = await vap(['contact-lists', 'create', '--name', 'X']);
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/--field .*--schema-file .*--from-csv/);
      const noName = await vap(['contact-lists', 'create', '--field', 'a:string']);
      expect(noName.code).toBe(2);
      expect(noName.stderr).toContain('--name');
      expect(await emu.requests()).toEqual([]);
    });

    it('refuses a bad schema file', async () => {
      const bad = file('bad.json', '{"fields": [{"name": "a", "type": "text"}]}');
      const r = await vap(['contact-lists', 'create', '--name', 'X', '--schema-file', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('unknown field type "text"');
      expect(r.stderr).toContain('valid types: string, number');
      const missing = await vap(['contact-lists', 'create', '--name', 'X', '--schema-file', join(dir, 'nope.json')]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('no such file');
      expect(await emu.requests()).toEqual([]);
    });

    it('--from-csv without a terminal needs --yes', async () => {
      const csv = file('needs-yes.csv', 'name,phone\nAda,+14155550100\n');
      const r = await vap(['contact-lists', 'create', '--name', 'X', '--from-csv', csv]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--yes');
      expect(r.stdout).toBe('');
      expect(await emu.requests()).toEqual([]);
    });
  });

  it('takes a schema file, as {fields} or a bare array', async () => {
    const obj = file('obj.json', JSON.stringify({ fields: [{ name: 'a', type: 'number', required: true }] }));
    const arr = file('arr.json', JSON.stringify([{ name: 'b', type: 'date' }]));
    const r1 = await vap(['contact-lists', 'create', '--name', 'F1', '--schema-file', obj, '--json']);
    expect(r1.code, r1.stderr).toBe(0);
    expect(JSON.parse(r1.stdout).schema.fields).toEqual([{ name: 'a', type: 'number', required: true }]);
    const r2 = await vap(['contact-lists', 'create', '--name', 'F2', '--schema-file', arr, '--json']);
    expect(r2.code, r2.stderr).toBe(0);
    expect(JSON.parse(r2.stdout).schema.fields).toEqual([{ name: 'b', type: 'date', required: false }]);
  });

  it('infers the schema from a CSV header and sample with --yes', async () => {
    const csv = file(
      'leads.csv',
      'name,phone,email,age,vip,signed_up,zip\n' +
        'Ada,+14155550100,ada@example.com,36,yes,2024-01-05,02134\n' +
        'Bob,+14155550101,bob@example.org,,no,2023-12-31,10001\n',
    );
    const r = await vap(['contact-lists', 'create', '--name', 'From CSV', '--from-csv', csv, '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).schema.fields).toEqual([
      { name: 'name', type: 'string', required: false },
      { name: 'phone', type: 'phone', required: false },
      { name: 'email', type: 'email', required: false },
      { name: 'age', type: 'number', required: false },
      { name: 'vip', type: 'boolean', required: false },
      { name: 'signed_up', type: 'date', required: false },
      { name: 'zip', type: 'string', required: false },
    ]);
    // The inferred schema is shown as a table on stderr.
    expect(r.stderr).toContain('Schema inferred from the header and all 2 rows');
    expect(r.stderr).toMatch(/FIELD\s+TYPE\s+REQUIRED\s+FILLED\s+EXAMPLE/);
    expect(r.stderr).toMatch(/age\s+number\s+no\s+1\/2\s+36/);
  });

  it('lets --field override an inferred column, and --dry-run sends nothing', async () => {
    const csv = file('override.csv', 'name,code\nAda,123\n');
    await emu.clearRequests();
    const r = await vap(['contact-lists', 'create', '--name', 'D', '--from-csv', csv, '--field', 'code:string:required', '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { name: 'name', type: 'string' },
      { name: 'code', type: 'string', required: true },
    ]);
    expect(r.stderr).toContain('nothing was sent');
    expect(await emu.requests()).toEqual([]);
  });
});

describe('vap contact-lists list and get', () => {
  it('lists with --limit, --all and formats', async () => {
    const ids = [await createList('L1', ['a:string']), await createList('L2', ['a:string']), await createList('L3', ['a:string'])];
    const two = await vap(['contact-lists', 'list', '--limit', '2', '-q']);
    expect(two.code).toBe(0);
    expect(two.stdout.trim().split('\n')).toHaveLength(2);
    const all = await vap(['contact-lists', 'list', '--all', '-o', 'ndjson']);
    const rows = all.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const id of ids) expect(rows.map((x) => x.id)).toContain(id);
    const tsv = await vap(['contact-lists', 'list', '--all']);
    const line = tsv.stdout.split('\n').find((l) => l.startsWith(`${ids[0]}\t`));
    expect(line).toMatch(/^cl_\S+\tL1\t0\ta\t/);
    const table = await vap(['contact-lists', 'list', '--all'], { tty: true });
    expect(table.stdout).toMatch(/ID\s+NAME\s+CONTACTS\s+FIELDS\s+UPDATED/);
    const page2 = await vap(['contact-lists', 'list', '--limit', '1', '--page', '2', '-q']);
    expect(page2.stdout.trim()).toBe(rows[1].id);
  });

  it('shows a list and its schema', async () => {
    const id = await createList('Shown', ['name:string:required', 'phone:phone']);
    const json = await vap(['contact-lists', 'get', id, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ id, name: 'Shown', contactCount: 0 });
    const table = await vap(['contact-lists', 'get', id], { tty: true });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/FIELD\s+TYPE\s+REQUIRED/);
    expect(table.stdout).toMatch(/name\s+string\s+yes/);
    expect(table.stdout).toMatch(/phone\s+phone\s+no/);
    const tsv = await vap(['contact-lists', 'get', id]);
    expect(tsv.stdout).toContain('schema\tname:string:required,phone:phone\n');
  });

  it("does not show another tenant's list", async () => {
    const id = await createList('Private', ['a:string']);
    const r = await vap(['contact-lists', 'get', id], { key: ORG_B.apiKey });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`contact list ${id} not found`);
    expect(r.stdout).toBe('');
    const listed = await vap(['contact-lists', 'list', '--all', '-q'], { key: ORG_B.apiKey });
    expect(listed.stdout).not.toContain(id);
    const upd = await vap(['contact-lists', 'update-schema', id, '--field', 'b:string'], { key: ORG_B.apiKey });
    expect(upd.code).toBe(1);
    expect(upd.stderr).toContain('not found');
  });
});

describe('vap contact-lists update-schema', () => {
  it('adds a field to a list without contacts at once', async () => {
    const id = await createList('Grow', ['name:string']);
    const r = await vap(['contact-lists', 'update-schema', id, '--field', 'company:string', '--field', 'name:string:required', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).schema.fields).toEqual([
      { name: 'name', type: 'string', required: true },
      { name: 'company', type: 'string', required: false },
    ]);
    expect(r.stderr).toContain('+ company: string (new field)');
    expect(r.stderr).toContain('~ name: becomes required');
  });

  it('keeps the required flag of a modified field unless told', async () => {
    const id = await createList('Keep', ['n:string:required']);
    const r = await vap(['contact-lists', 'update-schema', id, '--field', 'n:email', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).schema.fields).toEqual([{ name: 'n', type: 'email', required: true }]);
  });

  it('warns that a type change would fail existing contacts, and needs --yes without a terminal', async () => {
    const id = await createList('Ages', ['name:string', 'age:string']);
    await seedContacts(id, [{ name: 'Ada', age: '36' }, { name: 'Bob', age: 'forty' }, { name: 'Cy', age: 'n/a' }, { name: 'Di' }]);
    await emu.clearRequests();
    const refused = await vap(['contact-lists', 'update-schema', id, '--field', 'age:number']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('~ age: type string → number');
    expect(refused.stderr).toContain('2 of all 4 contacts checked would fail');
    expect(refused.stderr).toMatch(/age \(string → number\): 2 would fail/);
    expect(refused.stderr).toContain('--yes');
    const sent = await emu.requests();
    expect(sent.filter((q) => q.method !== 'GET')).toEqual([]);

    const applied = await vap(['contact-lists', 'update-schema', id, '--field', 'age:number', '--yes', '--json']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout).schema.fields).toContainEqual({ name: 'age', type: 'number', required: false });
    // The emulator's revalidation report is shown.
    expect(applied.stderr).toMatch(/Revalidated 4 existing contacts: 2 valid, 2 invalid/);
  });

  it('warns when a field becomes required on a list with contacts', async () => {
    const id = await createList('Req', ['name:string', 'email:email']);
    await seedContacts(id, [{ name: 'Ada', email: 'ada@example.com' }, { name: 'Bob' }]);
    const dry = await vap(['contact-lists', 'update-schema', id, '--field', 'email:email:required', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain('1 of all 2 contacts checked would fail');
    expect(dry.stderr).toContain('nothing was sent');
    const refused = await vap(['contact-lists', 'update-schema', id, '--field', 'email:email:required']);
    expect(refused.code).toBe(2);
  });

  it('refuses bad input before sending anything', async () => {
    await emu.clearRequests();
    const none = await vap(['contact-lists', 'update-schema', 'cl_x']);
    expect(none.code).toBe(2);
    const bad = await vap(['contact-lists', 'update-schema', 'cl_x', '--field', 'age:int']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('valid types: string, number, boolean, phone, email, date');
    expect(await emu.requests()).toEqual([]);
  });

  it('says so when nothing would change', async () => {
    const id = await createList('Same', ['a:string']);
    await emu.clearRequests();
    const r = await vap(['contact-lists', 'update-schema', id, '--field', 'a:string']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Nothing to change');
    expect((await emu.requests()).filter((q) => q.method === 'PATCH')).toEqual([]);
  });
});

describe('help', () => {
  it.each(['list', 'create', 'get', 'update-schema'])('%s --help has an example', async (verb) => {
    const r = await vap(['contact-lists', verb, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain(`$ vap contact-lists ${verb}`);
  });
});
