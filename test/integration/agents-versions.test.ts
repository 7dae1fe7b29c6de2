import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  await emu.clearRequests();
});

const vap = (argv: string[], opts: RunOptions = {}) => runCli(argv, { env: cliEnv(emu.url, ORG_A.apiKey), ...opts });

async function createAgent(instructions = 'v1'): Promise<string> {
  const r = await vap(['agents', 'create', '--name', 'Versioned', '--engine', 'realtime', '--instructions', instructions, '-q']);
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

describe('vap agents versions', () => {
  it('lists versions newest first: a table with a current marker on a terminal, TSV and JSON otherwise', async () => {
    const id = await createAgent();
    await vap(['agents', 'update', id, '--instructions', 'v2']);
    await vap(['agents', 'update', id, '--name', 'Renamed']);

    const table = await vap(['agents', 'versions', id], { tty: true });
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^VERSION +CHANGE +BY +AT +CURRENT +NOTE$/);
    // Times are relative on a terminal (exact piped, or with --absolute-times); the emulator's
    // simulated clock runs ahead of this one, so a version may be "in 5 minutes".
    expect(lines[1]).toMatch(/^3 +settings_updated +API key \(acme\) +(just now|(in )?\d+ \w+( ago)?) +\* +name$/);
    expect(lines[2]).toMatch(/^2 +prompt_updated +API key \(acme\) +(just now|(in )?\d+ \w+( ago)?) +instructions$/);
    // With exact times the table is wider than 80 columns: --wide keeps every column (NOTE is left out otherwise).
    const exact = await vap(['agents', 'versions', id, '--absolute-times', '--wide'], { tty: true });
    expect(exact.stdout.split('\n')[1]).toMatch(/^3 +settings_updated +API key \(acme\) +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z +\* +name$/);
    expect(lines[3]).toMatch(/^1 +created/);

    const tsv = await vap(['agents', 'versions', id]);
    expect(tsv.stdout.split('\n')[0]!.split('\t')).toEqual(['3', 'settings_updated', 'API key (acme)', expect.stringMatching(/Z$/), 'true', 'name']);

    const json = JSON.parse((await vap(['agents', 'versions', id, '--json'])).stdout);
    expect(json.map((v: any) => [v.versionNumber, v.changeType, v.isCurrent])).toEqual([
      [3, 'settings_updated', true],
      [2, 'prompt_updated', false],
      [1, 'created', false],
    ]);
    expect((await vap(['agents', 'versions', id, '-q', '--limit', '1'])).stdout).toBe('3\n');
  });

  it('pages with limit/offset: --limit, --page and --all', async () => {
    const id = await createAgent();
    for (let i = 2; i <= 7; i++) await vap(['agents', 'update', id, '--instructions', `v${i}`]);
    await emu.clearRequests();
    expect((await vap(['agents', 'versions', id, '-q', '--limit', '3'])).stdout).toBe('7\n6\n5\n');
    expect(await emu.requests()).toEqual([expect.objectContaining({ method: 'GET', path: `/api/v1/agents/${id}/versions` })]);
    expect((await vap(['agents', 'versions', id, '-q', '--limit', '3', '--page', '2'])).stdout).toBe('4\n3\n2\n');
    expect((await vap(['agents', 'versions', id, '-q', '--all'])).stdout).toBe('7\n6\n5\n4\n3\n2\n1\n');
  });
});

describe('vap agents rollback', () => {
  it('records a new current version restoring the earlier one; history is kept', async () => {
    const id = await createAgent('first instructions');
    await vap(['agents', 'update', id, '--instructions', 'second instructions']);
    await vap(['agents', 'update', id, '--instructions', 'third instructions']);

    const r = await vap(['agents', 'rollback', id, '--version=1', '--reason', 'v2 and v3 were rude', '--yes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`version\t4\nagent\t${id}\nrestored\t1\n`);
    expect(r.stderr).toContain('back to version 1; the new current version is 4');
    // What changes was said first (--yes skips only the question).
    expect(r.stderr).toContain('  instructions:\n    @@ -1,1 +1,1 @@\n    -third instructions\n    +first instructions\n');

    const agent = JSON.parse((await vap(['agents', 'get', id, '--json'])).stdout);
    expect(agent).toMatchObject({ currentVersion: 4, instructions: 'first instructions' });
    const versions = JSON.parse((await vap(['agents', 'versions', id, '--json'])).stdout);
    expect(versions.map((v: any) => v.versionNumber)).toEqual([4, 3, 2, 1]);
    expect(versions[0]).toMatchObject({ changeType: 'rollback', isCurrent: true, rolledBackTo: 1, reason: 'v2 and v3 were rude' });
    // The note whole with --wide (cut with … to fit 80 columns otherwise).
    const table = await vap(['agents', 'versions', id, '--wide'], { tty: true });
    expect(table.stdout).toMatch(/^4 +rollback .*\* +to version 1: v2 and v3 were rude$/m);

    // -q prints only the new version; --json the whole result.
    expect((await vap(['agents', 'rollback', id, '--version=3', '--reason', 'back again', '-q', '--yes'])).stdout).toBe('5\n');
    expect(JSON.parse((await vap(['agents', 'rollback', id, '--version=2', '--reason', 'r', '--json', '--yes'])).stdout)).toEqual({
      agentId: id,
      version: 6,
      rolledBackTo: 2,
    });
  });

  it('explains why the current or a missing version is refused, before sending the rollback (exit 2)', async () => {
    const id = await createAgent();
    await vap(['agents', 'update', id, '--instructions', 'v2']);
    await emu.clearRequests();
    const current = await vap(['agents', 'rollback', id, '--version=2', '--reason', 'r', '--yes']);
    expect(current.code).toBe(2);
    expect(current.stderr).toMatch(/version 2 is already the current version .*roll back to an earlier one/);
    const future = await vap(['agents', 'rollback', id, '--version=9', '--reason', 'r', '--yes']);
    expect(future.code).toBe(2);
    expect(future.stderr).toMatch(/has no version 9; its versions are 1 to 2/);
    expect((await emu.requests()).filter((q) => q.method === 'POST')).toEqual([]);
  });

  it('needs --version (a whole number) and a non-empty --reason: exit 2, nothing sent', async () => {
    for (const argv of [
      ['agents', 'rollback', 'ag_x', '--reason', 'r'],
      ['agents', 'rollback', 'ag_x', '--version=1'],
      ['agents', 'rollback', 'ag_x', '--version=0', '--reason', 'r'],
      ['agents', 'rollback', 'ag_x', '--version=two', '--reason', 'r'],
      ['agents', 'rollback', 'ag_x', '--version=1', '--reason', '  '],
      ['agents', 'rollback', '--version=1', '--reason', 'r'],
    ]) {
      const r = await vap(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
    }
    expect(await emu.requests()).toEqual([]);
  });

  // KNOWN ISSUE (src/program.ts, not in this group): the program declares `-V, --version`, and Commander lets a
  // program option claim its flag anywhere on the line, so `--version 1` after `agents rollback` prints vap's
  // version instead of reaching rollback. `--version=1` works. Fix in program.ts: declare the version option only
  // when argv names no group (cli.ts already answers `vap --version`). Then turn this into a plain `it`.
  it('accepts `--version n` with a space', async () => {
    const id = await createAgent();
    await vap(['agents', 'update', id, '--instructions', 'v2']);
    const r = await vap(['agents', 'rollback', id, '--version', '1', '--reason', 'space form', '--yes']);
    expect(r.stdout).toBe(`version\t3\nagent\t${id}\nrestored\t1\n`);
  });
});
