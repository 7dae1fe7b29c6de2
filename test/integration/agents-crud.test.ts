import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-agents-cli-'));
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await emu.clearRequests();
});

const vap = (argv: string[], opts: RunOptions = {}, key = ORG_A.apiKey) => runCli(argv, { env: cliEnv(emu.url, key), ...opts });

async function createAgent(extra: string[] = [], key?: string): Promise<string> {
  const r = await vap(['agents', 'create', '--name', 'Reception', '--engine', 'realtime', '--instructions', 'Greet callers.', '-q', ...extra], {}, key);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

/** The requests the emulator saw since the last clear, as "METHOD path". */
async function sent(): Promise<string[]> {
  return (await emu.requests()).map((r) => `${r.method} ${r.path}`);
}

describe('vap agents create', () => {
  it('creates an agent and prints it (JSON with --json, key/value TSV when piped, a note on stderr)', async () => {
    const json = await vap([
      'agents',
      'create',
      '--name',
      'Support',
      '--engine',
      'pipeline',
      '--instructions',
      'Help with billing.',
      '--variable',
      'customer_name=the caller’s first name',
      '--variable',
      'plan=',
      '--json',
    ]);
    expect(json.code).toBe(0);
    const created = JSON.parse(json.stdout);
    expect(created).toEqual({ id: expect.stringMatching(/^ag_/), name: 'Support', engine: 'pipeline', currentVersion: 1 });
    expect(json.stderr).toContain(`Created agent Support (${created.id}) at version 1`);

    const got = JSON.parse((await vap(['agents', 'get', created.id, '--json'])).stdout);
    expect(got.variables).toEqual([
      { name: 'customer_name', description: 'the caller’s first name' },
      { name: 'plan', description: '' },
    ]);

    const tsv = await vap(['agents', 'create', '--name', 'Piped', '--engine', 'speech-to-speech', '--instructions', 'x']);
    expect(tsv.code).toBe(0);
    expect(tsv.stdout).toMatch(/^id\tag_\w+\nname\tPiped\nengine\tspeech-to-speech\nversion\t1\n$/);
  });

  it('reads the instructions from a file, and from stdin with -', async () => {
    const file = join(dir, 'prompt.md');
    writeFileSync(file, 'Line one.\nLine two.\n');
    const id = (await vap(['agents', 'create', '--name', 'F', '--engine', 'realtime', '--instructions-file', file, '-q'])).stdout.trim();
    expect(JSON.parse((await vap(['agents', 'get', id, '--json'])).stdout).instructions).toBe('Line one.\nLine two.');
    const r = await vap(['agents', 'create', '--name', 'S', '--engine', 'realtime', '--instructions-file', '-', '-q'], { stdin: 'From stdin.\n' });
    expect(r.code).toBe(0);
    expect(JSON.parse((await vap(['agents', 'get', r.stdout.trim(), '--json'])).stdout).instructions).toBe('From stdin.');
  });

  it('refuses bad input with exit 2 and sends nothing', async () => {
    const cases: Array<{ argv: string[]; err: RegExp }> = [
      { argv: ['--name', 'x', '--engine', 'turbo', '--instructions', 'y'], err: /--engine.*Allowed choices are realtime, pipeline, speech-to-speech/ },
      { argv: ['--name', 'x', '--instructions', 'y'], err: /--engine/ },
      { argv: ['--engine', 'realtime', '--instructions', 'y'], err: /--name/ },
      { argv: ['--name', 'x', '--engine', 'realtime'], err: /--instructions/ },
      { argv: ['--name', 'x', '--engine', 'realtime', '--instructions', 'y', '--instructions-file', 'f'], err: /exactly one/ },
      { argv: ['--name', 'x', '--engine', 'realtime', '--instructions', 'y', '--variable', 'foo'], err: /--variable.*'foo'.*name=description/ },
      { argv: ['--name', 'x', '--engine', 'realtime', '--instructions', 'y', '--variable', '=desc'], err: /--variable/ },
      {
        argv: ['--name', 'x', '--engine', 'realtime', '--instructions-file', join(dir, 'missing.md')],
        err: /cannot read --instructions-file .*missing\.md: no such file/,
      },
      { argv: ['--name', 'x', '--engine', 'realtime', '--instructions', '   '], err: /instructions are empty/ },
      { argv: ['--name', ' ', '--engine', 'realtime', '--instructions', 'y'], err: /--name must not be empty/ },
    ];
    for (const c of cases) {
      const r = await vap(['agents', 'create', ...c.argv]);
      expect(r.code, c.argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(c.err);
      expect(r.stdout).toBe('');
    }
    expect(await sent()).toEqual([]);
  });

  it('reports a 400 from the service as exit 1 with its message', async () => {
    const r = await vap(['agents', 'create', '--name', 'x', '--engine', 'realtime', '--instructions', 'y', '--variable', '1bad=z']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: variables\[0\]\.name: .*\(HTTP 400, request id req_\w+\)\n$/);
  });

  it('is not retried after a 500 on POST (it may have been created), but is after a 429', async () => {
    await emu.fault({ method: 'POST', path: '/api/v1/agents', status: 500, count: 1 });
    const r = await vap(['agents', 'create', '--name', 'Once', '--engine', 'realtime', '--instructions', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/HTTP 500/);
    expect((await sent()).filter((s) => s === 'POST /api/v1/agents')).toHaveLength(1);

    await emu.clearRequests();
    await emu.fault({ method: 'POST', path: '/api/v1/agents', status: 429, count: 1, retryAfter: 0 });
    const ok = await vap(['agents', 'create', '--name', 'Twice', '--engine', 'realtime', '--instructions', 'x', '-q']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ag_\w+\n$/);
    expect((await emu.requests()).filter((q) => q.method === 'POST').map((q) => q.status)).toEqual([429, 201]);
  });
});

describe('vap agents get', () => {
  it('shows the agent as a table on a terminal and as key/value TSV when piped', async () => {
    const id = await createAgent(['--description', 'Front desk', '--tag', 'reception', '--tag', 'en']);
    const table = await vap(['agents', 'get', id], { tty: true });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`^id +${id}$`, 'm'));
    expect(table.stdout).toMatch(/^voice +\S+ \(en-US\)$/m);
    expect(table.stdout).toMatch(/^tags +reception,en$/m);
    const tsv = await vap(['agents', 'get', id]);
    const rows = Object.fromEntries(
      tsv.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')),
    );
    expect(rows).toMatchObject({
      id,
      name: 'Reception',
      engine: 'realtime',
      modality: 'voice',
      version: '1',
      instructions: 'Greet callers.',
      description: 'Front desk',
    });
    const q = await vap(['agents', 'get', id, '--query', 'engine']);
    expect(q.stdout).toBe('"realtime"\n');
  });

  it('retries a GET after 503s, and exits 1 on a 404', async () => {
    const id = await createAgent();
    await emu.clearRequests();
    await emu.fault({ method: 'GET', path: `/api/v1/agents/${id}`, status: 503, count: 2 });
    const r = await vap(['agents', 'get', id, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(id);
    // (The tools are read beside the agent.)
    expect((await emu.requests()).filter((q) => q.path === `/api/v1/agents/${id}`).map((q) => q.status)).toEqual([503, 503, 200]);

    const missing = await vap(['agents', 'get', 'ag_missing']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/agent ag_missing not found \(HTTP 404, request id req_\w+\)/);
  });

  it('encodes the id into the path, and refuses one that could not stay one segment (exit 2, nothing sent)', async () => {
    const ok = await vap(['agents', 'get', 'ag a%b']);
    expect(ok.code).toBe(1);
    expect((await sent()).sort()).toEqual(['GET /api/v1/agents/ag%20a%25b', 'GET /api/v1/agents/ag%20a%25b/tools']);
    await emu.clearRequests();
    const r = await vap(['agents', 'get', '../voices']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: <agentId> "../voices" is not a valid id: it contains "/"; an id is one path segment: not empty, not "." or "..", without / \\ ? # or control characters\n',
    );
    expect(await sent()).toEqual([]);
  });

  it('keeps tenants apart', async () => {
    const id = await createAgent();
    const other = await vap(['agents', 'get', id], {}, ORG_B.apiKey);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/not found.*HTTP 404/);
    expect((await vap(['agents', 'update', id, '--name', 'x'], {}, ORG_B.apiKey)).code).toBe(1);
    expect((await vap(['agents', 'delete', id, '--yes'], {}, ORG_B.apiKey)).code).toBe(1);
    const list = await vap(['agents', 'list', '-q'], {}, ORG_B.apiKey);
    expect(list.stdout.split('\n')).not.toContain(id);
    expect((await vap(['agents', 'get', id])).code).toBe(0);
  });

  it('exits 4 with a refused key', async () => {
    const r = await vap(['agents', 'get', 'ag_x'], {}, 'wrong');
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/refused the key/);
  });
});

describe('vap agents list --search', () => {
  it('matches name, description or tag', async () => {
    await createAgent(['--description', 'Handles Walrus questions']);
    await createAgent(['--tag', 'walrus']);
    const r = await vap(['agents', 'list', '--search', 'WALRUS', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
  });
});

describe('vap agents update', () => {
  it('changes instructions as a new version and prints it', async () => {
    const id = await createAgent();
    const r = await vap(['agents', 'update', id, '--instructions', 'Greet callers warmly.', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id, currentVersion: 2 });
    expect(r.stderr).toContain('current version is 2');
    const piped = await vap(['agents', 'update', id, '--name', 'Front desk', '--variable', 'a=b', '--tag', 't1', '--description', 'd']);
    expect(piped.stdout).toBe(`id\t${id}\nversion\t3\n`);
    const got = JSON.parse((await vap(['agents', 'get', id, '--json'])).stdout);
    expect(got).toMatchObject({
      name: 'Front desk',
      instructions: 'Greet callers warmly.',
      variables: [{ name: 'a', description: 'b' }],
      tags: ['t1'],
      description: 'd',
    });
    await vap(['agents', 'update', id, '--clear-variables', '--clear-tags']);
    expect(JSON.parse((await vap(['agents', 'get', id, '--json'])).stdout)).toMatchObject({ variables: [], tags: [] });
  });

  it('refuses to send nothing, or both instruction flags (exit 2, nothing sent)', async () => {
    for (const argv of [
      ['agents', 'update', 'ag_x'],
      ['agents', 'update', 'ag_x', '--instructions', 'a', '--instructions-file', 'b'],
      ['agents', 'update', 'ag_x', '--variable', 'nope'],
      ['agents', 'update', 'ag_x', '--engine', 'fast'],
      ['agents', 'update', 'ag_x', '--tag', 'a', '--clear-tags'],
    ]) {
      const r = await vap(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: /);
    }
    expect((await vap(['agents', 'update', 'ag_x'])).stderr).toMatch(/nothing to update; pass at least one of --name/);
    expect(await sent()).toEqual([]);
  });
});

describe('vap agents delete', () => {
  it('without a terminal and without --yes: exit 2, tells to pass --yes, sends nothing', async () => {
    const id = await createAgent();
    await emu.clearRequests();
    const r = await vap(['agents', 'delete', id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pass --yes/);
    expect(await sent()).toEqual([]);
    // --no-input on a terminal is the same.
    const noInput = await vap(['agents', 'delete', id, '--no-input'], { tty: true });
    expect(noInput.code).toBe(2);
    expect(await sent()).toEqual([]);
  });

  it('with --yes (or -y) deletes without asking', async () => {
    const id = await createAgent();
    const r = await vap(['agents', 'delete', id, '--yes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Deleted agent ${id}`);
    expect((await vap(['agents', 'get', id])).code).toBe(1);
    const id2 = await createAgent();
    const j = await vap(['agents', 'delete', '-y', id2, '--json']);
    expect(JSON.parse(j.stdout)).toEqual({ id: id2, deleted: true });
    const again = await vap(['agents', 'delete', id2, '-y']);
    expect(again.code).toBe(1);
  });
});

describe('help', () => {
  it('every agents verb has --help with an example', async () => {
    for (const verb of ['list', 'create', 'get', 'update', 'delete', 'versions', 'rollback', 'tools', 'voice']) {
      const r = await vap(['agents', verb, '--help']);
      expect(r.code, verb).toBe(0);
      expect(r.stdout).toMatch(/Examples:\n {2}\$ vap agents /);
    }
    expect(await sent()).toEqual([]);
  });
});
