// `vap push` killed with SIGKILL at random moments, then run again: nothing is created
// twice, and everything in the files ends up on the platform. The built binary runs as a
// child process against a real emulator.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { testStateDir } from '../helpers/state-dir.js';

let emu: TestEmulator;
beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator({ allowLoopbackUrls: true, timeScale: 2000 });
});
afterAll(async () => {
  await emu?.close();
});

const AGENTS = 4;
const env = () => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  NO_COLOR: '1',
  VAP_STATE_DIR: testStateDir(),
  VAP_BASE_URL: emu.url,
  VAP_API_KEY: ORG_A.apiKey,
});

function push(dir: string) {
  return execa('node', [BIN, 'push', '--yes', '--profile', 'staging', '--reason', 'kill test'], {
    cwd: dir,
    env: env(),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
}

function scenario(n: number): string {
  return `  - { name: "Scenario ${n}", category: happy_path, persona: "Caller ${n}, polite", goal: "Goal number ${n}" }\n`;
}

function writeProject(dir: string): void {
  writeFileSync(join(dir, 'vap.yaml'), 'version: 1\nprofiles:\n  staging:\n    vars:\n      HOOK: http://127.0.0.1:9/hook\n');
  for (let a = 0; a < AGENTS; a++) {
    mkdirSync(join(dir, 'agents', `agent-${a}`, 'evals'), { recursive: true });
    writeFileSync(
      join(dir, 'agents', `agent-${a}`, 'agent.md'),
      `---\nname: Kill test agent ${a}\nengine: realtime\nvoice: { name: Marcus, language: en-US }\n---\nYou are agent ${a}.\nGreet callers with "Hello from ${a}".\n`,
    );
    for (const s of ['smoke', 'regression']) {
      writeFileSync(
        join(dir, 'agents', `agent-${a}`, 'evals', `${s}.yaml`),
        `name: ${s} ${a}\nstatus: ready\niterations: 1\ncriteria:\n  - { key: goal_completion, name: Goal, weight: 1 }\nscenarios:\n${scenario(1)}${scenario(2)}${scenario(3)}`,
      );
    }
  }
  mkdirSync(join(dir, 'webhooks'), { recursive: true });
  for (const w of ['crm', 'billing']) writeFileSync(join(dir, 'webhooks', `${w}.yaml`), `name: Kill test ${w}\nurl: \${vars.HOOK}\nevents: [call.ended]\n`);
}

/** Each round changes the files, so that every push has creates and updates to be killed in. */
function edit(dir: string, round: number): void {
  for (const a of [round % AGENTS, (round + 2) % AGENTS]) {
    const md = join(dir, 'agents', `agent-${a}`, 'agent.md');
    writeFileSync(md, readFileSync(md, 'utf8').replace(/\n$/, `\nRound ${round}: always confirm the caller's name.\n`));
  }
  for (const [a, s] of [
    [(round + 1) % AGENTS, 'smoke'],
    [(round + 3) % AGENTS, 'regression'],
  ] as const) {
    const suite = join(dir, 'agents', `agent-${a}`, 'evals', `${s}.yaml`);
    writeFileSync(suite, readFileSync(suite, 'utf8') + scenario(100 + round));
  }
  if (round % 3 === 0) {
    mkdirSync(join(dir, 'agents', `extra-${round}`, 'evals'), { recursive: true });
    writeFileSync(
      join(dir, 'agents', `extra-${round}`, 'agent.md'),
      `---\nname: Kill test extra ${round}\nengine: pipeline\nvoice: { name: Ava, language: en-US }\n---\nYou are an extra agent.\n`,
    );
    writeFileSync(
      join(dir, 'agents', `extra-${round}`, 'evals', 'smoke.yaml'),
      `name: extra smoke ${round}\nstatus: draft\niterations: 2\ncriteria:\n  - { key: tone, name: Tone, weight: 1 }\nscenarios:\n${scenario(1)}${scenario(2)}`,
    );
  }
}

describe('vap push killed at random moments', () => {
  it('10 rounds of SIGKILL, then a push to the end: no duplicates, and everything applied', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-kill-'));
    writeProject(dir);
    const delays: number[] = [];
    let killedMidway = 0;
    for (let round = 0; round < 10; round++) {
      edit(dir, round);
      // A random moment inside the apply: after the k-th resource is reported (k = 0: once
      // the plan is printed), plus 0 to 30 ms, which lands in the middle of the next one.
      const k = Math.floor(Math.random() * 4);
      const jitter = Math.floor(Math.random() * 30);
      delays.push(k * 100 + jitter);
      const child = push(dir);
      let seen = 0;
      let timer: NodeJS.Timeout | undefined;
      const arm = () => (timer ??= setTimeout(() => child.kill('SIGKILL'), jitter));
      child.stdout!.on('data', (c: Buffer) => {
        if (k === 0 && c.toString().includes('Plan for profile')) arm();
      });
      child.stderr!.on('data', (c: Buffer) => {
        seen += (c.toString().match(/^✓ /gm) ?? []).length;
        if (k > 0 && seen >= k) arm();
      });
      const r = await child;
      clearTimeout(timer);
      if (r.signal === 'SIGKILL') killedMidway++;
      else expect([0, 1], `round ${round} (k=${k}, +${jitter} ms): ${r.stderr}`).toContain(r.exitCode);
    }
    const last = await push(dir);
    expect(last.exitCode, `kill points ${delays.join(', ')}\n${last.stderr}`).toBe(0);
    expect(killedMidway, `killed ${killedMidway} of 10 pushes before they ended`).toBeGreaterThanOrEqual(7);

    const state = JSON.parse(readFileSync(join(dir, '.vap', 'state.staging.json'), 'utf8'));
    expect(state.intents).toEqual({});
    const agents = (await emu.api('GET', '/api/v1/agents?pageSize=200&search=Kill%20test')).body.data.agents as Array<{ id: string; name: string }>;
    const names = agents.map((a) => a.name).sort();
    expect(names).toEqual([...new Set(names)]);
    const expected = Object.keys(state.agents).length;
    expect(agents).toHaveLength(expected);
    for (const [slug, e] of Object.entries(state.agents) as Array<[string, { id: string }]>) {
      const suites = (await emu.api('GET', `/api/v1/agents/${e.id}/evals`)).body.data.evals as Array<{ id: string; name: string }>;
      expect(suites.map((s) => s.name).sort(), slug).toEqual([...new Set(suites.map((s) => s.name))].sort());
      expect(suites).toHaveLength(Object.keys(state.suites).filter((k) => k.startsWith(`${slug}/`)).length);
      for (const s of suites) {
        const scenarios = (await emu.api('GET', `/api/v1/agents/${e.id}/evals/${s.id}/scenarios`)).body.data.scenarios as Array<{ name: string }>;
        const key = Object.keys(state.suites).find((k) => state.suites[k].id === s.id)!;
        const file = readFileSync(join(dir, 'agents', ...key.split('/').map((p, i) => (i === 0 ? p : `evals/${p}.yaml`))), 'utf8');
        const inFile = [...file.matchAll(/name: "(Scenario \d+)"/g)].map((m) => m[1]);
        expect(scenarios.map((x) => x.name).sort(), key).toEqual(inFile.sort());
      }
    }
    const hooks = (await emu.api('GET', '/api/v1/webhook-endpoints')).body.data.endpoints.filter((w: { name: string }) => w.name.startsWith('Kill test'));
    expect(hooks).toHaveLength(2);
    const diff = await execa('node', [BIN, 'diff', '--exit-code', '--profile', 'staging'], {
      cwd: dir,
      env: env(),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    expect(diff.exitCode, String(diff.stdout)).toBe(0);
  });
});
