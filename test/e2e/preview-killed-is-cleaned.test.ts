// A `vap preview` killed with SIGKILL mid-run leaves its preview agent and suite on the
// platform, recorded in the state: `vap preview --clean` removes them, and so does the next
// preview. The built binary runs as a child process against a real emulator.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, vap as runVap } from '../helpers/built.js';
import type { TestEmulator } from '../helpers/emulator.js';
import { testStateDir } from '../helpers/state-dir.js';
import { benign, seedAgent, STAGING, startTwoOrgs, twoOrgEnv, type Seeded } from '../helpers/two-orgs.js';

let emu: TestEmulator;
beforeAll(async () => {
  assertBuilt();
  emu = await startTwoOrgs();
});
afterAll(async () => {
  await emu?.close();
});

const get = async (path: string) => (await emu.api('GET', path, undefined, STAGING.apiKey)).body.data;

async function previewAgents(): Promise<Array<{ id: string; name: string }>> {
  const agents = (await get('/api/v1/agents?limit=100')).agents as Array<{ id: string; name: string; tags?: string[] }>;
  return agents.filter((a) => a.tags?.includes('vap-preview') || a.name.includes(' · preview '));
}

let n = 0;
/** A project with one live agent (gating suite, completed run) pulled, its instructions edited. */
async function project(): Promise<{ dir: string; live: Seeded; vap: (args: string[]) => ReturnType<typeof runVap> }> {
  const dir = mkdtempSync(join(tmpdir(), 'vap-preview-kill-'));
  const env = twoOrgEnv(emu.url, join(dir, '.config'));
  const vap = (args: string[]) => runVap(['--profile', 'staging', ...args], { cwd: dir, env });
  const live = await seedAgent(emu, STAGING, { name: `Kill Desk ${++n}`, tools: ['Calendar booking'], suite: { name: 'Booking', iterations: 1 } });
  expect((await vap(['pull', '--agent', live.agentId])).exitCode).toBe(0);
  const md = join(dir, 'agents', `kill-desk-${n}`, 'agent.md');
  writeFileSync(md, benign(readFileSync(md, 'utf8')));
  return { dir, live, vap };
}

/** Starts a preview whose run is held, and SIGKILLs it once the emulator has its preview agent (and, with `atRun`, the run started). */
async function killMidRun(dir: string, atRun: boolean): Promise<void> {
  await emu.control('POST', '/evals/next-run', { outcome: 'hold' });
  await emu.clearRequests();
  const child = execa('node', [BIN, '--profile', 'staging', 'preview', '--label', 'killed'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NO_COLOR: '1',
      VAP_STATE_DIR: testStateDir(),
      ...twoOrgEnv(emu.url, join(dir, '.config')),
    },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  try {
    for (let i = 0; i < 1000; i++) {
      const ready = atRun ? (await emu.requests()).some((q) => q.method === 'POST' && /\/runs$/.test(q.path)) : (await previewAgents()).length > 0;
      if (ready) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(await previewAgents()).toHaveLength(1);
    child.kill('SIGKILL');
    const r = await child;
    expect(r.signal).toBe('SIGKILL');
  } finally {
    await emu.control('DELETE', '/evals/next-run');
  }
  // Left behind, and recorded: the agent (found by its name when its id was never written).
  expect(await previewAgents()).toHaveLength(1);
  expect(JSON.parse(readFileSync(join(dir, '.vap', 'state.staging.json'), 'utf8')).previews).toBeDefined();
}

async function liveState(live: Seeded) {
  return { versions: await get(`/api/v1/agents/${live.agentId}/versions?limit=200`), suites: await get(`/api/v1/agents/${live.agentId}/evals`) };
}

describe('a killed vap preview', () => {
  for (const atRun of [false, true]) {
    const when = atRun ? 'while its run is held' : 'as soon as its preview agent exists';
    it(`killed ${when}: \`vap preview --clean\` removes what it left`, { timeout: 60_000 }, async () => {
      const { dir, live, vap } = await project();
      const before = await liveState(live);
      await killMidRun(dir, atRun);
      const c = await vap(['preview', '--clean']);
      expect(c.exitCode, c.stderr).toBe(0);
      expect(c.stderr).toContain('Removed 1 preview agent an earlier preview left');
      expect(c.stderr).toContain('No preview is left in profile "staging"');
      expect(await previewAgents()).toEqual([]);
      expect(JSON.parse(readFileSync(join(dir, '.vap', 'state.staging.json'), 'utf8')).previews).toBeUndefined();
      expect(await liveState(live)).toEqual(before);
    });
  }

  it('killed mid-run: the next preview removes what it left, then runs its own and removes that too', { timeout: 60_000 }, async () => {
    const { dir, live, vap } = await project();
    const before = await liveState(live);
    await killMidRun(dir, true);
    const r = await vap(['preview', '--label', 'again', '--allow-failed-iterations', '3']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('Removed 1 preview agent an earlier preview left');
    expect(r.stderr).toContain('preview "again" passed');
    expect(r.stderr).toContain('Removed the preview: 1 agent, 1 suite');
    expect(await previewAgents()).toEqual([]);
    const state = JSON.parse(readFileSync(join(dir, '.vap', 'state.staging.json'), 'utf8'));
    expect(state.previews).toBeUndefined();
    expect(state.passed[`kill-desk-${n}`]).toMatchObject({ via: 'preview' });
    expect(await liveState(live)).toEqual(before);
  });
});
