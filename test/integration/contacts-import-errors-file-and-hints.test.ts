import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

// The errors file of `vap contacts import` is never written over an earlier one without a
// yes; a dry run's has a name of its own; `--errors-file` into a missing folder behaves as `--report` does (the folder is
// created); the phone hint names --default-country only for a national-looking number; a
// list of normalised phones says how many it left out.

let emu: TestEmulator;
let env: Record<string, string>;
let dir: string;

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
  return r.body.data.id;
}

function write(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

const BAD = 'name,phone\nAda,+14155550100\nBob,not-a-phone\n';

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-errors-file-'));
  env = { ...cliEnv(emu.url, ORG_A.apiKey), VAP_STATE_DIR: join(dir, 'state') };
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('contacts import: the errors file', () => {
  it('keeps an earlier errors file beside the input and writes the next free name, saying so', async () => {
    const listId = await createList();
    const file = write('keep.csv', BAD);
    const first = await runCli(['contacts', 'import', listId, file, '--allow-invalid'], { env });
    expect(first.code, first.stderr).toBe(0);
    const earlier = join(dir, 'keep.errors.csv');
    const before = readFileSync(earlier, 'utf8');
    writeFileSync(earlier, `${before}# a note the user added\n`);

    const again = await runCli(['contacts', 'import', listId, file, '--allow-invalid', '--force'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(earlier, 'utf8')).toBe(`${before}# a note the user added\n`);
    const next = join(dir, 'keep.errors-2.csv');
    expect(readFileSync(next, 'utf8')).toBe(before);
    expect(again.stdout).toContain(`Errors file: ${next} (1 row; fix them and import that file)\n  (${earlier}, from an earlier import, was kept as it was)\n`);
    const json = await runCli(['contacts', 'import', listId, file, '--allow-invalid', '--force', '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ errorsFile: join(dir, 'keep.errors-3.csv'), keptErrorsFile: earlier });
  });

  it('a dry run writes its errors file under a name of its own; the real import after it takes the plain name', async () => {
    const listId = await createList();
    const file = write('trial.csv', BAD);
    const dry = await runCli(['contacts', 'import', listId, file, '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(1);
    const dryFile = join(dir, 'trial.dry-run.errors.csv');
    expect(dry.stdout).toContain(`Errors file: ${dryFile} (1 row; fix them and import that file)\n`);
    expect(existsSync(join(dir, 'trial.errors.csv'))).toBe(false);

    const real = await runCli(['contacts', 'import', listId, file, '--allow-invalid'], { env });
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toContain(`Errors file: ${join(dir, 'trial.errors.csv')} (1 row; fix them and import that file)\n`);
    expect(real.stdout).not.toContain('from an earlier');
    expect(existsSync(join(dir, 'trial.errors-2.csv'))).toBe(false);
    expect(readFileSync(join(dir, 'trial.errors.csv'), 'utf8')).toBe(readFileSync(dryFile, 'utf8'));

    // A second dry run keeps the first one's file, and says it came from a dry run.
    const again = await runCli(['contacts', 'import', listId, file, '--dry-run'], { env });
    expect(again.stdout).toContain(
      `Errors file: ${join(dir, 'trial.dry-run.errors-2.csv')} (1 row; fix them and import that file)\n  (${dryFile}, from an earlier dry run, was kept as it was)\n`,
    );
  });

  it('--errors-file over an existing file: refused without a terminal (nothing sent), overwritten with --yes', async () => {
    const listId = await createList();
    const file = write('over.csv', BAD);
    const target = write('mine.errors.csv', 'keep me\n');
    await emu.clearRequests();
    const refused = await runCli(['contacts', 'import', listId, file, '--errors-file', target], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    expect(readFileSync(target, 'utf8')).toBe('keep me\n');
    expect((await emu.requests()).filter((r) => r.method === 'POST')).toEqual([]);

    const yes = await runCli(['contacts', 'import', listId, file, '--errors-file', target, '--yes', '--allow-invalid'], { env });
    expect(yes.code, yes.stderr).toBe(0);
    // RFC 4180 lines (CRLF); rows are numbered from the first data row.
    expect(readFileSync(target, 'utf8')).toBe(
      'name,phone,row,field,error\r\nBob,not-a-phone,2,phone,"""not-a-phone"" is not a phone number (E.164 form: +14155550100)"\r\n',
    );
  });

  it('--errors-file into a missing folder: created when rows are rejected, as --report does; refused under a file or a read-only folder', async () => {
    const listId = await createList();
    const file = write('folder.csv', BAD);
    const target = join(dir, 'out', 'nested', 'errors.csv');
    const r = await runCli(['contacts', 'import', listId, file, '--errors-file', target, '--allow-invalid'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(target, 'utf8')).toMatch(/^name,phone,row,field,error\r\n/);

    const underFile = await runCli(['contacts', 'import', listId, file, '--errors-file', join(file, 'x', 'errors.csv')], { env });
    expect(underFile.code).toBe(2);
    expect(underFile.stderr).toMatch(/cannot write --errors-file .*: .*folder\.csv is not a folder/);

    const folder = await runCli(['contacts', 'import', listId, file, '--errors-file', dir], { env });
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain('it is a folder');

    if (process.getuid?.() !== 0) {
      const ro = join(dir, 'ro');
      rmSync(ro, { recursive: true, force: true });
      mkdirSync(ro);
      chmodSync(ro, 0o500);
      const readOnly = await runCli(['contacts', 'import', listId, file, '--errors-file', join(ro, 'missing', 'e.csv')], { env });
      chmodSync(ro, 0o700);
      expect(readOnly.code).toBe(2);
      expect(readOnly.stderr).toContain('is not writable');
      expect(existsSync(join(ro, 'missing'))).toBe(false);
    }
  });
});

describe('contacts import: hints and examples', () => {
  it('suggests --default-country for a national number only, and says how many normalised phones it did not list', async () => {
    const listId = await createList();
    const national = write('national.csv', 'name,phone\nAda,(415) 555-0101\nBob,call me maybe\n');
    const r = await runCli(['contacts', 'import', listId, national, '--dry-run'], { env });
    expect(r.stderr).toContain('row 1, field phone: "(415) 555-0101" is not in E.164 form (+14155550100); pass --default-country to convert national numbers');
    expect(r.stderr).toContain('row 2, field phone: "call me maybe" is not a phone number (E.164 form: +14155550100)\n');

    const many = write('many.csv', `name,phone\n${Array.from({ length: 8 }, (_, i) => `P${i},(415) 555-01${String(10 + i)}`).join('\n')}\n`);
    const n = await runCli(['contacts', 'import', listId, many, '--default-country', 'US'], { env });
    expect(n.code, n.stderr).toBe(0);
    expect(n.stdout).toMatch(/phones normalised +8 +\(to E\.164\)\n( {4}row \d+, phone: \(415\) 555-01\d\d → \+141555501\d\d\n){5} {4}… and 3 more\n/);
  });
});
