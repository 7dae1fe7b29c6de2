import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, vap } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
let env: Record<string, string>;
let dir: string;

const api = async <T = any>(method: string, path: string, body?: unknown): Promise<T> => (await emu.api<T>(method, path, body)).body;

async function createList(fields: unknown[]): Promise<string> {
  return (await api<{ data: { id: string } }>('POST', '/api/v1/contact-lists', { name: 'e2e', schema: { fields } })).data.id;
}

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
  env = { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, VAP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vap-e2e-')) };
  dir = mkdtempSync(join(tmpdir(), 'vap-e2e-import-'));
});
afterAll(async () => {
  await emu.close();
});

describe('vap contacts import (built binary)', () => {
  it('imports a CSV with a BOM, CRLF line ends, quoted commas, quotes and embedded newlines', async () => {
    const listId = await createList([
      { name: 'name', type: 'string', required: true },
      { name: 'phone', type: 'phone', required: true },
      { name: 'note', type: 'string' },
      { name: 'vip', type: 'boolean' },
    ]);
    const csv =
      '\uFEFFname,phone,note,vip\r\n' +
      '"Lovelace, Ada",+14155550101,"first line\r\nsecond line",yes\r\n' +
      'Grace Hopper,(415) 555-0102,"said ""hi"", then left",no\r\n' +
      '"Turing,\r\nAlan",+44 20 7946 0958,,1\r\n';
    const file = join(dir, 'crm export.csv');
    writeFileSync(file, csv);
    const r = await vap(['contacts', 'import', listId, file, '--default-country', 'US'], { env });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Imported .*crm export\.csv into list cl_\S+: 3 rows in /);
    expect(r.stdout).toMatch(/imported\s+3/);
    expect(r.stdout).toContain('row 2, phone: (415) 555-0102 → +14155550102');
    const contacts = (await api<{ data: Array<Record<string, unknown>> }>('GET', `/api/v1/contact-lists/${listId}/contacts?limit=100`)).data;
    expect(contacts.map(({ name, phone, note, vip }) => ({ name, phone, note, vip }))).toEqual([
      { name: 'Lovelace, Ada', phone: '+14155550101', note: 'first line\r\nsecond line', vip: true },
      { name: 'Grace Hopper', phone: '+14155550102', note: 'said "hi", then left', vip: false },
      { name: 'Turing,\r\nAlan', phone: '+442079460958', note: undefined, vip: true },
    ]);
  });

  it('--json: the summary alone on stdout; no progress bar when stderr is not a terminal', async () => {
    const listId = await createList([{ name: 'phone', type: 'phone', required: true }]);
    const file = join(dir, 'one.csv');
    writeFileSync(file, 'phone\n+14155550100\n');
    const r = await vap(['contacts', 'import', listId, file, '--json'], { env });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 1, imported: 1, jobs: 1, complete: true });
    expect(r.stderr).toBe('');
  });

  it('imports a large file through the worker thread: every valid row once, national numbers normalised, errors file as on the main thread', async () => {
    const fields = [
      { name: 'name', type: 'string', required: true },
      { name: 'phone', type: 'phone', required: true },
      { name: 'score', type: 'number' },
      { name: 'note', type: 'string' },
    ];
    const lines = ['name,phone,score,note'];
    const n = 30_000;
    for (let i = 0; i < n; i++) {
      const line = String(i % 10_000).padStart(4, '0');
      const phone = i % 101 === 0 ? 'not a phone' : i % 3 === 0 ? `(415) 555-${line}` : `+1212${String(2000000 + i).padStart(7, '0')}`;
      lines.push(`"Person, ${i}",${phone},${i % 7},${'x'.repeat(45)}`); // over 2 MiB in all: the worker's threshold
    }
    const file = join(dir, 'large-import.csv');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const bad = Math.ceil(n / 101);
    const threadedList = await createList(fields);
    const threaded = await vap(
      [
        'contacts',
        'import',
        threadedList,
        file,
        '--default-country',
        'US',
        '--allow-invalid',
        '--json',
        '--verbose',
        '--batch-size',
        '5000',
        '--errors-file',
        join(dir, 'large-threaded.errors.csv'),
        '--state-file',
        join(dir, 'large-threaded.state.json'),
      ],
      { env },
    );
    expect(threaded.stderr).toMatch(/validating on a worker thread \(started at launch\)/);
    expect(threaded.exitCode).toBe(0);
    expect(JSON.parse(threaded.stdout)).toMatchObject({ rows: n, imported: n - bad, rejectedLocally: bad, complete: true });
    const inlineList = await createList(fields);
    const inline = await vap(
      [
        'contacts',
        'import',
        inlineList,
        file,
        '--default-country',
        'US',
        '--allow-invalid',
        '--json',
        '--batch-size',
        '5000',
        '--errors-file',
        join(dir, 'large-inline.errors.csv'),
        '--state-file',
        join(dir, 'large-inline.state.json'),
      ],
      { env: { ...env, VAP_IMPORT_THREADS: '0' } },
    );
    expect(JSON.parse(inline.stdout)).toMatchObject({ rows: n, imported: n - bad, rejectedLocally: bad });
    expect(readFileSync(join(dir, 'large-threaded.errors.csv'), 'utf8')).toBe(readFileSync(join(dir, 'large-inline.errors.csv'), 'utf8'));
    const list = (await api<{ data: { contactCount: number } }>('GET', `/api/v1/contact-lists/${threadedList}`)).data;
    expect(list.contactCount).toBe(n - bad);
    const first = (await api<{ data: Array<Record<string, unknown>> }>('GET', `/api/v1/contact-lists/${threadedList}/contacts?limit=4`)).data;
    expect(first.map(({ name, phone, score }) => ({ name, phone, score }))).toEqual([
      { name: 'Person, 1', phone: '+12122000001', score: 1 },
      { name: 'Person, 2', phone: '+12122000002', score: 2 },
      { name: 'Person, 3', phone: '+14155550003', score: 3 },
      { name: 'Person, 4', phone: '+12122000004', score: 4 },
    ]);
  }, 60_000);

  it('validates on a worker thread for a large file, with the same answers as on the main thread', async () => {
    const listId = await createList([
      { name: 'name', type: 'string', required: true },
      { name: 'phone', type: 'phone', required: true },
      { name: 'email', type: 'email' },
      { name: 'joined', type: 'date' },
    ]);
    const lines = ['name,phone,email,joined'];
    for (let i = 0; i < 40_000; i++) {
      const bad = i % 97 === 0;
      lines.push(
        `Person ${i},${bad ? 'x' : `+1415${String(2000000 + i).padStart(7, '0')}`},${i % 89 === 0 ? 'nope' : `p${i}@example.com`},20${String(10 + (i % 15))}-0${1 + (i % 9)}-1${i % 9}`,
      );
    }
    const file = join(dir, 'large.csv');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const threaded = await vap(['contacts', 'import', listId, file, '--dry-run', '--json', '--verbose'], { env });
    const inline = await vap(['contacts', 'import', listId, file, '--dry-run', '--json'], { env: { ...env, VAP_IMPORT_THREADS: '0' } });
    expect(threaded.stderr).toMatch(/validating on a worker thread/);
    expect(threaded.stderr).toMatch(/validated [1-9]\d* chunks on the worker/);
    const a = JSON.parse(threaded.stdout);
    const b = JSON.parse(inline.stdout);
    expect(a.rows).toBe(40_000);
    // A dry run's errors file has a name of its own; the second run keeps the first one's and writes the next free name.
    expect(b).toMatchObject({ errorsFile: join(dir, 'large.dry-run.errors-2.csv'), keptErrorsFile: join(dir, 'large.dry-run.errors.csv') });
    expect(readFileSync(b.errorsFile, 'utf8')).toBe(readFileSync(a.errorsFile, 'utf8'));
    const { keptErrorsFile: _kept, ...rest } = b;
    expect({ ...a, elapsedMs: 0, rowsPerSecond: 0, errorsFile: '' }).toEqual({ ...rest, elapsedMs: 0, rowsPerSecond: 0, errorsFile: '' });
    expect(a.rejectedLocally).toBe(Math.ceil(40_000 / 97) + Math.ceil(40_000 / 89) - Math.ceil(40_000 / (97 * 89)));
    const errLines = (s: string) => s.split('\n').filter((l) => l.startsWith('row '));
    expect(errLines(threaded.stderr)).toEqual(errLines(inline.stderr));
  });
});
