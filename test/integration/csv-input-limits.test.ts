import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_MAX_COLUMNS, CSV_MAX_RECORD_BYTES } from '../../src/contacts/source.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

// Every CSV file vap reads is held to the same limits, whichever command reads it
// (`contacts import`, `contact-lists create --from-csv`): a record of at most 4 MiB, a header
// of at most 16,384 columns, each refused with one line (exit 2) that names the limit, the
// file and the fix, before anything is sent; and a file mixing CRLF, LF and CR line endings
// has every row read, none merged into another.

let emu: TestEmulator;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  env = { ...cliEnv(emu.url, ORG_A.apiKey), VAP_STATE_DIR: mkdtempSync(join(tmpdir(), 'vap-csv-limits-state-')) };
  dir = mkdtempSync(join(tmpdir(), 'vap-csv-limits-'));
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(env.VAP_STATE_DIR!, { recursive: true, force: true });
});

const vap = (argv: string[]) => runCli(argv, { env });

/** A file written 1 MiB at a time (never held whole in the test's memory). */
function streamed(name: string, head: string, fill: number, bytes: number, tail = ''): string {
  const p = join(dir, name);
  const fd = openSync(p, 'w');
  try {
    writeSync(fd, head);
    const mib = Buffer.alloc(1024 * 1024, fill);
    for (let left = bytes; left > 0; left -= mib.length) writeSync(fd, left >= mib.length ? mib : mib.subarray(0, left));
    writeSync(fd, tail);
  } finally {
    closeSync(fd);
  }
  return p;
}

function write(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

async function createList(): Promise<string> {
  const r = await emu.api<{ data: { id: string } }>('POST', '/api/v1/contact-lists', {
    name: 'leads',
    schema: {
      fields: [
        { name: 'name', type: 'string', required: true },
        { name: 'phone', type: 'phone', required: true },
      ],
    },
  });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

const listCount = async () =>
  (await emu.api<{ pagination: { totalItems?: number; total?: number }; data: unknown[] }>('GET', '/api/v1/contact-lists?limit=100')).body.data.length;
const contactCount = async (listId: string) =>
  (await emu.api<{ data: { contactCount: number } }>('GET', `/api/v1/contact-lists/${listId}`)).body.data.contactCount;

/** One error line on stderr, nothing on stdout, and never "an unexpected error". */
function expectOneLineRefusal(r: { code: number; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toMatch(pattern);
  expect(lines[0]).not.toContain('unexpected error');
}

describe('a record past the 4 MiB limit', () => {
  // 64 MiB on one line, no line break: 16 times the limit. Memory stays bounded only if the
  // read stops at the limit; the refusal is what is asserted.
  const size = 64 * 1024 * 1024;

  it('one 64 MiB line: contact-lists create --from-csv refuses it as contacts import does', async () => {
    expect(size).toBeGreaterThan(8 * CSV_MAX_RECORD_BYTES);
    const file = streamed('one-line.csv', '', 0x61, size);
    const lists = await listCount();
    const create = await vap(['contact-lists', 'create', '--name', 'X', '--from-csv', file, '--yes']);
    expectOneLineRefusal(
      create,
      /--from-csv ".*one-line\.csv" \(near line 1\): the header row is longer than 4 MiB, the most vap reads as one CSV row; .*quote never closed .*without line breaks/,
    );
    expect(await listCount()).toBe(lists);

    const listId = await createList();
    const dry = await vap(['contacts', 'import', listId, file, '--dry-run']);
    expectOneLineRefusal(
      dry,
      /cannot read .*one-line\.csv \(near line 1\): the header row is longer than 4 MiB, the most vap reads as one CSV row; .*quote never closed/,
    );
    // The same limit, said the same way after the file's name.
    expect(create.stderr.slice(create.stderr.indexOf(': the header'))).toBe(dry.stderr.slice(dry.stderr.indexOf(': the header')));
  });

  it('a quote never closed in a data row: the row is named, nothing is created or sent', async () => {
    const file = streamed('open-quote.csv', 'name,phone\nAda,+14155550100\n"Grace,', 0x62, 12 * 1024 * 1024, '\nAlan,+14155550101\n');
    const lists = await listCount();
    const create = await vap(['contact-lists', 'create', '--name', 'X', '--from-csv', file, '--yes']);
    expectOneLineRefusal(create, /--from-csv ".*open-quote\.csv" \(near line 3\): data row 2 is longer than 4 MiB/);
    expect(await listCount()).toBe(lists);

    const listId = await createList();
    const r = await vap(['contacts', 'import', listId, file]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^error: cannot read .*open-quote\.csv \(near line 3\): data row 2 is longer than 4 MiB, the most vap reads as one CSV row; /m);
    expect(await contactCount(listId)).toBe(0);
  });
});

describe('wide headers: 300,000 columns refused, up to 16,384 read', () => {
  const wide = (n: number, name: string) =>
    write(name, `${Array.from({ length: n }, (_, i) => `c${i}`).join(',')}\n${Array.from({ length: n }, () => 'x').join(',')}\n`);

  it('is refused by both commands with the limit, in constant stack (no "Maximum call stack size exceeded")', async () => {
    const file = wide(300_000, 'wide.csv');
    const lists = await listCount();
    const create = await vap(['contact-lists', 'create', '--name', 'X', '--from-csv', file, '--dry-run']);
    expectOneLineRefusal(
      create,
      /--from-csv ".*wide\.csv": the header has 300,000 columns, more than the 16,384 vap reads; keep only the columns that hold contact fields/,
    );
    expect(create.stderr).not.toContain('call stack');
    expect(await listCount()).toBe(lists);

    const listId = await createList();
    const imp = await vap(['contacts', 'import', listId, file, '--dry-run']);
    expectOneLineRefusal(
      imp,
      /cannot read .*wide\.csv: the header has 300,000 columns, more than the 16,384 vap reads; keep only the columns that hold contact fields/,
    );
  });

  it('a wide header within the limit: contacts import names a few of the columns it ignores and counts the rest', async () => {
    const listId = await createList();
    const cols = ['name', 'phone', ...Array.from({ length: 10_000 }, (_, i) => `extra${i}`)];
    const file = write('wide-ok.csv', `${cols.join(',')}\nAda,+14155550101,${Array.from({ length: 10_000 }, () => '').join(',')}\n`);
    const r = await vap(['contacts', 'import', listId, file, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    const warning = r.stderr.split('\n').find((l) => l.includes('match no field'));
    expect(warning).toMatch(/^! columns "extra0", "extra1", .*"extra11", … \(10000 in all\) match no field of list /);
    expect(warning!.length).toBeLessThan(500);
  });

  it('a header at the limit is read, and its inferred schema shown', async () => {
    const file = wide(CSV_MAX_COLUMNS, 'at-limit.csv');
    const r = await vap(['contact-lists', 'create', '--name', 'X', '--from-csv', file, '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(CSV_MAX_COLUMNS);
    // The confirmation table shows the first 100 fields and counts the rest.
    expect(r.stderr).toMatch(/^c99 +string +no +1\/1 +x$/m);
    expect(r.stderr).not.toMatch(/^c100 /m);
    expect(r.stderr).toContain(`… and ${(CSV_MAX_COLUMNS - 100).toLocaleString('en-US')} more fields (the whole schema: --dry-run --json)\n`);
    const over = await vap(['contact-lists', 'create', '--name', 'X', '--from-csv', wide(CSV_MAX_COLUMNS + 1, 'over-limit.csv'), '--dry-run']);
    expectOneLineRefusal(over, /the header has 16,385 columns, more than the 16,384 vap reads/);
  });
});

describe('a file mixing CRLF, LF and CR line endings', () => {
  // The first line ends with CRLF (what csv-parse used to take as the only line ending), then
  // LF, CR, CRLF, LF; a quoted field holds an LF and a CR of its own, which stay data.
  const mixed = 'name,phone\r\nAda,+14155550101\nGrace,+14155550102\rAlan,+14155550103\r\n"Edsger\nW.\rDijkstra",+14155550104\nBarbara,+14155550105';
  const names = ['Ada', 'Grace', 'Alan', 'Edsger\nW.\rDijkstra', 'Barbara'];

  it('contact-lists create --from-csv samples every row', async () => {
    const file = write('mixed-create.csv', mixed);
    const r = await vap(['contact-lists', 'create', '--name', 'X', '--from-csv', file, '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Schema inferred from the header and all 5 rows');
    // Every phone was read as a phone: none had a name glued to it.
    expect(JSON.parse(r.stdout)).toEqual([
      { name: 'name', type: 'string' },
      { name: 'phone', type: 'phone' },
    ]);
  });

  it('contacts import imports every row, none merged', async () => {
    const file = write('mixed-import.csv', mixed);
    const listId = await createList();
    const r = await vap(['contacts', 'import', listId, file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 5, valid: 5, imported: 5, rejectedLocally: 0 });
    const got = (await emu.api<{ data: Array<{ name: string; phone: string }> }>('GET', `/api/v1/contact-lists/${listId}/contacts?limit=100`)).body.data;
    expect(got.map((c) => c.name).sort()).toEqual([...names].sort());
    expect(got.map((c) => c.phone).sort()).toEqual(['+14155550101', '+14155550102', '+14155550103', '+14155550104', '+14155550105']);
  });
});
