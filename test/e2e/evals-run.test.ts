import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { parse } from 'junit2json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, vap } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// `vap evals run --wait` as CI runs it: the built binary, each exit code, the JUnit file.

let emu: TestEmulator;
let dir: string;
let env: Record<string, string>;
let agentId: string;

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-e2e-evals-'));
  env = { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, VAP_CONFIG_DIR: dir };
  const agent = await emu.api('POST', '/api/v1/agents', { name: 'Reception', engine: 'realtime', instructions: 'Greet callers. Book appointments.' });
  agentId = agent.body.data.id;
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function suite(iterations = 2): Promise<string> {
  const evalId = (await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: `E2E ${Math.random()}`, iterationsPerScenario: iterations })).body.data
    .id as string;
  for (const [name, category] of [
    ['Book a cleaning', 'happy_path'],
    ['Wants a human', 'escalation'],
  ] as const) {
    await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, { name, persona: 'A caller', goal: `${name} today`, category });
  }
  return evalId;
}

type Case = { name?: string; failure?: Array<{ message?: string }>; error?: Array<{ message?: string }>; skipped?: unknown[] };
type Doc = { tests?: number; failures?: number; errors?: number; testsuite?: Array<{ name?: string; tests?: number; failures?: number; testcase?: Case[] }> };
const junit = async (path: string) => (await parse(readFileSync(path, 'utf8'))) as Doc;

async function runStatus(evalId: string, runId: string): Promise<string> {
  return (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs/${runId}`)).body.data.run.status;
}

describe('vap evals run --wait (built binary)', () => {
  it('exit 0: completed and every gate passed; the JUnit file has a case per iteration and no failure', async () => {
    const evalId = await suite(2);
    const file = join(dir, 'pass.xml');
    const r = await vap(
      ['evals', 'run', evalId, '--agent', agentId, '--wait', '--min-score', '0', '--allow-failed-iterations', '4', '--report', `junit=${file}`],
      { env },
    );
    expect(r.stderr).not.toContain('error:');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/Run #1 \(run_\w+\) completed: overall \d\.\d{3}, agent version 1/);
    const doc = await junit(file);
    expect(doc.tests).toBe(4 + 3);
    expect(doc.failures).toBe(0);
    expect(doc.errors).toBe(0);
    expect(doc.testsuite!.map((s) => s.tests)).toEqual([2, 2, 3]);
  });

  it('exit 3: completed below --min-score; the failed gate once (in the summary on stdout) and in the JUnit file', async () => {
    const evalId = await suite(1);
    const file = join(dir, 'gate.xml');
    const r = await vap(
      ['evals', 'run', evalId, '--agent', agentId, '--wait', '--min-score', '0.99', '--allow-failed-iterations', '2', '--report', `junit=${file}`],
      { env },
    );
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toMatch(/^✗ FAILED --min-score 0\.99: overall score 0\.\d{3} < 0\.99$/m);
    expect(r.stderr).not.toContain('--min-score 0.99:');
    expect(r.stderr).toMatch(/error: run #1 \(run_\w+\) completed below a gate$/);
    const doc = await junit(file);
    expect(doc.failures).toBe(1);
    const gates = doc.testsuite!.find((s) => s.name === 'gates')!;
    expect(gates.testcase!.find((c) => c.name === '--min-score 0.99')!.failure![0]!.message).toMatch(/^gate --min-score 0\.99 failed/);
  });

  it('exit 1: the run failed (control path)', async () => {
    const evalId = await suite(1);
    await emu.control('POST', '/evals/next-run', { outcome: 'fail', evalId });
    const file = join(dir, 'fail.xml');
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--report', `junit=${file}`], { env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/error: run #1 \(run_\w+\) failed: failed by the emulator's control path/);
    expect((await junit(file)).errors).toBe(1);
  });

  it('exit 124: --timeout on a held run prints the run id and the exact command that keeps waiting', async () => {
    const evalId = await suite(1);
    await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId });
    const file = join(dir, 'timeout.xml');
    const r = await vap(
      [
        'evals',
        'run',
        evalId,
        '--agent',
        agentId,
        '--wait',
        '--timeout',
        '2s',
        '--min-score',
        '0.5',
        '--min-criterion',
        'tone=0.4',
        '--allow-failed-iterations',
        '1',
        '--report',
        `junit=${file}`,
      ],
      { env },
    );
    expect(r.exitCode).toBe(124);
    const runId = /run (run_\w+) had not finished after 2s/.exec(r.stderr)?.[1];
    expect(runId).toMatch(/^run_/);
    expect(r.stderr).toContain(
      `Keep waiting with: vap evals runs get ${runId} --eval ${evalId} --agent ${agentId} --wait --min-score 0.5 --min-criterion tone=0.4 --allow-failed-iterations 1 --report junit=${file}`,
    );
    expect(await runStatus(evalId, runId!)).toBe('running');
    await emu.control('POST', `/evals/runs/${runId}/release`);
  });

  it('exit 130: SIGINT while waiting stops the wait, says how to resume, and leaves the run running', async () => {
    const evalId = await suite(1);
    await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId });
    const child = execa('node', [BIN, 'evals', 'run', evalId, '--agent', agentId, '--wait'], {
      reject: false,
      extendEnv: false,
      stdin: 'ignore',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...env },
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    // Progress lines are on stderr without a terminal: wait for the run to be seen running.
    for (let i = 0; i < 200 && !/run #1 \(run_\w+\) running/.test(stderr); i++) await new Promise((res) => setTimeout(res, 25));
    expect(stderr).toMatch(/run #1 \(run_\w+\) running/);
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    const runId = /run #1 \((run_\w+)\)/.exec(stderr)![1]!;
    expect(String(r.stderr)).toContain(`stopped waiting; run ${runId} goes on`);
    expect(String(r.stderr)).toContain(`vap evals runs get ${runId} --eval ${evalId} --agent ${agentId} --wait`);
    expect(await runStatus(evalId, runId)).toBe('running');
    await emu.control('POST', `/evals/runs/${runId}/release`);
  });
});
