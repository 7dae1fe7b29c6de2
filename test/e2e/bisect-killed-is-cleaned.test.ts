// A `vap bisect` SIGKILLed mid-search leaves its preview copy on the platform, recorded in the
// project's state: `vap bisect --clean`, or the next search, removes exactly the recorded
// copies tagged vap-preview, and nothing else. The built binary runs as a child process
// against a real emulator, over a real git repository.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, vap } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { twelveCommits } from '../helpers/git-history.js';
import { testStateDir } from '../helpers/state-dir.js';

beforeAll(() => assertBuilt());
const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

const envOf = (emu: TestEmulator) => ({ VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, VAP_WAIT_POLL: '1' });

async function agents(emu: TestEmulator): Promise<Array<{ id: string; name: string; tagged: boolean }>> {
  const list = (await emu.api('GET', '/api/v1/agents?pageSize=200')).body.data.agents as Array<{ id: string; name: string; tags?: string[] }>;
  return list.map((a) => ({ id: a.id, name: a.name, tagged: Boolean(a.tags?.includes('vap-preview')) }));
}

const previews = (dir: string) =>
  JSON.parse(readFileSync(join(dir, '.vap', 'state.default.json'), 'utf8')).previews as Record<string, { name: string }> | undefined;

/** A project, two agents that are not its copies, and a search SIGKILLed while the run on its first copy is held. */
async function killed(emu: TestEmulator): Promise<{ dir: string; shas: string[]; twin: string; other: string }> {
  const { dir, shas } = twelveCommits();
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const make = async (name: string, tags: string[]) =>
    (await emu.api('POST', '/api/v1/agents', { name, engine: 'realtime', instructions: 'Not a copy.', tags })).body.data.id as string;
  // The name the first copy gets, on a live agent without the tag; and a tagged preview no bisect recorded.
  const twin = await make(`Front desk · preview bisect-${shas[0]}`, []);
  const other = await make('Other desk · preview pr-9', ['vap-preview']);
  await emu.control('POST', '/evals/next-run', { outcome: 'hold' });
  await emu.clearRequests();
  const child = execa('node', [BIN, 'bisect', 'front-desk', '--good', shas[0]!, '--bad', 'HEAD', '--max-calls', '900', '--dir', dir], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', VAP_STATE_DIR: testStateDir(), ...envOf(emu) },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  try {
    for (let i = 0; i < 2000; i++) {
      if ((await emu.requests()).some((q) => q.method === 'POST' && /\/runs$/.test(q.path))) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
  } finally {
    await emu.control('DELETE', '/evals/next-run');
  }
  const tagged = (await agents(emu)).filter((a) => a.tagged).map((a) => a.name);
  expect(tagged.sort()).toEqual([`Front desk · preview bisect-${shas[0]}`, 'Other desk · preview pr-9']);
  expect(Object.keys(previews(dir) ?? {})).toEqual([`front-desk.bisect-${shas[0]}`]);
  return { dir, shas, twin, other };
}

describe('a killed vap bisect', () => {
  it('`vap bisect --clean` removes the recorded copy tagged vap-preview, and leaves a same-named agent without the tag and an unrecorded preview', {
    timeout: 60_000,
  }, async () => {
    const emu = await startTestEmulator({ seed: 8, timeScale: 20000 });
    cleanup.push(() => emu.close());
    const { dir, twin, other } = await killed(emu);
    const r = await vap(['bisect', '--clean', '--dir', dir], { env: envOf(emu) });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('Removed 1 preview copy an earlier bisect left');
    const left = await agents(emu);
    expect(left.map((a) => a.id).sort()).toEqual([twin, other].sort());
    expect(previews(dir)).toBeUndefined();
    const again = await vap(['bisect', '--clean', '--dir', dir], { env: envOf(emu) });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toContain('No bisect copy is left');
  });

  it('the next search removes what the killed one left first, then runs and removes its own', { timeout: 120_000 }, async () => {
    const emu = await startTestEmulator({ seed: 9, timeScale: 20000 });
    cleanup.push(() => emu.close());
    const { dir, shas, twin, other } = await killed(emu);
    const r = await vap(['bisect', 'front-desk', '--good', shas[0]!, '--bad', 'HEAD', '--max-calls', '900', '--min-effect', '0.1', '--dir', dir, '--json'], {
      env: envOf(emu),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr.indexOf('Removed 1 preview copy an earlier bisect left')).toBeLessThan(r.stderr.indexOf('Plan:'));
    expect(JSON.parse(r.stdout).result).toBe('no regression');
    expect((await agents(emu)).map((a) => a.id).sort()).toEqual([twin, other].sort());
    expect(previews(dir)).toBeUndefined();
  });
});
