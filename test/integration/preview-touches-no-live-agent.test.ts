// `vap preview`: the branch's files evaluated on preview copies of the changed agents,
// against the live agents' runs; no live agent is touched, and what it made is removed.
// In-process against a real emulator (the SIGKILL case is in test/e2e/).
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { benign, degrade, seedAgent, STAGING, twoOrgEnv, type Seeded, useTwoOrgProject } from '../helpers/two-orgs.js';

const t = useTwoOrgProject('vap-preview-');
let n = 0;

function vap(args: string[]) {
  return t.vap(['--profile', 'staging', ...args]);
}

const get = async (path: string) => (await t.emu.api('GET', path, undefined, STAGING.apiKey)).body.data;

/** A live agent with a tool, a voice, a gating suite (4 iterations of 3 scenarios) and a completed run, pulled. */
async function liveAgent(): Promise<Seeded & { slug: string }> {
  const s = await seedAgent(t.emu, STAGING, {
    name: `Front Desk ${++n}`,
    tools: ['Calendar booking'],
    voice: { name: 'Marcus', language: 'en-US' },
    suite: { name: 'Booking', iterations: 4 },
  });
  const r = await vap(['pull', '--agent', s.agentId]);
  expect(r.code, r.stderr).toBe(0);
  return { ...s, slug: `front-desk-${n}` };
}

const md = (slug: string) => join(t.dir, 'agents', slug, 'agent.md');
const edit = (slug: string, f: (s: string) => string) => writeFileSync(md(slug), f(readFileSync(md(slug), 'utf8')));
const state = () => JSON.parse(readFileSync(join(t.dir, '.vap', 'state.staging.json'), 'utf8'));

/** Everything of a live agent a preview must not change: its versions, config, tools, suites, scenarios and runs. */
async function liveSnapshot(s: Seeded) {
  const suites = (await get(`/api/v1/agents/${s.agentId}/evals`)).evals;
  return {
    versions: await get(`/api/v1/agents/${s.agentId}/versions?limit=200`),
    agent: await get(`/api/v1/agents/${s.agentId}`),
    tools: await get(`/api/v1/agents/${s.agentId}/tools`),
    suites,
    scenarios: await Promise.all(suites.map((x: { id: string }) => get(`/api/v1/agents/${s.agentId}/evals/${x.id}/scenarios`))),
    runs: await Promise.all(suites.map((x: { id: string }) => get(`/api/v1/agents/${s.agentId}/evals/${x.id}/runs`))),
  };
}

async function previewAgentsLeft(): Promise<Array<{ id: string; name: string }>> {
  const agents = (await get('/api/v1/agents?limit=100')).agents as Array<{ id: string; name: string; tags?: string[] }>;
  return agents.filter((a) => a.tags?.includes('vap-preview') || a.name.includes(' · preview '));
}

describe('vap preview', () => {
  it('a passing preview leaves the live agent, its versions and suites as they were, removes what it made, and records the pass', async () => {
    const live = await liveAgent();
    edit(live.slug, benign);
    const before = await liveSnapshot(live);
    await t.emu.clearRequests();
    const r = await vap(['preview', '--label', 'pr-7', '--baseline', 'live', '--fail-on-regression', '--allow-failed-iterations', '12']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Preview "pr-7" of 1 agent (${live.slug}): 1 suite, 12 calls to place (scenarios × iterations)`);
    expect(r.stderr).toMatch(new RegExp(`Made Front Desk ${n} · preview pr-7 \\(ag_\\w+\\) with 1 suite`));
    expect(r.stdout).toMatch(new RegExp(`Against run #1 \\(${live.runId}, agent version \\d+\\)`));
    expect(r.stderr).toContain(`preview "pr-7" passed: ${live.slug} recorded as passed in profile "staging"; no live agent was changed`);
    expect(r.stderr).toContain('Removed the preview: 1 agent, 1 suite');

    // Nothing of the live agent was written to: no request names it but reads.
    const writes = (await t.emu.requests()).filter((q) => q.method !== 'GET');
    expect(writes.filter((q) => q.path.includes(live.agentId))).toEqual([]);
    expect(await liveSnapshot(live)).toEqual(before);
    // The preview agent existed with the file's instructions, voice and tools, and is gone.
    const made = writes.find((q) => q.method === 'POST' && q.path === '/api/v1/agents');
    expect(made).toBeDefined();
    expect(await previewAgentsLeft()).toEqual([]);
    const s = state();
    expect(s.previews).toBeUndefined();
    expect(s.passed[live.slug]).toMatchObject({ via: 'preview', runs: [expect.stringMatching(/^run_/)] });
    expect(s.passed[live.slug].platform).toBeUndefined();
    // The diff is unchanged: the edit is still to be pushed.
    expect((await vap(['diff', '--exit-code'])).code).toBe(3);
  });

  it('the preview copies the voice, tools and suite of the file, tagged vap-preview (--keep keeps them; --clean removes them)', async () => {
    const live = await liveAgent();
    edit(live.slug, benign);
    const r = await vap(['preview', '--label', 'keep-me', '--keep', '--allow-failed-iterations', '12']);
    expect(r.code, r.stderr).toBe(0);
    const left = await previewAgentsLeft();
    expect(left.map((a) => a.name)).toEqual([`Front Desk ${n} · preview keep-me`]);
    const copy = await get(`/api/v1/agents/${left[0]!.id}`);
    const original = await get(`/api/v1/agents/${live.agentId}`);
    expect(copy.tags).toContain('vap-preview');
    expect(copy.instructions).toBe(benign(original.instructions));
    expect(copy.voice).toMatchObject({ name: 'Marcus', language: 'en-US' });
    expect(copy.engine).toBe(original.engine);
    expect((await get(`/api/v1/agents/${left[0]!.id}/tools`)).tools.map((t: { name: string }) => t.name)).toEqual(['Calendar booking']);
    const suites = (await get(`/api/v1/agents/${left[0]!.id}/evals`)).evals;
    expect(suites.map((x: { name: string; status: string; iterationsPerScenario: number }) => [x.name, x.status, x.iterationsPerScenario])).toEqual([
      ['Booking', 'ready', 4],
    ]);
    expect(state().previews[live.slug]).toMatchObject({ label: 'keep-me', agentId: left[0]!.id });

    const c = await vap(['preview', '--clean']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stderr).toContain('Removed 1 preview agent an earlier preview left');
    expect(await previewAgentsLeft()).toEqual([]);
    expect(state().previews).toBeUndefined();
  });

  it('against the live agent, a degraded instruction is a regression: exit 3, "regressed", no pass recorded, the previews removed', async () => {
    const live = await liveAgent();
    edit(live.slug, degrade);
    const before = await liveSnapshot(live);
    const report = join(t.dir, 'evals.md');
    const r = await vap([
      'preview',
      '--label',
      'worse',
      '--baseline',
      'live',
      '--fail-on-regression',
      '--allow-failed-iterations',
      '12',
      '--report',
      `markdown=${report}`,
    ]);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(3);
    expect(r.stdout).toMatch(/instruction_adherence .*▼ regressed/);
    expect(r.stdout).toMatch(/✗ FAILED --fail-on-regression: a significant regression against run #1 \(family-wise error 1%\)/);
    expect(r.stderr).toContain('preview "worse" failed a gate; no live agent was changed');
    expect(readFileSync(report, 'utf8')).toMatch(/▼ regressed at family-wise error 1%/);
    expect(state().passed?.[live.slug]).toBeUndefined();
    expect(state().previews).toBeUndefined();
    expect(await previewAgentsLeft()).toEqual([]);
    expect(await liveSnapshot(live)).toEqual(before);
  });

  it('--timeout: exit 124, the previews removed, the live agent untouched', async () => {
    const live = await liveAgent();
    edit(live.slug, benign);
    const before = await liveSnapshot(live);
    await t.emu.control('POST', '/evals/next-run', { outcome: 'hold' });
    try {
      const r = await vap(['preview', '--label', 'slow', '--timeout', '1s']);
      expect(r.code, r.stderr).toBe(124);
      expect(r.stderr).toContain('Removed the preview: 1 agent, 1 suite');
    } finally {
      await t.emu.control('DELETE', '/evals/next-run');
    }
    expect(await previewAgentsLeft()).toEqual([]);
    expect(state().previews).toBeUndefined();
    expect(state().passed?.[live.slug]).toBeUndefined();
    expect(await liveSnapshot(live)).toEqual(before);
  });

  it('Ctrl-C while the run goes on: exit 130, and the previews are removed all the same', async () => {
    const live = await liveAgent();
    edit(live.slug, benign);
    await t.emu.control('POST', '/evals/next-run', { outcome: 'hold' });
    await t.emu.clearRequests();
    const ctrlC = new AbortController();
    try {
      const running = runCli(['--profile', 'staging', 'preview', '--label', 'interrupted', '--dir', t.dir], {
        env: twoOrgEnv(t.emu.url, join(t.dir, '.config')),
        signal: ctrlC.signal,
      });
      for (let i = 0; i < 300 && !(await t.emu.requests()).some((q) => q.method === 'POST' && q.path.endsWith('/runs')); i++)
        await new Promise((res) => setTimeout(res, 20));
      await new Promise((res) => setTimeout(res, 100));
      ctrlC.abort();
      const r = await running;
      expect(r.code, r.stderr).toBe(130);
      expect(r.stderr).toContain('Removed the preview: 1 agent, 1 suite');
    } finally {
      await t.emu.control('DELETE', '/evals/next-run');
    }
    expect(await previewAgentsLeft()).toEqual([]);
    expect(state().previews).toBeUndefined();
  });

  it('a preview killed before the platform answered its create is found by its name and tag; a namesake without the tag is left alone', async () => {
    const live = await liveAgent();
    const name = `Front Desk ${n} · preview lost`;
    // What a kill leaves when it lands between the create and the write of its answer: the record has no id.
    const made = (await t.emu.api('POST', '/api/v1/agents', { name, instructions: 'x', engine: 'realtime', tags: ['vap-preview'] }, STAGING.apiKey)).body.data;
    const namesake = (await t.emu.api('POST', '/api/v1/agents', { name, instructions: 'someone else', engine: 'realtime' }, STAGING.apiKey)).body.data;
    const file = join(t.dir, '.vap', 'state.staging.json');
    const s = JSON.parse(readFileSync(file, 'utf8'));
    s.previews = { [live.slug]: { label: 'lost', name, suites: [{ key: 'booking', name: 'Booking' }], at: new Date().toISOString() } };
    writeFileSync(file, JSON.stringify(s, null, 2));

    const r = await vap(['preview', '--clean']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Removed 1 preview agent an earlier preview left');
    expect((await t.emu.api('GET', `/api/v1/agents/${made.id}`, undefined, STAGING.apiKey)).status).toBe(404);
    expect((await t.emu.api('GET', `/api/v1/agents/${namesake.id}`, undefined, STAGING.apiKey)).status).toBe(200);
    expect(state().previews).toBeUndefined();
    await t.emu.api('DELETE', `/api/v1/agents/${namesake.id}`, undefined, STAGING.apiKey);
  });

  // The Markdown report's hidden marker names the live suite, not the preview's fresh copy,
  // so the Action (`vap github comment`) edits one pull-request comment from run to run.
  it("two previews of the same suite write the pull-request comment with the same marker (the live suite's)", async () => {
    const live = await liveAgent();
    edit(live.slug, benign);
    const first = join(t.dir, 'first.md');
    const second = join(t.dir, 'second.md');
    expect((await vap(['preview', '--allow-failed-iterations', '12', '--report', `markdown=${first}`])).code).toBe(0);
    expect((await vap(['preview', '--allow-failed-iterations', '12', '--report', `markdown=${second}`])).code).toBe(0);
    const markerOf = (f: string) => readFileSync(f, 'utf8').split('\n')[0];
    expect(markerOf(first)).toMatch(/^<!-- vap-evals suite=\S+ -->$/);
    expect(markerOf(second)).toBe(markerOf(first));
    expect(markerOf(first)).toBe(`<!-- vap-evals suite=${live.suiteId} -->`);
  });

  // A preview's copies (tagged vap-preview) are not agents of the project: a pull made while
  // a preview runs (another pull request's, in CI) or after --keep leaves them out.
  it('vap pull --all leaves out the preview agents of a preview that is running or kept', async () => {
    const live = await liveAgent();
    edit(live.slug, benign);
    expect((await vap(['preview', '--label', 'kept', '--keep', '--allow-failed-iterations', '12'])).code).toBe(0);
    const other = mkdtempSync(join(tmpdir(), 'vap-preview-other-'));
    try {
      const r = await runCli(['--profile', 'staging', 'pull', '--all', '--dir', other], { env: twoOrgEnv(t.emu.url, join(other, '.config')) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/preview-kept/);
    } finally {
      expect((await vap(['preview', '--clean'])).code).toBe(0);
    }
  });

  it('nothing to preview when no agent with a gating suite differs; a changed agent without one is named', async () => {
    const live = await liveAgent();
    const r = await vap(['preview']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Nothing to preview: no agent with a gating suite differs from profile "staging"');
    writeFileSync(
      join(t.dir, 'agents', live.slug, 'evals', 'booking.yaml'),
      readFileSync(join(t.dir, 'agents', live.slug, 'evals', 'booking.yaml'), 'utf8').replace('gate: true', 'gate: false'),
    );
    edit(live.slug, benign);
    const u = await vap(['preview']);
    expect(u.code, u.stderr).toBe(0);
    expect(u.stderr).toContain(`agent ${live.slug} differs from the platform but has no gating suite (gate: true): not previewed`);
    expect(existsSync(join(t.dir, '.vap', 'state.staging.json'))).toBe(true);
  });
});
