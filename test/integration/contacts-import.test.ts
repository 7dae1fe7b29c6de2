import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvLine } from '../../src/contacts/errors-file.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';
import { SCHEMA } from './emulator-contacts-helpers.js';

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

let emu: TestEmulator;
let env: Record<string, string>;
let dir: string;

const api = <T = any>(method: string, path: string, body?: unknown) => emu.api<T>(method, path, body);

async function createList(schema: unknown = SCHEMA): Promise<string> {
  const r = await api<{ data: { id: string } }>('POST', '/api/v1/contact-lists', { name: 'leads', schema });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

async function contactCount(listId: string): Promise<number> {
  return (await api<{ data: { contactCount: number } }>('GET', `/api/v1/contact-lists/${listId}`)).body.data.contactCount;
}

async function contacts(listId: string): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  for (let page = 1; ; page++) {
    const r = await api<{ data: Array<Record<string, unknown>>; pagination: { totalPages: number } }>(
      'GET',
      `/api/v1/contact-lists/${listId}/contacts?limit=100&page=${page}`,
    );
    out.push(...r.body.data);
    if (page >= r.body.pagination.totalPages) return out;
  }
}

function write(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

const phone = (i: number) => `+1415555${String(1000 + i).padStart(4, '0')}`;

beforeAll(async () => {
  emu = await startTestEmulator({ allowLoopbackUrls: true });
  env = { ...cliEnv(emu.url, ORG_A.apiKey), VAP_STATE_DIR: mkdtempSync(join(tmpdir(), 'vap-import-state-')) };
  dir = mkdtempSync(join(tmpdir(), 'vap-import-'));
});
afterAll(async () => {
  await emu.close();
});

describe('vap contacts import (local file)', () => {
  it('imports a clean CSV in batches: exit 0, every contact, values normalised', async () => {
    const listId = await createList();
    const rows = Array.from(
      { length: 23 },
      (_, i) =>
        `Person ${i},${i % 2 ? phone(i) : `(415) 555-${String(1000 + i)}`},p${i}@example.com,${20 + i},${i % 2 ? 'yes' : 'false'},1990-01-${String((i % 28) + 1).padStart(2, '0')}`,
    );
    const file = write('clean.csv', `name,phone,email,age,vip,birthday\n${rows.join('\n')}\n`);
    const r = await runCli(['contacts', 'import', listId, file, '--batch-size', '5', '--default-country', 'US', '--json'], { env });
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ rows: 23, valid: 23, imported: 23, rejectedLocally: 0, rejectedByServer: 0, jobs: 5, complete: true, errorsFile: null });
    expect(summary.normalised.count).toBe(12);
    expect(summary.normalised.examples[0]).toEqual({ row: 1, field: 'phone', from: '(415) 555-1000', to: '+14155551000' });
    expect(await contactCount(listId)).toBe(23);
    const got = await contacts(listId);
    expect(got.find((c) => c.name === 'Person 0')).toMatchObject({
      phone: '+14155551000',
      email: 'p0@example.com',
      age: 20,
      vip: false,
      birthday: '1990-01-01',
    });
    expect(got.find((c) => c.name === 'Person 1')).toMatchObject({ phone: phone(1), vip: true });
    // The state file is kept, marked complete; no errors file.
    const state = JSON.parse(readFileSync(statePathOf(file), 'utf8'));
    expect(state).toMatchObject({ complete: true, owner: null, prefix: { batches: 5, rows: 23, ok: 23, bad: 0 } });
    expect(existsSync(join(dir, 'clean.errors.csv'))).toBe(false);

    // The same file again is refused (it would import everything twice)…
    const again = await runCli(['contacts', 'import', listId, file, '--batch-size', '5', '--default-country', 'US'], { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already imported into list .*pass --force/);
    expect(await contactCount(listId)).toBe(23);
  });

  it('reports every kind of bad row by row number, field and reason, and writes them all to the errors file', async () => {
    const listId = await createList();
    const lines = [
      'name,phone,email,age,vip,birthday,notes',
      `Good One,${phone(1)},a@example.com,30,yes,2000-01-01,x`, // 1
      `,${phone(2)},,,,,missing name`, // 2
      `Bad Phone,555-0100x,,,,,`, // 3
      `National,(415) 555-0100,,,,,no default country`, // 4
      `Bad Mail,${phone(5)},not-an-email,,,,`, // 5
      `Bad Age,${phone(6)},,forty,,,`, // 6
      `Bad Vip,${phone(7)},,,maybe,,`, // 7
      `Bad Date,${phone(8)},,,,13/01/2020,`, // 8
      `Short Row,${phone(9)}`, // 9: too few columns
      `"Quoted, Name",${phone(10)},,,,,"multi`,
      `line"`, // 10 (a quoted newline: still data row 10)
      `Two Bad,nope,bad@,,,,`, // 11: two errors
      `Good Two,${phone(12)},,41,no,1999-12-31,`, // 12
    ];
    const file = write('bad.csv', `${lines.join('\n')}\n`);
    const r = await runCli(['contacts', 'import', listId, file, '--json'], { env });
    expect(r.code).toBe(1);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ rows: 12, valid: 3, imported: 3, rejectedLocally: 9, rejectedByServer: 0 });
    expect(r.stderr).toContain('columns "notes" match no field'.replace('columns', 'column').replace('match ', 'matches '));
    for (const want of [
      'row 2, field name: is required',
      // Not a national number (a letter in it): no --default-country hint.
      'row 3, field phone: "555-0100x" is not a phone number (E.164 form: +14155550100)',
      'row 4, field phone: "(415) 555-0100" is not in E.164 form (+14155550100); pass --default-country',
      'row 5, field email: "not-an-email" is not a valid e-mail address',
      'row 6, field age: "forty" is not a number',
      'row 7, field vip: "maybe" is not a boolean',
      'row 8, field birthday: "13/01/2020" is not an ISO 8601 date',
      'row 9: has 2 values, the header has 7',
      'row 11, field phone: "nope"',
      'row 11, field email: "bad@" is not a valid e-mail address',
    ]) {
      expect(r.stderr).toContain(want);
    }
    const errorsPath = join(dir, 'bad.errors.csv');
    expect(summary.errorsFile).toBe(errorsPath);
    const rows = parse(readFileSync(errorsPath, 'utf8')) as string[][];
    expect(rows[0]).toEqual(['name', 'phone', 'email', 'age', 'vip', 'birthday', 'notes', 'row', 'field', 'error']);
    expect(rows.slice(1).map((x) => x[7])).toEqual(['2', '3', '4', '5', '6', '7', '8', '9', '11']);
    expect(rows.find((x) => x[7] === '11')!.slice(8)).toEqual(['phone; email', expect.stringMatching(/^phone: .*; email: .*bad@/)]);
    // A cell that a spreadsheet would read as a formula (a leading +) is written with a ' in front.
    expect(rows.find((x) => x[7] === '9')!.slice(0, 2)).toEqual(['Short Row', `'${phone(9)}`]);
    expect(await contactCount(listId)).toBe(3);

    // Fix the errors file and import it: its row/field/error columns are not data.
    const fixed = rows.slice(1).map((x) => [`Fixed ${x[7]}`, phone(100 + Number(x[7])), '', '', '', '', '', x[7], x[8], x[9]]);
    const fixedFile = write('bad.errors.fixed.csv', [rows[0]!, ...fixed].map((x) => csvLine(x)).join(''));
    const r2 = await runCli(['contacts', 'import', listId, fixedFile], { env });
    expect(r2.stderr).toMatch(/column "notes" matches no field/); // but not row, field, error
    expect(r2.stderr).not.toMatch(/"(row|field|error)"/);
    expect(r2.code, r2.stderr).toBe(0);
    expect(await contactCount(listId)).toBe(12);
  });

  it('--allow-invalid exits 0; the on-screen list is capped at 20 lines', async () => {
    const listId = await createList();
    // Two causes, half each (one cause for nearly every row is reported as one line).
    const bad = Array.from({ length: 30 }, (_, i) => (i % 2 ? `P${i},not-a-phone-${i}` : `,${phone(100 + i)}`));
    const file = write('many-bad.csv', `name,phone\nGood,${phone(1)}\n${bad.join('\n')}\n`);
    const r = await runCli(['contacts', 'import', listId, file, '--allow-invalid'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr.match(/^row \d+, field (phone|name)/gm)).toHaveLength(20);
    expect(r.stderr).toContain(`… and 10 more, see ${join(dir, 'many-bad.errors.csv')}`);
    expect(r.stdout).toMatch(/imported\s+1\b/);
    expect(r.stdout).toMatch(/rejected locally\s+30/);
  });

  it('--dry-run checks against the schema and sends nothing', async () => {
    const listId = await createList();
    const file = write('dry.csv', `name,phone\nA,(415) 555-0100\nB,${phone(2)}\nC,x\n`);
    await emu.clearRequests();
    const r = await runCli(['contacts', 'import', listId, file, '--dry-run', '--default-country', 'US'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Dry run of');
    expect(r.stdout).toContain('(nothing sent)');
    expect(r.stdout).toMatch(/valid\s+2/);
    expect(r.stdout).toContain('row 1, phone: (415) 555-0100 → +14155550100');
    expect(r.stderr).toContain('row 3, field phone: "x" is not a valid phone number');
    const requests = await emu.requests();
    expect(requests.filter((q) => q.method !== 'GET')).toEqual([]);
    expect(existsSync(statePathOf(file))).toBe(false);
    expect(await contactCount(listId)).toBe(0);
  });

  it('imports a JSON array (streamed), with --map and typed values', async () => {
    const listId = await createList();
    const items = [
      { fullName: 'Ada', tel: phone(1), age: 36, vip: true, extra: 'x' },
      { fullName: 'Bob', tel: phone(2), age: '41', email: 'bob@example.com' },
      { fullName: 'Bad', tel: phone(3), age: 'old' },
      [1, 2],
    ];
    const file = write('people.json', JSON.stringify(items));
    const r = await runCli(['contacts', 'import', listId, file, '--map', 'fullName=name', '--map', 'tel=phone', '--json'], { env });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ format: 'json', rows: 4, imported: 2, rejectedLocally: 2 });
    expect(r.stderr).toContain('row 3, field age: "old" is not a number');
    expect(r.stderr).toContain('row 4: is an array, not an object');
    expect(r.stderr).toMatch(/"extra" matches no field/);
    const got = await contacts(listId);
    expect(got.map((c) => [c.name, c.age, c.vip, c.email])).toEqual([
      ['Ada', 36, true, undefined],
      ['Bob', 41, undefined, 'bob@example.com'],
    ]);
  });

  it('a progress bar on a terminal; --errors-file and --state-file where asked; --resume of a finished import does nothing', async () => {
    const listId = await createList();
    const lines = ['name,phone'];
    for (let i = 0; i < 90_000; i++) lines.push(i % 1000 === 7 ? `P${i},bad` : `P${i},+1415${String(2000000 + i)}`);
    const file = write('big.csv', `${lines.join('\n')}\n`);
    const errorsFile = join(dir, 'custom-errors.csv');
    const stateFile = join(dir, 'custom-state.json');
    const r = await runCli(
      ['contacts', 'import', listId, file, '--batch-size', '5000', '--errors-file', errorsFile, '--state-file', stateFile, '--allow-invalid'],
      { env, tty: true },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\r\x1b\[2K\[[█░]+\] +\d+%  [\d,]+ of ~?[\d,]+ rows  [\d,]+ sent  [\d,]+ rows\/s  (ETA \d+:\d\d|waiting for \d+ jobs?)/);
    // The last frame, left on the screen: every row done (rejected here, or processed by the server).
    expect(r.stderr).toMatch(/\r\x1b\[2K\[█+\] 100%  90,000 of 90,000 rows  89,910 sent  [\d,]+ rows\/s\n/);
    expect(r.stdout).toMatch(/imported\s+89,910/);
    expect(readFileSync(errorsFile, 'utf8').split('\r\n').filter(Boolean)).toHaveLength(91);
    expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toMatchObject({ complete: true });
    expect(existsSync(statePathOf(file))).toBe(false);
    expect(await contactCount(listId)).toBe(89_910);
    const again = await runCli(['contacts', 'import', listId, file, '--batch-size', '5000', '--state-file', stateFile, '--resume', '--json'], { env });
    expect(again.stderr).toMatch(/was already complete .*nothing to do/);
    expect(JSON.parse(again.stdout)).toMatchObject({ imported: 89_910, complete: true });
    expect(await contactCount(listId)).toBe(89_910);
  });

  it('--delimiter and a TSV file', async () => {
    const listId = await createList();
    const semi = write('semi.txt', `name;phone\n"Doe; Jane";${phone(1)}\n`);
    expect((await runCli(['contacts', 'import', listId, semi, '--delimiter', ';'], { env })).code).toBe(0);
    const tsv = write('tabs.tsv', `name\tphone\nTab Person\t${phone(2)}\n`);
    expect((await runCli(['contacts', 'import', listId, tsv], { env })).code).toBe(0);
    expect((await contacts(listId)).map((c) => c.name)).toEqual(['Doe; Jane', 'Tab Person']);
  });

  it('exit 2 and nothing sent: unreadable file, unknown format, no matching column, missing required column, bad flags', async () => {
    const listId = await createList();
    await emu.clearRequests();
    const cases: Array<[string[], RegExp]> = [
      [[join(dir, 'missing.csv')], /cannot read .*missing.csv: no such file/],
      [[dir, '--format', 'csv'], /cannot read .*: it is a directory/],
      [[write('empty.csv', '')], /the file is empty/],
      [[write('data.xlsx', 'x')], /cannot tell the format .*--format/],
      [[write('nomatch.csv', 'a,b\n1,2\n')], /no column of .*nomatch.csv matches a field of list .*; columns: "a", "b"; fields: "name", "phone"/],
      [[write('noreq.csv', 'name,email\nA,a@example.com\n')], /required field "phone" .* has no column/],
      [[write('x.csv', 'name,phone\n'), '--map', 'nope=name'], /has no column "nope"/],
      [[write('y.csv', 'name,phone\n'), '--default-country', 'ZZ'], /--default-country "ZZ"/],
      [[write('z.csv', 'name,phone\n'), '--batch-size', '0'], /--batch-size must be a whole number/],
      [[write('w.json', '{"name":"x"}')], /not a JSON array/],
      [[write('q.csv', 'name,phone\n"open,1\n')], /not valid CSV/],
      [[write('r.csv', 'name,phone\n'), '--resume'], /nothing to resume/],
      [[write('s.csv', 'name,phone\n'), '--dry-run', '--resume'], /--dry-run sends nothing/],
    ];
    for (const [args, msg] of cases) {
      const r = await runCli(['contacts', 'import', listId, ...args], { env });
      expect(r.stderr).toMatch(msg);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
    }
    const posts = (await emu.requests()).filter((q) => q.method === 'POST');
    expect(posts).toEqual([]);
  });

  it('server-side rejections are folded into the report, mapped back to file rows', async () => {
    const listId = await createList();
    // Rows 2 and 4 fail locally; the others are sent as one job. While its POST is held
    // by the emulator, the schema gains a required field, so the server rejects them.
    const lines = ['name,phone', `A,${phone(1)}`, 'B,bad', `C,${phone(3)}`, 'D,bad', `E,${phone(5)}`];
    const file = write('server.csv', `${lines.join('\n')}\n`);
    await emu.fault({ method: 'POST', path: `/api/v1/contact-lists/${listId}/contacts`, delayMs: 1500 });
    const running = runCli(['contacts', 'import', listId, file, '--json'], { env });
    for (let i = 0; i < 500; i++) {
      const statePath = statePathOf(file);
      if (existsSync(statePath) && JSON.parse(readFileSync(statePath, 'utf8')).open.length > 0) break;
      await new Promise((res) => setTimeout(res, 10));
    }
    const patched = await api('PATCH', `/api/v1/contact-lists/${listId}/schema`, { fields: [{ name: 'company', type: 'string', required: true }] });
    expect(patched.status).toBe(200);
    const r = await running;
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 5, imported: 0, rejectedLocally: 2, rejectedByServer: 3, jobs: 1 });
    for (const row of [1, 3, 5]) expect(r.stderr).toContain(`row ${row}, field company: is required (server)`);
    const errs = parse(readFileSync(join(dir, 'server.errors.csv'), 'utf8')) as string[][];
    expect(
      errs
        .slice(1)
        .map((x) => [x[0], x[2], x[3]])
        .sort(),
    ).toEqual([
      ['A', '1', 'company'],
      ['B', '2', 'phone'],
      ['C', '3', 'company'],
      ['D', '4', 'phone'],
      ['E', '5', 'company'],
    ]);
  });
});

describe('vap contacts import --file-url (server-side import)', () => {
  let server: Server;
  let fileUrl: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/csv');
      res.end(`name,phone\nUrl One,${phone(1)}\nUrl Two,${phone(2)}\nUrl Bad,nope\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fileUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/leads.csv`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses a missing --file-format before sending anything (exit 2)', async () => {
    const listId = await createList();
    await emu.clearRequests();
    const r = await runCli(['contacts', 'import', listId, '--file-url', fileUrl], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--file-url needs --file-format csv\|json/);
    expect(await emu.requests()).toEqual([]);
  });

  it('prints the job id; --wait follows the job to the end', async () => {
    const listId = await createList();
    const r = await runCli(['contacts', 'import', listId, '--file-url', fileUrl, '--file-format', 'csv'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^job_\S+$/);
    const w = await runCli(['contacts', 'import', listId, '--file-url', fileUrl, '--file-format', 'csv', '--wait'], { env });
    expect(w.code).toBe(1); // one row rejected
    expect(w.stdout).toMatch(/completed: 3 rows, 2 imported, 1 rejected/);
    expect(w.stderr).toMatch(/row 3, field phone: /);
    const j = await runCli(['contacts', 'import', listId, '--file-url', fileUrl, '--file-format', 'csv', '--wait', '--allow-invalid', '--json'], { env });
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ status: 'completed', progress: { total: 3, successful: 2, failed: 1 } });
  });

  it('refuses local-file flags and a file with --file-url', async () => {
    const r = await runCli(['contacts', 'import', 'cl_x', 'a.csv', '--file-url', fileUrl, '--file-format', 'csv'], { env });
    expect(r.code).toBe(2);
    const m = await runCli(['contacts', 'import', 'cl_x', '--file-url', fileUrl, '--file-format', 'csv', '--dry-run'], { env });
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(/--dry-run is for local files/);
  });
});
