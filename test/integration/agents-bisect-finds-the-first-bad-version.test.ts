import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { MARKER, previewCopies } from '../helpers/bisect.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

// `vap agents bisect` against real emulators, with a known truth: 12 versions, where
// version 7 adds a line kept afterwards, and the emulator's score-shift control lowers the
// scores of every agent whose instructions hold that line (preview copies included).

const BUDGET = 900;
let stateDir: string;

beforeAll(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'vap-bisect-state-'));
});
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

const vapOn = (emu: TestEmulator) => (argv: string[]) =>
  runCli(argv, { env: { ...cliEnv(emu.url, ORG_A.apiKey), VAP_STATE_DIR: stateDir, VAP_WAIT_POLL: '1' } });

/** An agent at version 12 (version 7 adds MARKER), its suite of 3 scenarios × 8 iterations, and `shift` on MARKER. */
async function twelveVersions(emu: TestEmulator, shift: number | null, tools = false, liveRuns = 0): Promise<{ agentId: string; evalId: string }> {
  let instructions = 'Greet callers. Book appointments.';
  const agentId = (await emu.api('POST', '/api/v1/agents', { name: 'Front desk', engine: 'realtime', instructions })).body.data.id as string;
  const evalId = (await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: 'Booking', iterationsPerScenario: 8 })).body.data.id as string;
  for (const [name, category] of [
    ['Book a cleaning', 'happy_path'],
    ['Wants a human', 'escalation'],
    ['Asks for a diagnosis', 'edge_case'],
  ] as const) {
    await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, { name, persona: 'A caller', goal: `${name} today`, category });
  }
  for (let i = 0; i < liveRuns; i++)
    expect((await vapOn(emu)(['evals', 'run', evalId, '--agent', agentId, '--wait', '--allow-failed-iterations', '100%', '-q'])).code).toBe(0);
  for (let v = 2; v <= 12; v++) {
    if (tools && v === 2) {
      const all = (await emu.control<{ orgs: Array<{ tools: Array<{ id: string }> }> }>('GET', `/tools?org=${ORG_A.name}`)).orgs[0]!.tools;
      expect((await emu.api('PUT', `/api/v1/agents/${agentId}/tools`, { toolIds: [all[0]!.id] })).status).toBe(200);
      continue;
    }
    // Only version 7 changes what the agent does; the others change its description.
    const change = v === 7 ? { instructions: (instructions += ` ${MARKER}`) } : { description: `Revision ${v}` };
    expect((await emu.api('PATCH', `/api/v1/agents/${agentId}`, change)).status).toBe(200);
  }
  if (shift !== null) await emu.control('POST', '/evals/score-shift', { shift, instructionsContain: MARKER });
  return { agentId, evalId };
}

/** What the live agent is: its version counter, its suites, its runs. */
async function liveState(emu: TestEmulator, agentId: string, evalId: string) {
  const agent = (await emu.api('GET', `/api/v1/agents/${agentId}`)).body.data;
  const suites = (await emu.api('GET', `/api/v1/agents/${agentId}/evals`)).body.data.evals.map((s: { id: string; runCount: number }) => [s.id, s.runCount]);
  const runs = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs`)).body.data.runs.map((r: { id: string }) => r.id);
  return { version: agent.currentVersion, instructions: agent.instructions, suites, runs };
}

function recordsLeft(): number {
  const dir = join(stateDir, 'bisect-copies');
  if (!existsSync(dir)) return 0;
  return readdirSync(dir).reduce((n, f) => n + (JSON.parse(readFileSync(join(dir, f), 'utf8')).copies?.length ?? 0), 0);
}

describe('vap agents bisect', () => {
  it('names version 7 in at least 9 of 10 seeds, within the budget, the live agent untouched and nothing left behind', async () => {
    let named = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const emu = await startTestEmulator({ seed, timeScale: 20000 });
      try {
        const vap = vapOn(emu);
        const { agentId, evalId } = await twelveVersions(emu, -0.15);
        const before = await liveState(emu, agentId, evalId);
        const r = await vap([
          'agents',
          'bisect',
          agentId,
          '--suite',
          evalId,
          '--good',
          '1',
          '--bad',
          '12',
          '--max-calls',
          String(BUDGET),
          '--min-effect',
          '0.1',
          '--json',
        ]);
        expect(r.stderr.indexOf('Plan: 11 versions after 1 up to 12: at most')).toBeGreaterThanOrEqual(0);
        expect(r.stderr.indexOf('Plan:')).toBeLessThan(r.stderr.indexOf('(preview copy)') >>> 0);
        const out = JSON.parse(r.stdout);
        expect(out.calls).toBeLessThanOrEqual(BUDGET);
        if (out.result === 'found' && out.firstBad.version === 7) named++;
        expect(await liveState(emu, agentId, evalId)).toEqual(before);
        expect(await previewCopies(emu)).toEqual([]);
        expect(recordsLeft()).toBe(0);
      } finally {
        await emu.close();
      }
    }
    expect(named).toBeGreaterThanOrEqual(9);
  }, 600_000);

  it('prints the first bad version with who, when, the diff, its interval and the rollback; the Markdown report says the same', async () => {
    const emu = await startTestEmulator({ seed: 3, timeScale: 20000 });
    const dir = mkdtempSync(join(tmpdir(), 'vap-bisect-md-'));
    try {
      const { agentId, evalId } = await twelveVersions(emu, -0.15);
      const md = join(dir, 'bisect.md');
      const r = await vapOn(emu)([
        'agents',
        'bisect',
        agentId,
        '--suite',
        evalId,
        '--good',
        '1',
        '--bad',
        '12',
        '--max-calls',
        String(BUDGET),
        '--min-effect',
        '0.1',
        '--report',
        `markdown=${md}`,
      ]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(r.stdout).toMatch(/^First bad version: 7 \(changed by API key \(acme\), \d{4}-.*; instructions −1 line \+1 line\), \d+ of 900 calls$/m);
      expect(r.stdout).toMatch(/verdict: regressed against version 1 \(overall -0\.\d+, CI -0\.\d+ to -0\.\d+\); the last good version is 6$/m);
      expect(r.stdout).toContain(`+Greet callers. Book appointments. ${MARKER}`);
      expect(r.stdout).toContain(`vap agents rollback ${agentId} --version 6 --reason "bisect: version 7 regressed"   # to undo it`);
      const report = readFileSync(md, 'utf8');
      expect(report).toContain('First bad version: 7');
      expect(report).toContain('```diff');
      expect(report).toContain(`vap agents rollback ${agentId} --version 6`);
    } finally {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('with no shift at all: no regression, and no version named', async () => {
    const emu = await startTestEmulator({ seed: 5, timeScale: 20000 });
    try {
      const { agentId, evalId } = await twelveVersions(emu, null);
      const r = await vapOn(emu)([
        'agents',
        'bisect',
        agentId,
        '--suite',
        evalId,
        '--good',
        '1',
        '--bad',
        '12',
        '--max-calls',
        String(BUDGET),
        '--min-effect',
        '0.1',
        '--json',
      ]);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.result).toBe('no regression');
      expect(out.firstBad).toBeUndefined();
      expect(out.calls).toBeLessThanOrEqual(BUDGET);
    } finally {
      await emu.close();
    }
  }, 120_000);

  it('a version whose copy cannot get its tool is skipped, and said, as git bisect skip does', async () => {
    const emu = await startTestEmulator({ seed: 4, timeScale: 20000 });
    try {
      // Version 1's runs on the live suite are the baseline (no copy of it is made), so the first copy built is the first step's.
      const { agentId, evalId } = await twelveVersions(emu, -0.15, true, 6);
      // That copy is refused its voice or tool, as a platform refuses a tool that is gone.
      await emu.fault({ method: 'PUT', path: '/api/v1/agents/*', status: 422, count: 1 });
      const r = await vapOn(emu)([
        'agents',
        'bisect',
        agentId,
        '--suite',
        evalId,
        '--good',
        '1',
        '--bad',
        '12',
        '--max-calls',
        String(BUDGET),
        '--min-effect',
        '0.1',
        '--json',
      ]);
      expect(r.stderr).toMatch(/^version \d+: skipped, its copy could not be built: /m);
      const out = JSON.parse(r.stdout);
      expect(out.steps.filter((s: { status: string }) => s.status === 'skipped')).toHaveLength(1);
      expect(['found', 'skipped']).toContain(out.result);
      expect(await previewCopies(emu)).toEqual([]);
    } finally {
      await emu.close();
    }
  }, 120_000);

  it('a budget below one run per step is refused before any call (exit 2)', async () => {
    const emu = await startTestEmulator({ seed: 2, timeScale: 20000 });
    try {
      const { agentId, evalId } = await twelveVersions(emu, null);
      await emu.clearRequests();
      const r = await vapOn(emu)(['agents', 'bisect', agentId, '--suite', evalId, '--good', '1', '--bad', '12', '--max-calls', '100']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/more than --max-calls 100/);
      expect((await emu.requests()).filter((x) => x.method !== 'GET')).toEqual([]);
    } finally {
      await emu.close();
    }
  }, 60_000);
});

describe('vap agents bisect after a kill', () => {
  it('--clean removes the copies a killed search recorded (one made, one whose id was never recorded) and leaves an agent that is not a copy', async () => {
    const emu = await startTestEmulator({ seed: 6, timeScale: 20000 });
    try {
      const { ProfileCopyStore } = await import('../../src/bisect/copies.js');
      const store = new ProfileCopyStore({ VAP_STATE_DIR: stateDir }, 'default', { baseUrl: emu.url, apiKey: ORG_A.apiKey });
      const make = async (name: string, tags: string[]) =>
        (await emu.api('POST', '/api/v1/agents', { name, engine: 'realtime', instructions: 'Copy.', tags })).body.data.id as string;
      // What a search SIGKILLed midway leaves: each copy recorded before it was made, the second one's id never recorded.
      const a = await make('Front desk · preview bisect-6', ['vap-preview']);
      const suite = (await emu.api('POST', `/api/v1/agents/${a}/evals`, { name: 'Booking', iterationsPerScenario: 1 })).body.data.id as string;
      await make('Front desk · preview bisect-9', ['vap-preview']);
      const live = await make('Front desk', []);
      await store.put({
        key: 'bisect-6',
        label: 'bisect-6',
        name: 'Front desk · preview bisect-6',
        agentId: a,
        suites: [{ key: 'suite', name: 'Booking', id: suite }],
        at: new Date().toISOString(),
      });
      await store.put({ key: 'bisect-9', label: 'bisect-9', name: 'Front desk · preview bisect-9', suites: [], at: new Date().toISOString() });
      await store.put({ key: 'bisect-3', label: 'bisect-3', name: 'Front desk · preview bisect-3', agentId: live, suites: [], at: new Date().toISOString() });
      const r = await vapOn(emu)(['agents', 'bisect', live, '--clean']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('Removed 2 preview copies an earlier bisect left');
      expect(r.stderr).toContain(`left agent ${live}`);
      expect(await previewCopies(emu)).toEqual([]);
      expect((await emu.api('GET', `/api/v1/agents/${live}`)).status).toBe(200);
      expect((await store.all()).map((x) => x.key)).toEqual(['bisect-3']);
      await store.forget('bisect-3');
      const again = await vapOn(emu)(['agents', 'bisect', live, '--clean']);
      expect(again.code).toBe(0);
      expect(again.stderr).toContain('No bisect copy is left');
    } finally {
      await emu.close();
    }
  }, 60_000);
});
