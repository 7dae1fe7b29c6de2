import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

// A `--report` path (JUnit, JSON, Markdown, HTML) whose folder cannot be written is refused
// before anything is started: exit 2, one line naming the report and the folder, and the
// emulator sees no run started (nor any request at all).

let emu: TestEmulator;
let dir: string;
let agentId: string;
let evalId: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-report-targets-'));
  agentId = (await emu.api('POST', '/api/v1/agents', { name: 'Reception', engine: 'realtime', instructions: 'Greet callers.' })).body.data.id;
  evalId = (await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: 'Targets', iterationsPerScenario: 1 })).body.data.id;
  await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, { name: 'Book', persona: 'A caller', goal: 'Book', category: 'happy_path' });
  writeFileSync(join(dir, 'a-file'), 'not a folder');
});
afterAll(async () => {
  await emu?.close();
  chmodSync(join(dir, 'locked'), 0o755);
  rmSync(dir, { recursive: true, force: true });
});

const vap = (argv: string[]) => runCli(argv, { env: cliEnv(emu.url, ORG_A.apiKey) });

describe('--report paths are checked before a run is started', () => {
  for (const kind of ['junit', 'json', 'markdown', 'html']) {
    it(`${kind}: a folder that is a file is refused (exit 2, one line, no request)`, async () => {
      await emu.clearRequests();
      const target = join(dir, 'a-file', 'reports', `out.${kind}`);
      const r = await vap([
        'evals',
        'run',
        evalId,
        '--agent',
        agentId,
        '--wait',
        '--report',
        `junit=${join(dir, 'ok', 'fine.xml')}`,
        '--report',
        `${kind === 'junit' ? 'junit' : kind}=${target}`,
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`error: cannot write --report ${kind}=${target}: ${join(dir, 'a-file')} is not a folder; pass a path in a folder you can write\n`);
      expect(r.stdout).toBe('');
      expect(await emu.requests()).toEqual([]);
    });
  }

  it('a folder that cannot be written is refused (a read-only folder; root writes anywhere, so only for other users)', async () => {
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o555);
    await emu.clearRequests();
    const target = join(locked, 'sub', 'evals.md');
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--report', `markdown=${target}`]);
    if (process.getuid?.() === 0) {
      // root may write into a 0555 folder: the probe succeeds, and so would the report.
      expect(r.code).toBe(0);
      return;
    }
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: cannot write --report markdown=${target}: the folder ${locked} is not writable; pass a path in a folder you can write\n`);
    expect(await emu.requests()).toEqual([]);
  });

  it('the same file for two reports, and a path that is a folder, are refused too', async () => {
    await emu.clearRequests();
    const same = join(dir, 'same.out');
    const twice = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--report', `json=${same}`, '--report', `markdown=${same}`]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toBe(`error: --report markdown=${same} and --report json=${same} would write the same file; give each report a path of its own\n`);
    const folder = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--report', `html=${dir}`]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe(`error: cannot write --report html=${dir}: it is a folder; pass a path in a folder you can write\n`);
    expect(await emu.requests()).toEqual([]);
  });

  it('runs get and runs diff check their reports before any request too', async () => {
    await emu.clearRequests();
    const target = join(dir, 'a-file', 'x.xml');
    const get = await vap(['evals', 'runs', 'get', 'run_x', '--eval', evalId, '--agent', agentId, '--wait', '--report', `junit=${target}`]);
    expect(get.code).toBe(2);
    expect(get.stderr).toContain(`cannot write --report junit=${target}`);
    const diff = await vap(['evals', 'runs', 'diff', 'run_a', 'run_b', '--eval', evalId, '--agent', agentId, '--report', `html=${target}`]);
    expect(diff.code).toBe(2);
    expect(await emu.requests()).toEqual([]);
  });

  it('missing folders that can be created are fine: the report is written there', async () => {
    const target = join(dir, 'new', 'deep', 'evals.md');
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '1', '--report', `markdown=${target}`, '-q']);
    expect(r.code).toBe(0);
    expect((await import('node:fs')).readFileSync(target, 'utf8')).toMatch(/^<!-- vap-evals suite=ev_\w+ -->\n/);
  });
});
