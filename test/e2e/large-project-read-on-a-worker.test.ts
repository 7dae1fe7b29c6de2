// The built CLI reads a project of hundreds of agents on a worker thread (src/ascode/scan-project.ts):
// the plan is the one a small project's reading gives, and every refusal of the layout
// (a link, a FIFO, a file over the limit) is still a problem named before anything is sent.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKER_MIN_AGENTS } from '../../src/ascode/scan-project.js';
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

describe('a project of hundreds of agents', () => {
  it('is planned as a small one is, and its files are checked as strictly', async () => {
    const voice = (await emu.api('GET', '/api/v1/voices')).body.data.voices[0];
    const dir = mkdtempSync(join(tmpdir(), 'vap-large-'));
    writeFileSync(join(dir, 'vap.yaml'), 'version: 1\nprofiles:\n  ci: {}\n');
    const n = WORKER_MIN_AGENTS + 20;
    for (let i = 0; i < n; i++) {
      const agentDir = join(dir, 'agents', `agent-${String(i).padStart(3, '0')}`);
      mkdirSync(join(agentDir, 'evals'), { recursive: true });
      writeFileSync(join(agentDir, 'agent.md'), `---\nname: Agent ${i}\nengine: realtime\nvoice:\n  name: ${voice.name}\n  language: ${voice.language}\n---\nYou are agent ${i}.\n`);
      writeFileSync(join(agentDir, 'evals', 'smoke.yaml'), `name: Smoke\niterations: 1\nstatus: ready\ncriteria:\n  - key: tone\n    name: Tone\n    weight: 1\nscenarios:\n  - name: Hello\n    persona: A caller\n    goal: Says hello\n    category: happy_path\n`);
    }
    const env = { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, CI: 'true' };
    const planned = await vap(['diff', '--json', '--profile', 'ci'], { env, cwd: dir });
    expect(planned.exitCode, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout);
    expect(plan.summary).toMatchObject({ create: 2 * n, unchanged: 0 });
    expect(plan.resources.find((r: { key: string }) => r.key === 'agent-007')).toMatchObject({ kind: 'agent', action: 'create', name: 'Agent 7' });

    // The same project, less the agents the worker's share makes it: the same plan for the agents both hold.
    const small = mkdtempSync(join(tmpdir(), 'vap-small-'));
    execFileSync('cp', ['-r', join(dir, 'vap.yaml'), join(dir, 'agents'), small]);
    for (let i = 10; i < n; i++) rmSync(join(small, 'agents', `agent-${String(i).padStart(3, '0')}`), { recursive: true });
    const smallPlan = JSON.parse((await vap(['diff', '--json', '--profile', 'ci'], { env, cwd: small })).stdout);
    expect(plan.resources.filter((r: { key: string }) => /^agent-00\d(\/|$)/.test(r.key))).toEqual(smallPlan.resources);

    const outside = mkdtempSync(join(tmpdir(), 'vap-large-outside-'));
    writeFileSync(join(outside, 'secret.yaml'), 'name: Not yours\n');
    symlinkSync(join(outside, 'secret.yaml'), join(dir, 'agents', 'agent-001', 'evals', 'linked.yaml'));
    rmSync(join(dir, 'agents', 'agent-002', 'agent.md'));
    execFileSync('mkfifo', [join(dir, 'agents', 'agent-002', 'agent.md')]);
    truncateSync(join(dir, 'agents', 'agent-003', 'evals', 'smoke.yaml'), 3 * 1024 * 1024);
    const refused = await vap(['diff', '--profile', 'ci'], { env, cwd: dir, timeout: 60_000 });
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('agents/agent-001/evals/linked.yaml: is a symbolic link; vap never reads, writes or removes through one');
    expect(refused.stderr).toContain('agents/agent-002/agent.md: is not a file');
    expect(refused.stderr).toContain("agents/agent-003/evals/smoke.yaml: is 3.0 MiB, over vap's limit of 2.0 MiB for a project file");
    expect(refused.stderr).toMatch(/error: 3 problems in the project files \(listed above\); nothing was sent/);
  });
});
