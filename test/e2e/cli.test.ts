import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, vap } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
let env: Record<string, string>;

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
  env = { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, VAP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vap-e2e-')) };
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  await emu.clearRequests();
});

describe('the built binary', () => {
  it('--version prints the version on stdout', async () => {
    const r = await vap(['--version']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^vap \d+\.\d+\.\d+$/);
    expect(r.stderr).toBe('');
  });

  it('--help lists the groups and the exit codes', async () => {
    const r = await vap(['--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('agents');
    expect(r.stdout).toContain('Exit codes:');
    expect(r.stdout).toMatch(/124\s+a --wait or watch ran past its --timeout/);
  });

  it('an unknown command exits 2 with a suggestion on stderr', async () => {
    const r = await vap(['agnets', 'list'], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("unknown command 'agnets'");
    expect(r.stderr).toContain('Did you mean agents?');
  });

  it('an unknown flag exits 2 with a suggestion', async () => {
    const r = await vap(['agents', 'list', '--serch', 'x'], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("unknown option '--serch'");
    expect(r.stderr).toContain('Did you mean --search?');
  });

  it('a missing required flag names the flag; an invalid enum lists the values; nothing is sent', async () => {
    const missing = await vap(['agents', 'rollback', 'ag_1', '--reason', 'oops'], { env });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--version');
    const badEnum = await vap(['agents', 'create', '--name', 'X', '--instructions', 'Hi', '--engine', 'turbo'], { env });
    expect(badEnum.exitCode).toBe(2);
    expect(badEnum.stderr).toMatch(/realtime, pipeline, speech-to-speech/);
    const neither = await vap(['agents', 'create', '--name', 'X', '--engine', 'realtime'], { env });
    expect(neither.exitCode).toBe(2);
    expect(neither.stderr).toMatch(/--instructions/);
    expect(await emu.requests()).toEqual([]);
  });

  it('no key exits 4 with a hint to log in, and sends nothing', async () => {
    const r = await vap(['agents', 'list'], { env: { VAP_BASE_URL: emu.url, VAP_CONFIG_DIR: env.VAP_CONFIG_DIR! } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toBe('error: no API key found for profile "default"; run `vap auth login`, or set VAP_API_KEY');
    expect(await emu.requests()).toEqual([]);
  });

  it('a refused key exits 4', async () => {
    const r = await vap(['agents', 'list'], { env: { ...env, VAP_API_KEY: 'wrong' } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/^error: the API refused the key: invalid API key \(HTTP 401, request id req_\w+\)/);
  });

  it('an unreachable host is one line on stderr, exit 1, no stack trace', async () => {
    const r = await vap(['agents', 'list'], { env: { ...env, VAP_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/could not reach http:\/\/127\.0\.0\.1:9/);
    expect(r.stderr).not.toMatch(/\bat .+:\d+:\d+/);
  });

  it('--json puts data on stdout and messages on stderr', async () => {
    const r = await vap(['agents', 'create', '--name', 'E2E', '--instructions', 'Be brief.', '--engine', 'pipeline', '--json'], { env });
    expect(r.exitCode).toBe(0);
    const created = JSON.parse(r.stdout);
    expect(created).toMatchObject({ name: 'E2E', engine: 'pipeline', currentVersion: 1 });
    expect(created.id).toMatch(/^ag_/);
  });

  it('listings print TSV without headers when piped, ids with -q, and honour --query', async () => {
    await vap(['agents', 'create', '--name', 'Piped', '--instructions', 'Hello.', '--engine', 'realtime'], { env });
    const tsv = await vap(['agents', 'list', '--search', 'Piped'], { env });
    expect(tsv.exitCode).toBe(0);
    const lines = tsv.stdout.split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.split('\t')[1]).toBe('Piped');
    expect(lines[0]).not.toMatch(/^ID/);
    const ids = await vap(['agents', 'list', '--search', 'Piped', '-q'], { env });
    expect(ids.stdout).toMatch(/^ag_\w+$/);
    const q = await vap(['agents', 'list', '--search', 'Piped', '--query', '[0].name'], { env });
    expect(JSON.parse(q.stdout)).toBe('Piped');
  });

  it('--verbose logs requests on stderr with the key redacted', async () => {
    const r = await vap(['agents', 'list', '--limit', '1', '--verbose'], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/> GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/agents\?page=1&pageSize=1/);
    expect(r.stderr).toMatch(/< 200 in \d+ms \(request id req_\w+\)/);
    expect(r.stderr).not.toContain(ORG_A.apiKey);
  });

  it('a 404 is exit 1 with the server message and the request id', async () => {
    const r = await vap(['agents', 'get', 'ag_missing'], { env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^error: .*ag_missing.* \(HTTP 404, request id req_\w+\)$/);
  });
});

describe('help', () => {
  it('`vap help agents` shows the agents verbs, like `vap agents --help`', async () => {
    const viaHelp = await vap(['help', 'agents']);
    const viaFlag = await vap(['agents', '--help']);
    expect(viaHelp.exitCode).toBe(0);
    expect(viaHelp.stdout).toContain('rollback');
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });
});
