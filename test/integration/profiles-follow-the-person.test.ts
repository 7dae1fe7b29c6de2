import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { runCli } from '../helpers/run-cli.js';

// Profiles follow the person: the first `auth login` on a machine makes its profile the
// default (as gh does) and says so; a command without a key names the profile in use and
// the profiles that have one (exit 4), and sends nothing.

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
});

const freshDir = () => mkdtempSync(join(tmpdir(), 'vap-profiles-'));
const config = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
const login = (dir: string, key: string, ...argv: string[]) =>
  runCli(['auth', 'login', '--with-key', ...argv], { env: { VAP_CONFIG_DIR: dir, VAP_BASE_URL: emu.url }, stdin: key });

describe('the first login makes its profile the default', () => {
  it('auth login --profile staging on a fresh machine: staging is the default, and it says so', async () => {
    const dir = freshDir();
    const r = await login(dir, ORG_A.apiKey, '--profile', 'staging');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Logged in to');
    expect(r.stderr).toContain('Profile "staging" is now the default (the first login on this machine)');
    expect(r.stderr).toContain('vap config set default_profile <name>');
    expect(config(dir).defaultProfile).toBe('staging');

    // Plain commands use it.
    expect((await runCli(['config', 'get', 'profile'], { env: { VAP_CONFIG_DIR: dir } })).stdout.trim()).toBe('staging');
    const list = await runCli(['agents', 'list', '-q'], { env: { VAP_CONFIG_DIR: dir } });
    expect(list.code).toBe(0);

    // A second login does not move the default, and says nothing about it.
    const second = await login(dir, ORG_B.apiKey, '--profile', 'prod');
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('now the default');
    expect(config(dir).defaultProfile).toBe('staging');
  });

  it('the first login to the profile "default" stores no default and says nothing more', async () => {
    const dir = freshDir();
    const r = await login(dir, ORG_A.apiKey);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('now the default');
    expect(config(dir).defaultProfile).toBeUndefined();
  });

  it('a default chosen before the first login is kept', async () => {
    const dir = freshDir();
    expect((await runCli(['config', 'set', 'default_profile', 'local'], { env: { VAP_CONFIG_DIR: dir } })).code).toBe(0);
    const r = await login(dir, ORG_A.apiKey, '--profile', 'staging');
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('now the default');
    expect(config(dir).defaultProfile).toBe('local');
  });

  it('VAP_PROFILE chooses the profile of the first login like --profile', async () => {
    const dir = freshDir();
    const r = await runCli(['auth', 'login', '--with-key'], { env: { VAP_CONFIG_DIR: dir, VAP_BASE_URL: emu.url, VAP_PROFILE: 'ci' }, stdin: ORG_A.apiKey });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Profile "ci" is now the default');
    expect(config(dir).defaultProfile).toBe('ci');
  });
});

describe('a missing key names the profile in use and the profiles that have keys', () => {
  it('no profile has a key: names the profile, exit 4, nothing sent', async () => {
    const dir = freshDir();
    await emu.clearRequests();
    const r = await runCli(['agents', 'list', '--profile', 'dev'], { env: { VAP_CONFIG_DIR: dir, VAP_BASE_URL: emu.url } });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('error: no API key found for profile "dev"; run `vap auth login --profile dev`, or set VAP_API_KEY\n');
    expect(await emu.requests()).toEqual([]);
  });

  it('another profile has a key: names it, and how to use it or store a key for this one', async () => {
    const dir = freshDir();
    await login(dir, ORG_A.apiKey, '--profile', 'staging');
    const r = await runCli(['agents', 'list'], { env: { VAP_CONFIG_DIR: dir, VAP_BASE_URL: emu.url, VAP_PROFILE: 'default' } });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(
      'error: no API key found for profile "default" (profiles with a key: staging); pass --profile staging, make it the default with `vap config set default_profile staging`, or store a key for "default" with `vap auth login`\n',
    );
  });

  it('several profiles have keys: lists them all, sorted', async () => {
    const dir = freshDir();
    await login(dir, ORG_A.apiKey, '--profile', 'staging');
    await login(dir, ORG_B.apiKey, '--profile', 'prod');
    const r = await runCli(['calls', 'list', '--profile', 'dev'], { env: { VAP_CONFIG_DIR: dir, VAP_BASE_URL: emu.url } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no API key found for profile "dev" (profiles with a key: prod, staging)');
    expect(r.stderr).toContain(
      'pass --profile <name>, make one the default with `vap config set default_profile <name>`, or store a key for "dev" with `vap auth login --profile dev`',
    );
  });

  it('after logout, auth status names the profile and the others that have keys', async () => {
    const dir = freshDir();
    await login(dir, ORG_A.apiKey, '--profile', 'staging');
    await login(dir, ORG_B.apiKey, '--profile', 'prod');
    expect((await runCli(['auth', 'logout'], { env: { VAP_CONFIG_DIR: dir } })).code).toBe(0);
    const r = await runCli(['auth', 'status'], { env: { VAP_CONFIG_DIR: dir, VAP_BASE_URL: emu.url } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`not logged in at ${emu.url} for profile "staging" (profiles with a key: prod)`);
  });
});
