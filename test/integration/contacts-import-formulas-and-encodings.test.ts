// The errors file is opened in spreadsheets: a cell beginning with =, +, -, @, a tab or a
// carriage return is written with a ' in front (OWASP's advice against CSV injection), and
// when that file is imported again the original values are restored, so the round trip
// loses nothing. Files in another encoding are read with --encoding; a NUL byte in a
// value is a row error.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-formulas-'));
  env = { ...cliEnv(emu.url, ORG_A.apiKey, join(dir, 'config')), VAP_STATE_DIR: join(dir, 'state') };
});
afterAll(async () => {
  await emu?.close();
});

async function createList(): Promise<string> {
  const r = await emu.api<{ data: { id: string } }>('POST', '/api/v1/contact-lists', {
    name: 'Leads',
    schema: {
      fields: [
        { name: 'name', type: 'string', required: true },
        { name: 'phone', type: 'phone', required: true },
        { name: 'note', type: 'string' },
      ],
    },
  });
  return r.body.data.id;
}

async function contacts(listId: string): Promise<Array<Record<string, unknown>>> {
  const r = await runCli(['contacts', 'list', listId, '--all', '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const csvCell = (s: string) => (/[",\n\r]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

describe('the errors file and formulas', () => {
  it('is safe to open in a spreadsheet, and importing it again stores the original values', async () => {
    const listId = await createList();
    const rows = [
      ['=1+2', '+14155550100', '@SUM(A1:A9)'],
      ['-Negative', 'not-a-phone', '+33 1 23'],
      ['@handle', '', '=HYPERLINK("http://evil.example","click")'],
      ["'quoted", 'bad', '\tindented'],
      ["=cmd|' /C calc'!A0", 'nope', '\r=2'],
    ];
    const file = join(dir, 'formulas.csv');
    writeFileSync(file, `name,phone,note\n${rows.map((r) => r.map(csvCell).join(',')).join('\n')}\n`);
    const r = await runCli(['contacts', 'import', listId, file], { env });
    expect(r.code, r.stderr).toBe(1);
    expect((await contacts(listId)).map((c) => [c.name, c.phone, c.note])).toEqual([rows[0]]);

    const errorsPath = join(dir, 'formulas.errors.csv');
    const written = parse(readFileSync(errorsPath, 'utf8')) as string[][];
    expect(written[0]).toEqual(['name', 'phone', 'note', 'row', 'field', 'error']);
    // No cell of the file, opened in a spreadsheet, begins like a formula.
    for (const cell of written.flat()) expect(cell, cell).not.toMatch(/^[=+\-@\t\r]/);
    expect(written.slice(1).map((w) => w.slice(0, 3))).toEqual([
      ["'-Negative", 'not-a-phone', "'+33 1 23"],
      ["'@handle", '', '\'=HYPERLINK("http://evil.example","click")'],
      ["''quoted", 'bad', "'\tindented"],
      ["'=cmd|' /C calc'!A0", 'nope', "'\r=2"],
    ]);

    // Fix the phones in the errors file (as in a spreadsheet), import it: the original values come back.
    const fixed = readFileSync(errorsPath, 'utf8')
      .replace('not-a-phone', '+14155550101')
      .replace("'@handle,,", "'@handle,+14155550102,")
      .replace(',bad,', ',+14155550103,')
      .replace(',nope,', ',+14155550104,');
    writeFileSync(errorsPath, fixed);
    const again = await runCli(['contacts', 'import', listId, errorsPath], { env });
    expect(again.code, again.stderr).toBe(0);
    const stored = (await contacts(listId)).map((c) => [c.name, c.note]);
    expect(stored).toEqual(rows.map((r) => [r[0], r[2]]));
  });
});

describe('encodings and NUL bytes', () => {
  it('--encoding latin1 reads a file saved in Latin-1, and the state remembers it for --resume', async () => {
    const listId = await createList();
    const file = join(dir, 'latin1.csv');
    writeFileSync(file, Buffer.from('name,phone,note\nJosé Núñez,+14155550110,café crème\n', 'latin1'));
    const refused = await runCli(['contacts', 'import', listId, file], { env });
    expect(refused.code).toBe(2);
    const r = await runCli(['contacts', 'import', listId, file, '--encoding', 'latin1'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((await contacts(listId)).map((c) => [c.name, c.note])).toEqual([['José Núñez', 'café crème']]);
    // Without --encoding, the file is refused again (not UTF-8); with another one, the resume is.
    expect((await runCli(['contacts', 'import', listId, file, '--resume'], { env })).stderr).toMatch(/not valid UTF-8.*--encoding/);
    const resume = await runCli(['contacts', 'import', listId, file, '--resume', '--encoding', 'iso-8859-15'], { env });
    expect(resume.code).toBe(2);
    expect(resume.stderr).toMatch(/--encoding was windows-1252, now iso-8859-15/);
  });

  it('reads UTF-16 with its byte order mark when told to', async () => {
    const listId = await createList();
    const file = join(dir, 'utf16.csv');
    writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('name,phone\nZoë,+14155550111\n', 'utf16le')]));
    const r = await runCli(['contacts', 'import', listId, file, '--encoding', 'utf-16le'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((await contacts(listId)).map((c) => c.name)).toEqual(['Zoë']);
  });

  it('a NUL byte in a value is a row error; the other rows are imported', async () => {
    const listId = await createList();
    const file = join(dir, 'nul.csv');
    writeFileSync(file, 'name,phone,note\nAda,+14155550120,ok\nBo\u0000b,+14155550121,x\nCy,+14155550122,n\u0000te\n');
    const r = await runCli(['contacts', 'import', listId, file, '--errors-file', join(dir, 'nul.errors.csv')], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('row 2, field name: contains a NUL byte (\\x00)');
    expect(r.stderr).toContain('row 3, field note: contains a NUL byte (\\x00)');
    expect((await contacts(listId)).map((c) => c.name)).toEqual(['Ada']);
  });
});
