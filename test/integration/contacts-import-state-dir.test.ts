// Issue 10, point 3: the import state lives in the user's state directory (VAP_STATE_DIR
// here), keyed by server, organization, list and file content, not beside the input.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

const FIELDS = [
  { name: 'name', type: 'string', required: true },
  { name: 'phone', type: 'phone', required: true },
];

let a: TestEmulator;
let root: string;

beforeAll(async () => {
  a = await startTestEmulator();
  root = mkdtempSync(join(tmpdir(), 'vap-i10-state-'));
});
afterAll(async () => {
  await a.close();
});

async function createList(emu: TestEmulator): Promise<string> {
  return (await emu.api<{ data: { id: string } }>('POST', '/api/v1/contact-lists', { name: 'i10', schema: { fields: FIELDS } })).body.data.id;
}

function leads(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'leads.csv');
  writeFileSync(file, 'name,phone\nAda,+14155550100\nAlan,+14155550101\n');
  return file;
}

const states = (stateDir: string) => (existsSync(join(stateDir, 'imports')) ? readdirSync(join(stateDir, 'imports')) : []);

describe('import state location', () => {
  it('a read-only input folder imports fine; the state goes to the state directory', async () => {
    const stateDir = join(root, 'state-ro');
    const env = { ...cliEnv(a.url, ORG_A.apiKey), VAP_STATE_DIR: stateDir };
    const inputDir = join(root, 'readonly');
    const file = leads(inputDir);
    chmodSync(inputDir, 0o555); // (as root this does not stop writes: the listing below checks that none happened)
    try {
      const listId = await createList(a);
      const r = await runCli(['contacts', 'import', listId, file, '--json'], { env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout);
      expect(summary).toMatchObject({ imported: 2, complete: true });
      expect(readdirSync(inputDir)).toEqual(['leads.csv']);
      expect(summary.stateFile).toMatch(new RegExp(`^${join(stateDir, 'imports', listId)}-[0-9a-f]{24}\\.json$`));
      const state = JSON.parse(readFileSync(summary.stateFile, 'utf8'));
      expect(state).toMatchObject({ listId, complete: true, input: { path: file }, target: { baseUrl: a.url } });
      expect(JSON.stringify(state)).not.toContain(ORG_A.apiKey);

      // Again into the same list: refused, naming the file, the list and the state file.
      const again = await runCli(['contacts', 'import', listId, file], { env });
      expect(again.code).toBe(2);
      expect(again.stderr).toContain(`error: ${file} was already imported into list ${listId} (completed `);
      expect(again.stderr).toContain(`state file ${summary.stateFile}`);
    } finally {
      chmodSync(inputDir, 0o755);
    }
  });

  // As root (CI containers) a folder's mode does not stop writes, so this case can only run as a user.
  it.skipIf(process.getuid?.() === 0)(
    'a read-only input folder with rejected rows: the errors file goes to the state folder, named in the summary',
    async () => {
      const stateDir = join(root, 'state-ro-errors');
      const env = { ...cliEnv(a.url, ORG_A.apiKey), VAP_STATE_DIR: stateDir };
      const inputDir = join(root, 'readonly-errors');
      mkdirSync(inputDir, { recursive: true });
      const file = join(inputDir, 'leads.csv');
      writeFileSync(file, 'name,phone\nAda,+14155550100\nBad,not-a-phone\n');
      chmodSync(inputDir, 0o555);
      try {
        const listId = await createList(a);
        const r = await runCli(['contacts', 'import', listId, file, '--json'], { env });
        expect(r.code).toBe(1);
        const summary = JSON.parse(r.stdout);
        expect(summary.errorsFile).toBe(join(stateDir, 'errors', 'leads.errors.csv'));
        expect(readFileSync(summary.errorsFile, 'utf8')).toContain('not-a-phone');
        expect(readdirSync(inputDir)).toEqual(['leads.csv']);
      } finally {
        chmodSync(inputDir, 0o755);
      }
    },
  );

  // Two emulators with the same seed: the same ids, as after a restart of one (on another port).
  it('two emulators with the same seed (same list id): each accepts an import of the same file', async () => {
    const stateDir = join(root, 'state-two');
    const file = leads(join(root, 'two'));
    const [c, d] = await Promise.all([startTestEmulator({ seed: 7 }), startTestEmulator({ seed: 7 })]);
    onTestFinished(() => Promise.all([c.close(), d.close()]).then(() => undefined));
    const [listA, listB] = [await createList(c), await createList(d)];
    expect(listB).toBe(listA);
    for (const emu of [c, d]) {
      const r = await runCli(['contacts', 'import', listA, file, '--json'], { env: { ...cliEnv(emu.url, ORG_A.apiKey), VAP_STATE_DIR: stateDir } });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ imported: 2, complete: true });
    }
    expect(states(stateDir).filter((n) => n.startsWith(`${listA}-`))).toHaveLength(2);
  });

  it('an emulator started again on the same port (same seed, same list id): the new import is accepted, the old state is known to be stale', async () => {
    const stateDir = join(root, 'state-restart');
    const file = leads(join(root, 'restart'));
    const first = await startTestEmulator({ seed: 7 });
    const port = Number(new URL(first.url).port);
    const listId = await createList(first);
    const env = { ...cliEnv(first.url, ORG_A.apiKey), VAP_STATE_DIR: stateDir };
    expect((await runCli(['contacts', 'import', listId, file], { env })).code).toBe(0);
    const refused = await runCli(['contacts', 'import', listId, file], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/was already imported into list/);
    await first.close();
    const again = await startTestEmulator({ seed: 7, port });
    onTestFinished(() => again.close());
    expect(again.url).toBe(first.url);
    expect(await createList(again)).toBe(listId);
    const r = await runCli(['contacts', 'import', listId, file, '--json'], { env });
    expect(r.stderr).toContain(
      `the server does not know the import jobs recorded in ${JSON.parse(r.stdout).stateFile} (was it reset or restarted?); starting a new import of ${file} into list ${listId}`,
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ imported: 2, complete: true, resumed: false });
  });

  it('--resume after the file changed, or into another list, still says which (the state is found by the input path)', async () => {
    const stateDir = join(root, 'state-resume');
    const env = { ...cliEnv(a.url, ORG_A.apiKey), VAP_STATE_DIR: stateDir };
    const file = leads(join(root, 'resume'));
    const listId = await createList(a);
    // An unfinished state: the import as it was after its first run, marked not complete.
    const first = await runCli(['contacts', 'import', listId, file, '--json'], { env });
    const stateFile = JSON.parse(first.stdout).stateFile as string;
    const s = JSON.parse(readFileSync(stateFile, 'utf8'));
    writeFileSync(stateFile, JSON.stringify({ ...s, complete: false }));
    const other = await createList(a);
    const wrongList = await runCli(['contacts', 'import', other, file, '--resume'], { env });
    expect(wrongList.code).toBe(2);
    expect(wrongList.stderr).toContain(`the state file ${stateFile} is for list ${listId}, not ${other}`);
    writeFileSync(file, 'name,phone\nAda,+14155550100\n');
    const changed = await runCli(['contacts', 'import', listId, file, '--resume'], { env });
    expect(changed.code).toBe(2);
    expect(changed.stderr).toMatch(/is not the file this import began with/);
  });

  it('--state-file still overrides', async () => {
    const stateDir = join(root, 'state-flag');
    const file = leads(join(root, 'flag'));
    const listId = await createList(a);
    const own = join(root, 'flag', 'my-state.json');
    const r = await runCli(['contacts', 'import', listId, file, '--state-file', own, '--json'], {
      env: { ...cliEnv(a.url, ORG_A.apiKey), VAP_STATE_DIR: stateDir },
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).stateFile).toBe(own);
    expect(JSON.parse(readFileSync(own, 'utf8'))).toMatchObject({ complete: true });
    expect(states(stateDir)).toEqual([]);
  });
});
