// A vap killed in the middle of an atomic write leaves its temporary file
// (`.<name>.<pid>-<random>.tmp`) beside the target. The next command that writes in that
// folder removes it, once its writer is gone and it has been left alone for a few minutes;
// it never takes a live writer's file (its pid alive, or the file fresh), a link named like
// one (nor what the link points to), a folder, or a file of another name. `.vap/.gitignore`,
// which vap makes (or adds its one line to, keeping a user's own), keeps them out of
// `git add .vap`. The leftovers are planted as a kill leaves them: named with the pid of a
// process that has exited.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VAP_IGNORE_TEXT } from '../../src/ascode/paths.js';
import { STALE_TEMP_MS } from '../../src/write-atomic.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let sandbox: string;
let dir: string;
let outside: string;
/** The pid of a process that has exited: the writer of a leftover. */
let dead: number;

beforeAll(async () => {
  emu = await startTestEmulator({ allowLoopbackUrls: true, timeScale: 2000 });
  dead = spawnSync(process.execPath, ['-e', '']).pid!;
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(() => {
  sandbox = mkdtempSync(join(tmpdir(), 'vap-leftovers-'));
  dir = join(sandbox, 'project');
  outside = join(sandbox, 'outside');
  mkdirSync(dir);
  mkdirSync(outside);
});

function vap(args: string[]) {
  return runCli(['--profile', 'staging', ...args, '--dir', dir], { env: cliEnv(emu.url, ORG_A.apiKey) });
}

let seq = 0;
async function seedAgent(): Promise<string> {
  return (await emu.api('POST', '/api/v1/agents', { name: `Leftover desk ${++seq}`, instructions: 'Greet the caller.', engine: 'realtime', variables: [] }))
    .body.data.id as string;
}

/** Puts a file where a killed writer left it, modified `ageMs` ago. */
function plant(rel: string, ageMs = 2 * STALE_TEMP_MS, text = '{"format":1,"profile":"staging","agen'): string {
  const p = join(dir, rel);
  writeFileSync(p, text);
  const t = (Date.now() - ageMs) / 1000;
  utimesSync(p, t, t);
  return p;
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
const slugOf = () => readdirSync(join(dir, 'agents'))[0]!;
/** Changes an agent's instructions in its file, so that a push writes the state. */
function editAgent(): void {
  const md = join(dir, 'agents', slugOf(), 'agent.md');
  writeFileSync(md, `${readFileSync(md, 'utf8')}Edit ${++seq}.\n`);
}

describe('temporary files a killed vap left', () => {
  it('the next push removes them from .vap/, and keeps a live writer’s, links, folders and other names', async () => {
    await seedAgent();
    expect((await vap(['pull', '--all'])).code).toBe(0);
    const leftover = plant(`.vap/.state.staging.json.${dead}-0123456789ab0.tmp`);
    const older = plant('.vap/.state.staging.json.0123456789ab7.tmp'); // as versions before the pid named them
    const fresh = plant(`.vap/.state.staging.json.${dead}-0123456789ab1.tmp`, 1000);
    const live = plant(`.vap/.state.staging.json.${process.pid}-0123456789ab2.tmp`);
    const notOurs = [
      plant('.vap/.notes.tmp'),
      plant(`.vap/.state.staging.json.${dead}-0123456789ab5.tmp.bak`),
      plant(`.vap/state.staging.json.${dead}-0123456789ab6.tmp`),
    ];
    writeFileSync(join(outside, 'precious.json'), 'keep me\n');
    const link = join(dir, '.vap', `.state.staging.json.${dead}-0123456789ab3.tmp`);
    symlinkSync(join(outside, 'precious.json'), link);
    const old = (Date.now() - 2 * STALE_TEMP_MS) / 1000;
    lutimesSync(link, old, old);
    const folder = join(dir, '.vap', `.state.staging.json.${dead}-0123456789ab4.tmp`);
    mkdirSync(folder);
    utimesSync(folder, old, old);

    editAgent();
    const r = await vap(['push', '--yes']);
    expect(r.code, r.stderr).toBe(0);

    expect(existsSync(leftover)).toBe(false);
    expect(existsSync(older)).toBe(false);
    for (const kept of [fresh, live, ...notOurs]) expect(existsSync(kept), kept).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(outside, 'precious.json'), 'utf8')).toBe('keep me\n');
    expect(lstatSync(folder).isDirectory()).toBe(true);
    // The state the push wrote is whole.
    expect(JSON.parse(readFileSync(join(dir, '.vap', 'state.staging.json'), 'utf8')).profile).toBe('staging');

    // What is left of vap's temporary files (dot-named, .tmp) stays out of git.
    git('init', '-q');
    git('add', '.vap');
    const status = git('status', '--porcelain', '--untracked-files=all', '.vap');
    expect(status).toContain('A  .vap/.gitignore');
    expect(status).toContain('A  .vap/state.staging.json');
    expect(status.split('\n').filter((l) => /\.vap\/\.[^/]+\.tmp$/.test(l))).toEqual([]);
  });

  it('a pull removes a killed pull’s file beside agent.md when it writes there, and one in a removed agent’s folder does not keep the folder', async () => {
    const id = await seedAgent();
    const other = await seedAgent();
    expect((await vap(['pull', '--all'])).code).toBe(0);
    const [mine, gone] = [0, 1].map((i) => {
      const state = JSON.parse(readFileSync(join(dir, '.vap', 'state.staging.json'), 'utf8')) as { agents: Record<string, { id: string }> };
      return Object.entries(state.agents).find(([, e]) => e.id === (i === 0 ? id : other))![0];
    });
    const beside = plant(`agents/${mine}/.agent.md.${dead}-0123456789ab0.tmp`, 2 * STALE_TEMP_MS, '---\nname: Le');
    const inGone = plant(`agents/${gone}/.agent.md.${dead}-0123456789ab1.tmp`, 2 * STALE_TEMP_MS, '---\nname: Le');
    const freshInMine = plant(`agents/${mine}/.agent.md.${dead}-0123456789ab2.tmp`, 1000);
    await emu.api('PATCH', `/api/v1/agents/${id}`, { instructions: 'Greet the caller warmly.' });
    await emu.api('DELETE', `/api/v1/agents/${other}`);

    const r = await vap(['pull']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'agents', mine, 'agent.md'), 'utf8')).toContain('Greet the caller warmly.');
    expect(existsSync(beside)).toBe(false);
    expect(existsSync(freshInMine)).toBe(true);
    expect(existsSync(inGone)).toBe(false);
    expect(existsSync(join(dir, 'agents', gone))).toBe(false);
    expect(r.stderr).not.toContain('kept');
  });
});

describe('.vap/.gitignore', () => {
  it('is made with the first state, holding the one pattern', async () => {
    await seedAgent();
    expect((await vap(['pull', '--all'])).code).toBe(0);
    expect(readFileSync(join(dir, '.vap', '.gitignore'), 'utf8')).toBe(VAP_IGNORE_TEXT);
    expect(VAP_IGNORE_TEXT.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual(['.*.tmp']);
  });

  it('a user’s own is kept: the line added at its end once, in its line endings; one that has it is not touched', async () => {
    await seedAgent();
    expect((await vap(['pull', '--all'])).code).toBe(0);
    const ignore = join(dir, '.vap', '.gitignore');
    writeFileSync(ignore, '# mine\r\n*.bak');
    editAgent();
    expect((await vap(['push', '--yes'])).code).toBe(0);
    const added = readFileSync(ignore, 'utf8');
    expect(added).toBe(`# mine\r\n*.bak\r\n${VAP_IGNORE_TEXT.replaceAll('\n', '\r\n')}`);
    editAgent();
    expect((await vap(['push', '--yes'])).code).toBe(0);
    expect(readFileSync(ignore, 'utf8')).toBe(added);

    writeFileSync(ignore, '*\n  .*.tmp  \n');
    const t = (Date.now() - 60_000) / 1000;
    utimesSync(ignore, t, t);
    const before = lstatSync(ignore);
    editAgent();
    expect((await vap(['push', '--yes'])).code).toBe(0);
    const after = lstatSync(ignore);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  });

  it('a link in its place is neither followed nor replaced, and the push goes on', async () => {
    await seedAgent();
    expect((await vap(['pull', '--all'])).code).toBe(0);
    const ignore = join(dir, '.vap', '.gitignore');
    unlinkSync(ignore);
    writeFileSync(join(outside, 'gitignore'), 'theirs\n');
    symlinkSync(join(outside, 'gitignore'), ignore);
    editAgent();
    const r = await vap(['push', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(ignore).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(outside, 'gitignore'), 'utf8')).toBe('theirs\n');
  });
});
