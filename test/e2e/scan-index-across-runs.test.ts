// From the built binary: a command that reads the project keeps an index of what it read in
// .vap/cache/ (ignored by git on its own), and the next command trusts it only for files
// whose identity and times are unchanged: an edit that keeps the size and puts the
// modification time back, and a new suite file, are still seen.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RACY_MS } from '../../src/ascode/scan-index.js';
import { assertBuilt, vap } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu?.close();
});

describe('the scan index across runs', () => {
  it('is kept out of git, and never hides an edit or a new file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-index-e2e-'));
    const env = { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, CI: 'true' };
    const a = (await emu.api('POST', '/api/v1/agents', { name: 'Index desk', instructions: 'Answer politely.', engine: 'pipeline' })).body.data;
    await emu.api('POST', `/api/v1/agents/${a.id}/evals`, { name: 'Smoke', iterationsPerScenario: 1 });
    const pulled = await vap(['pull', '--agent', a.id], { env, cwd: dir });
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    const md = join(dir, 'agents', 'index-desk', 'agent.md');
    // A whole second, which utimes can put back exactly; then long enough for the files to count as still.
    const then = 1_700_000_000;
    utimesSync(md, then, then);
    await sleep(RACY_MS + 500);

    expect((await vap(['diff', '--exit-code'], { env, cwd: dir })).exitCode).toBe(0);
    const index = JSON.parse(readFileSync(join(dir, '.vap', 'cache', 'scan-index.json'), 'utf8'));
    expect(Object.keys(index.files)).toEqual(expect.arrayContaining(['agents/index-desk/agent.md', 'agents/index-desk/evals/smoke.yaml']));
    // (git is on every machine that runs these tests: CI clones the repository with it.)
    execFileSync('git', ['init', '-q'], { cwd: dir });
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: dir, encoding: 'utf8' });
    expect(status).toContain('.vap/state.default.json');
    expect(status).not.toContain('.vap/cache');
    expect((await vap(['diff', '--exit-code'], { env, cwd: dir })).exitCode).toBe(0);

    // The same size, the modification time put back: only the change time moved.
    writeFileSync(md, readFileSync(md, 'utf8').replace('Answer politely.', 'Answer POLITELY.'));
    utimesSync(md, then, then);
    const changes = async () => {
      const r = await vap(['diff', '--json'], { env, cwd: dir });
      return (JSON.parse(r.stdout).resources as Array<{ kind: string; key: string; action: string }>).filter((x) => x.action !== 'unchanged').map((x) => `${x.kind} ${x.key} ${x.action}`).sort();
    };
    expect(await changes()).toEqual(['agent index-desk update']);

    writeFileSync(join(dir, 'agents', 'index-desk', 'evals', 'extra.yaml'), 'name: Extra\niterations: 1\nstatus: draft\ncriteria:\n  - key: tone\n    name: Tone\n    weight: 1\n');
    expect(await changes()).toEqual(['agent index-desk update', 'suite index-desk/extra create']);
    const pushed = await vap(['push', '--yes'], { env, cwd: dir });
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    expect((await vap(['diff', '--exit-code'], { env, cwd: dir })).exitCode).toBe(0);
    expect(existsSync(join(dir, '.vap', 'cache', '.gitignore'))).toBe(true);
  });
});
