// vap's own compile cache (bin/compile-cache.js), on a Node without module.enableCompileCache
// (Node 20 to 22.7): made on a first run, used on the next, a corrupt entry ignored and
// replaced, silent where it cannot be written, safe under concurrent runs, off under
// NODE_DISABLE_COMPILE_CACHE, and never changing what a command prints.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

const REPORT = fileURLToPath(new URL('../helpers/compile-cache-report.cjs', import.meta.url));

interface CacheReport {
  folder: string;
  files: { file: string; entry: string; found: boolean; rejected: boolean | undefined }[];
}

let emu: TestEmulator;
beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
  await emu.api('POST', '/api/v1/agents', { name: 'Front desk', instructions: 'Hi.', engine: 'realtime', variables: [] });
});
afterAll(async () => {
  await emu?.close();
});

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** Runs `vap agents list` against the emulator with the cache's report loaded; returns the output and what the cache did. */
async function agentsList(state: string, env: Record<string, string> = {}) {
  const trace = join(tmp('vap-cc-trace-'), 'report.json');
  const r = await execa('node', ['-r', REPORT, BIN, 'agents', 'list'], {
    reject: false,
    extendEnv: false,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: state,
      NO_COLOR: '1',
      VAP_STATE_DIR: state,
      VAP_CONFIG_DIR: tmp('vap-config-'),
      VAP_BASE_URL: emu.url,
      VAP_API_KEY: ORG_A.apiKey,
      VAP_TRACE_FILE: trace,
      ...env,
    },
  });
  return { code: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr), report: JSON.parse(readFileSync(trace, 'utf8')) as CacheReport | null };
}

/** The entry files of the cache's folder (temporary files excluded). */
const entries = (folder: string) => readdirSync(folder).filter((n) => !n.endsWith('.tmp'));

describe.skipIf('enableCompileCache' in nodeModule)('vap’s compile cache on a Node without one of its own', () => {
  it('is written by a first run and used, not rejected, by the next', async () => {
    const state = tmp('vap-state-');
    const first = await agentsList(state);
    expect(first.code).toBe(0);
    expect(first.report).not.toBeNull();
    expect(first.report!.folder.startsWith(join(state, 'compile-cache'))).toBe(true);
    expect(first.report!.files.length).toBeGreaterThan(0);
    expect(first.report!.files.every((f) => !f.found)).toBe(true);
    expect(entries(first.report!.folder).length).toBeGreaterThanOrEqual(first.report!.files.length);

    const second = await agentsList(state);
    expect(second.code).toBe(0);
    expect(second.report!.files.map((f) => f.file)).toEqual(first.report!.files.map((f) => f.file));
    expect(second.report!.files.every((f) => f.found && f.rejected === false)).toBe(true);
    expect(second.stdout).toBe(first.stdout);
  });

  it('ignores a corrupt or torn entry, runs as usual and replaces it', async () => {
    const state = tmp('vap-state-');
    const first = await agentsList(state);
    const folder = first.report!.folder;
    const [flipped, torn] = first.report!.files.map((f) => join(folder, f.entry));
    const bytes = readFileSync(flipped);
    bytes[bytes.length - 10] ^= 0xff; // one copy of V8's data no longer equals the other
    writeFileSync(flipped, bytes);
    writeFileSync(torn, readFileSync(torn).subarray(0, 40)); // a crash mid-write, by another writer

    const second = await agentsList(state);
    expect({ code: second.code, stdout: second.stdout, stderr: second.stderr }).toEqual({ code: 0, stdout: first.stdout, stderr: first.stderr });
    const damaged = second.report!.files.filter((f) => [flipped, torn].includes(join(folder, f.entry)));
    expect(damaged.map((f) => f.found)).toEqual([false, false]);

    const third = await agentsList(state);
    expect(third.report!.files.every((f) => f.found && f.rejected === false)).toBe(true);
  });

  it('never fails a command or prints when the state folder cannot be made', async () => {
    const file = join(tmp('vap-state-'), 'a-file');
    writeFileSync(file, '');
    const ok = await agentsList(tmp('vap-state-'));
    const r = await agentsList(join(file, 'state')); // a folder under a file: ENOTDIR, even for root
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: ok.stdout, stderr: '' });
  });

  it('is off under NODE_DISABLE_COMPILE_CACHE, with the same output', async () => {
    const state = tmp('vap-state-');
    const on = await agentsList(state);
    const warm = await agentsList(state);
    const off = await agentsList(tmp('vap-state-'), { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(off.report).toBeNull();
    expect(readdirSync(join(state))).toContain('compile-cache');
    for (const r of [on, warm])
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: off.code, stdout: off.stdout, stderr: off.stderr });
  });

  it('is safe under concurrent runs that share one state folder: every run succeeds, and no half-written entry is read', async () => {
    const state = tmp('vap-state-');
    const runs = await Promise.all(Array.from({ length: 6 }, () => agentsList(state)));
    for (const r of runs) expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: runs[0]!.stdout, stderr: '' });
    const folder = runs[0]!.report!.folder;
    expect(readdirSync(folder).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    const after = await Promise.all(Array.from({ length: 3 }, () => agentsList(state)));
    for (const r of after) expect(r.report!.files.every((f) => f.found && f.rejected === false)).toBe(true);
  });

  it('keeps apart code compiled after vap sets a V8 flag, so that V8 never rejects it', async () => {
    const state = tmp('vap-state-');
    await agentsList(state);
    const second = await agentsList(state);
    // agents list sets --liftoff-only before its request: the files loaded after it have entries of their own.
    expect(second.report!.files.some((f) => f.entry.includes('@'))).toBe(true);
    expect(second.report!.files.filter((f) => f.rejected)).toEqual([]);
  });
});
