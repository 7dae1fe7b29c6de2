// The agents-as-code verbs as a user runs them (the built binary): `vap plan` is `vap diff`,
// exit codes, stdout for data and stderr for the rest, and help that loads none of the
// machinery.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, bundleInputs, ROOT, vap } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu?.close();
});

const TRACE = fileURLToPath(new URL('../helpers/trace-loads.mjs', import.meta.url));

async function loadedInputs(args: string[]): Promise<string[]> {
  const file = join(mkdtempSync(join(tmpdir(), 'vap-trace-')), 'loads.txt');
  await execa('node', ['--import', TRACE, join(ROOT, 'bin/vap.js'), ...args], { env: { VAP_TRACE_FILE: file, NO_COLOR: '1' }, reject: false });
  const urls = readFileSync(file, 'utf8')
    .split('\n')
    .filter((u) => u.startsWith('file:'));
  const inputs = bundleInputs();
  return urls.map((u) => relative(ROOT, fileURLToPath(u))).flatMap((d) => inputs.get(d) ?? [d]);
}

describe('agents as code from the built binary', () => {
  it.each([['pull'], ['diff'], ['plan'], ['push'], ['mv']])('vap %s --help loads neither the YAML and schema libraries nor the HTTP client', async (verb) => {
    const loaded = await loadedInputs([verb, '--help']);
    expect(loaded.some((p) => p.includes('src/commands/ascode/'))).toBe(true);
    expect(loaded.filter((p) => /node_modules\/(yaml|zod|diff|p-limit|undici)\/|src\/ascode\/|src\/api\/client\.ts/.test(p))).toEqual([]);
  });

  it('pull, plan (the alias of diff) and diff --exit-code as a CI job runs them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-ascode-e2e-'));
    const a = (await emu.api('POST', '/api/v1/agents', { name: 'Desk', instructions: 'Answer politely.', engine: 'pipeline' })).body.data;
    const env = { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, CI: 'true' };
    const pulled = await vap(['pull', '--agent', a.id, '--profile', 'ci'], { env, cwd: dir });
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    expect(pulled.stdout).toBe('');
    const clean = await vap(['plan', '--exit-code', '--profile', 'ci'], { env, cwd: dir });
    expect(clean.exitCode).toBe(0);
    expect(clean.stdout).toContain('No changes');

    writeFileSync(
      join(dir, 'agents', 'desk', 'agent.md'),
      readFileSync(join(dir, 'agents', 'desk', 'agent.md'), 'utf8').replace('Answer politely.', 'Answer politely and briefly.'),
    );
    const changed = await vap(['diff', '--exit-code', '--profile', 'ci'], { env, cwd: join(dir, 'agents') });
    expect(changed.exitCode).toBe(3);
    expect(changed.stdout).toContain('+Answer politely and briefly.');
    expect(changed.stderr).toBe('');
    const json = await vap(['diff', '--json', '--profile', 'ci'], { env, cwd: dir });
    expect(JSON.parse(json.stdout).resources[0]).toMatchObject({
      kind: 'agent',
      key: 'desk',
      action: 'update',
      changes: [{ field: 'instructions', platform: 'Answer politely.', files: 'Answer politely and briefly.' }],
    });

    const noTty = await vap(['push', '--profile', 'ci'], { env, cwd: dir });
    expect(noTty.exitCode).toBe(2);
    expect(noTty.stderr).toContain('pass --yes');
    const pushed = await vap(['push', '--yes', '--profile', 'ci'], { env, cwd: dir });
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    expect((await vap(['diff', '--exit-code', '--profile', 'ci'], { env, cwd: dir })).exitCode).toBe(0);

    const nowhere = await vap(['diff', '--profile', 'ci'], { env, cwd: tmpdir() });
    expect(nowhere.exitCode).toBe(2);
    expect(nowhere.stderr).toMatch(/^error: no vap\.yaml in .* or any folder above it; run `vap pull --all`/);
  });
});
