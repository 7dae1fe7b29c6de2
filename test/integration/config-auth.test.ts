import { mkdtempSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
});

const freshDir = () => mkdtempSync(join(tmpdir(), 'vap-config-'));

describe('auth and config', () => {
  it('login --with-key checks the key, stores it with mode 0600, and status shows only a prefix', async () => {
    const dir = freshDir();
    const env = { VAP_CONFIG_DIR: dir, VAP_BASE_URL: emu.url };
    const login = await runCli(['auth', 'login', '--with-key'], { env, stdin: `${ORG_A.apiKey}\n` });
    expect(login.stderr).toContain('Logged in');
    expect(login.code).toBe(0);
    const file = join(dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default).toEqual({ apiKey: ORG_A.apiKey, baseUrl: emu.url });

    const status = await runCli(['auth', 'status', '--json'], { env: { VAP_CONFIG_DIR: dir } });
    expect(status.code).toBe(0);
    const s = JSON.parse(status.stdout);
    expect(s).toMatchObject({ profile: 'default', baseUrl: emu.url, keySource: 'config file' });
    expect(s.keyPrefix).toMatch(/…$/);
    expect(status.stdout + status.stderr).not.toContain(ORG_A.apiKey);
    expect(s.checks.every((c: { ok: boolean }) => c.ok)).toBe(true);
  });

  it('login refuses a key the API rejects, stores nothing, exits 4', async () => {
    const dir = freshDir();
    const r = await runCli(['auth', 'login', '--with-key'], { env: { VAP_CONFIG_DIR: dir, VAP_BASE_URL: emu.url }, stdin: 'nope\n' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/refused this key/);
    const list = await runCli(['config', 'get', 'api_key'], { env: { VAP_CONFIG_DIR: dir } });
    expect(list.code).toBe(1);
  });

  it('login without a terminal and without --with-key is a usage error', async () => {
    const r = await runCli(['auth', 'login'], { env: { VAP_CONFIG_DIR: freshDir(), VAP_BASE_URL: emu.url } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--with-key');
  });

  it('profiles: --profile > VAP_PROFILE > default, and flag > env > profile for the base URL', async () => {
    const dir = freshDir();
    await runCli(['auth', 'login', '--with-key', '--profile', 'b'], { env: { VAP_CONFIG_DIR: dir, VAP_BASE_URL: emu.url }, stdin: ORG_B.apiKey });
    await runCli(['config', 'set', 'base_url', 'http://127.0.0.1:9', '--profile', 'other'], { env: { VAP_CONFIG_DIR: dir } });

    const viaEnv = await runCli(['config', 'get', 'profile'], { env: { VAP_CONFIG_DIR: dir, VAP_PROFILE: 'b' } });
    expect(viaEnv.stdout.trim()).toBe('b');
    const flagWins = await runCli(['config', 'get', 'profile', '--profile', 'other'], { env: { VAP_CONFIG_DIR: dir, VAP_PROFILE: 'b' } });
    expect(flagWins.stdout.trim()).toBe('other');

    const fromProfile = await runCli(['config', 'get', 'base_url', '--profile', 'other'], { env: { VAP_CONFIG_DIR: dir } });
    expect(fromProfile.stdout.trim()).toBe('http://127.0.0.1:9');
    const envWins = await runCli(['config', 'get', 'base_url', '--profile', 'other'], { env: { VAP_CONFIG_DIR: dir, VAP_BASE_URL: 'http://env:1' } });
    expect(envWins.stdout.trim()).toBe('http://env:1');
    const flagBeatsEnv = await runCli(['config', 'get', 'base_url', '--base-url', 'http://flag:2'], {
      env: { VAP_CONFIG_DIR: dir, VAP_BASE_URL: 'http://env:1' },
    });
    expect(flagBeatsEnv.stdout.trim()).toBe('http://flag:2');

    const status = await runCli(['auth', 'status', '--json'], { env: { VAP_CONFIG_DIR: dir, VAP_PROFILE: 'b' } });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).profile).toBe('b');

    const keyFromEnv = await runCli(['auth', 'status', '--json'], { env: { VAP_CONFIG_DIR: dir, VAP_PROFILE: 'b', VAP_API_KEY: 'bad' } });
    expect(keyFromEnv.code).toBe(4);
  });

  it('config set validates keys and values; the key is never set through config', async () => {
    const env = { VAP_CONFIG_DIR: freshDir() };
    expect((await runCli(['config', 'set', 'colour', 'x'], { env })).stderr).toContain('valid keys: profile, base_url, default_profile, api_key');
    expect((await runCli(['config', 'set', 'base_url', 'ftp://x'], { env })).code).toBe(2);
    expect((await runCli(['config', 'set', 'api_key', 'k'], { env })).stderr).toContain('vap auth login');
    expect((await runCli(['config', 'set', 'default_profile', 'staging'], { env })).code).toBe(0);
    expect((await runCli(['config', 'get', 'profile'], { env })).stdout.trim()).toBe('staging');
  });

  it('logout removes the stored key; then commands exit 4 with a hint', async () => {
    const dir = freshDir();
    await runCli(['auth', 'login', '--with-key'], { env: { VAP_CONFIG_DIR: dir, VAP_BASE_URL: emu.url }, stdin: ORG_A.apiKey });
    const out = await runCli(['auth', 'logout'], { env: { VAP_CONFIG_DIR: dir } });
    expect(out.code).toBe(0);
    const after = await runCli(['agents', 'list'], { env: { VAP_CONFIG_DIR: dir } });
    expect(after.code).toBe(4);
    expect(after.stderr).toBe('error: no API key found for profile "default"; run `vap auth login`, or set VAP_API_KEY\n');
  });
});
