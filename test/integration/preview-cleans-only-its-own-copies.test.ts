// The state's `previews` section comes from a file a pull request can edit. Its clean-up
// (at the start of every `vap preview`, and `--clean`) deletes only what the platform shows
// to be a preview copy: the vap-preview tag and the recorded preview name, suites under it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seedAgent, STAGING, useTwoOrgProject, writes } from '../helpers/two-orgs.js';

const t = useTwoOrgProject('vap-preview-forged-');
let n = 0;

const staging = (args: string[]) => t.vap(['--profile', 'staging', ...args]);
const stateFile = () => join(t.dir, '.vap', 'state.staging.json');
const readState = () => JSON.parse(readFileSync(stateFile(), 'utf8'));
const writeState = (s: unknown) => writeFileSync(stateFile(), `${JSON.stringify(s, null, 2)}\n`);
const status = async (path: string) => (await t.emu.api('GET', path, undefined, STAGING.apiKey)).status;

async function liveAgent() {
  const s = await seedAgent(t.emu, STAGING, { name: `Front Desk ${++n}`, tools: ['Calendar booking'], suite: { name: 'Booking', iterations: 1 } });
  expect((await staging(['pull', '--agent', s.agentId])).code).toBe(0);
  return { ...s, slug: `front-desk-${n}` };
}

describe('a preview cleans up only its own copies', () => {
  for (const [what, forge] of [
    ['names a live agent and its suite', (live: { name: string }) => ({ label: 'pr-1', name: `${live.name} · preview pr-1` })],
    ['names a live agent by its own name', (live: { name: string }) => ({ label: 'pr-1', name: live.name })],
  ] as const) {
    it(`a forged previews entry that ${what} deletes nothing, and is said with the entry to remove`, async () => {
      const live = await liveAgent();
      const st = readState();
      st.previews = {
        [live.slug]: { ...forge(live), agentId: live.agentId, suites: [{ key: 'booking', name: 'Booking', id: live.suiteId }], at: new Date().toISOString() },
      };
      writeState(st);
      await t.emu.clearRequests();
      const r = await staging(['preview', '--clean']);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`left agent ${live.agentId} that previews["${live.slug}"] of .vap/state.staging.json names`);
      expect(r.stderr).toContain('so it is not a preview copy; vap deletes only its own copies (remove that entry by hand)');
      expect(await writes(t.emu)).toEqual([]);
      expect(await status(`/api/v1/agents/${live.agentId}`)).toBe(200);
      expect(await status(`/api/v1/agents/${live.agentId}/evals/${live.suiteId}`)).toBe(200);
      // Left in the state, so that it is said again until a person removes it.
      expect(readState().previews[live.slug].agentId).toBe(live.agentId);
    });
  }

  it("a forged entry pointing at a real preview copy's agent but at a live suite deletes the copy and not the live suite", async () => {
    const live = await liveAgent();
    // A copy vap made (a kept preview), then an entry that adds the live suite to it.
    const kept = await staging(['preview', '--all', '--keep', '--label', 'pr-9', '--allow-failed-iterations', '10']);
    expect([0, 3]).toContain(kept.code);
    const st = readState();
    const rec = st.previews[live.slug];
    expect(rec.agentId).toBeDefined();
    rec.suites.push({ key: 'booking', name: 'Booking', id: live.suiteId });
    writeState(st);
    const r = await staging(['preview', '--clean']);
    expect(r.code, r.stderr).toBe(0);
    expect(await status(`/api/v1/agents/${rec.agentId}`)).toBe(404);
    expect(await status(`/api/v1/agents/${live.agentId}/evals/${live.suiteId}`)).toBe(200);
    expect(readState().previews ?? {}).toEqual({});
  });

  it('a live agent tagged vap-preview with the recorded name but not a preview name is left', async () => {
    const live = await liveAgent();
    await t.emu.api('PATCH', `/api/v1/agents/${live.agentId}`, { tags: ['vap-preview'] }, STAGING.apiKey);
    const st = readState();
    st.previews = { [live.slug]: { label: 'pr-2', name: live.name, agentId: live.agentId, suites: [], at: new Date().toISOString() } };
    writeState(st);
    const r = await staging(['preview', '--clean']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('is not a preview name');
    expect(await status(`/api/v1/agents/${live.agentId}`)).toBe(200);
  });
});
