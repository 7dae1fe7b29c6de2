// The README's "From pull request to production" steps, line for line: the ```sh block
// under that heading is read from README.md and each line is run in order with bash, in a
// fresh git repository, with `vap` on PATH (a shim for the built bin/vap.js) and $EDITOR a
// script that makes a benign edit, against one emulator holding two organizations whose
// tool ids differ. Every line must exit 0; then production holds the agent with its own
// tool ids, and what it holds is what passed in staging.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, ROOT } from '../helpers/built.js';
import type { TestEmulator } from '../helpers/emulator.js';
import { testStateDir } from '../helpers/state-dir.js';
import { benign, PROD, RULED, seedAgent, STAGING, startTwoOrgs, toolId, twoOrgEnv, type Seeded } from '../helpers/two-orgs.js';

let emu: TestEmulator;
let staging: Seeded;
beforeAll(async () => {
  assertBuilt();
  // The emulator is deterministic: with seed 3 neither the preview's run nor the push's meets
  // a failed iteration (a gate of its own, none allowed by default) or a false regression.
  // With seeds 1, 2, 7 and 8 one of them does: noise that the documented path fails on
  // (about 30% of runs of 9 calls meet a failed iteration, 7% a false regression).
  emu = await startTwoOrgs(3);
  // Production already has an agent that uses the same tool: its ids are learned from it.
  await seedAgent(emu, PROD, { name: 'Reception', instructions: 'You are the reception of Acme Dental.', tools: ['Calendar booking'] });
  staging = await seedAgent(emu, STAGING, {
    name: 'Front Desk',
    instructions: RULED,
    tools: ['Calendar booking'],
    voice: { name: 'Olivia', language: 'en-GB' },
    suite: { name: 'Booking', iterations: 3 },
  });
});
afterAll(async () => {
  await emu?.close();
});

/** The lines of the ```sh block under the heading, as the README has them. */
function readmeSteps(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.search(/^#+ From pull request to production\b.*$/m);
  expect(at, 'README heading "From pull request to production"').toBeGreaterThanOrEqual(0);
  const block = /```sh\n([\s\S]*?)\n```/.exec(readme.slice(at));
  expect(block, 'a ```sh block under the heading').not.toBeNull();
  return block![1]!.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
}

describe('the README, from pull request to production', () => {
  it('runs line for line across two organizations, and production gets what passed in staging', { timeout: 180_000 }, async () => {
    const steps = readmeSteps();
    expect(steps.length).toBe(7);
    const work = mkdtempSync(join(tmpdir(), 'vap-readme-flow-'));
    const bin = join(work, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'vap'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    // The pull request's edit: another greeting, the same rules (a change at the level of the noise).
    writeFileSync(join(bin, 'edit'), `#!/bin/sh\nsed -i 's/"Hello, Acme Dental"/"Hello, you have reached Acme Dental"/' "$1"\n`);
    chmodSync(join(bin, 'vap'), 0o755);
    chmodSync(join(bin, 'edit'), 0o755);
    const clone = join(work, 'clone');
    mkdirSync(clone);
    const env = {
      ...twoOrgEnv(emu.url, join(work, 'config')),
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HOME: work,
      NO_COLOR: '1',
      VAP_STATE_DIR: testStateDir(),
      EDITOR: join(bin, 'edit'),
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.com',
    };
    await execa('git', ['init', '-q', '-b', 'main'], { cwd: clone, env, extendEnv: false });

    const outputs: string[] = [];
    for (const line of steps) {
      const r = await execa('bash', ['-c', line], { cwd: clone, env, extendEnv: false, reject: false, stdin: 'ignore', all: true });
      outputs.push(`$ ${line}\n${r.all}`);
      expect(r.exitCode, `${outputs.join('\n')}\n[exit ${r.exitCode}]`).toBe(0);
    }
    const all = outputs.join('\n');

    // The preview evaluated the branch against the live agent's run, and wrote the comment.
    expect(readFileSync(join(clone, 'evals.md'), 'utf8')).toMatch(/Eval run #\d+ of Booking/);
    expect(readFileSync(join(clone, 'evals.html'), 'utf8')).toContain('<html');
    expect(all).toMatch(/preview "main" passed: front-desk recorded as passed in profile "staging"; no live agent was changed/);

    // Staging holds the edit, gated: the run that passed is a completed run of its current version.
    const live = (await emu.api('GET', `/api/v1/agents/${staging.agentId}`, undefined, STAGING.apiKey)).body.data;
    expect(live.instructions).toBe(benign(RULED));
    const state = JSON.parse(readFileSync(join(clone, '.vap', 'state.staging.json'), 'utf8'));
    const passed = state.passed['front-desk'];
    expect(passed).toMatchObject({ via: 'push' });
    expect(passed.runs).toHaveLength(1);
    const run = (await emu.api('GET', `/api/v1/agents/${staging.agentId}/evals/${staging.suiteId}/runs/${passed.runs[0]}`, undefined, STAGING.apiKey)).body.data
      .run;
    expect(run).toMatchObject({ status: 'completed', agentVersion: live.currentVersion ?? live.version });
    expect(all).toMatch(
      new RegExp(`✓ agent front-desk: passed in profile "staging" \\(a gated push, runs ${passed.runs[0]}, verified there on version \\d+\\)`),
    );

    // Production: the agent, with production's own tool id (not staging's), the voice, the suite.
    const prodAgents = (await emu.api('GET', '/api/v1/agents?limit=100', undefined, PROD.apiKey)).body.data.agents as Array<{ id: string; name: string }>;
    const promoted = prodAgents.find((a) => a.name === 'Front Desk');
    expect(promoted).toBeDefined();
    const agent = (await emu.api('GET', `/api/v1/agents/${promoted!.id}`, undefined, PROD.apiKey)).body.data;
    expect(agent.instructions).toBe(live.instructions);
    expect(agent.voice).toMatchObject({ name: 'Olivia', language: 'en-GB' });
    const tools = (await emu.api('GET', `/api/v1/agents/${promoted!.id}/tools`, undefined, PROD.apiKey)).body.data.tools;
    const prodTool = await toolId(emu, PROD, 'Calendar booking');
    expect(prodTool).not.toBe(await toolId(emu, STAGING, 'Calendar booking'));
    expect(tools).toEqual([{ id: prodTool, name: 'Calendar booking' }]);
    const suites = (await emu.api('GET', `/api/v1/agents/${promoted!.id}/evals`, undefined, PROD.apiKey)).body.data;
    expect((suites.evals ?? suites).map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([['Booking', 'ready']]);
    // The promotion added prod to vap.yaml and recorded what it applied in prod's state.
    expect(readFileSync(join(clone, 'vap.yaml'), 'utf8')).toMatch(/^ {2}prod:$/m);
    const prodState = JSON.parse(readFileSync(join(clone, '.vap', 'state.prod.json'), 'utf8'));
    expect(prodState.agents['front-desk'].id).toBe(promoted!.id);
    expect(prodState.tools['Calendar booking']).toBe(prodTool);
  });
});
