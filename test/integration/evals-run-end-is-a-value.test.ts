import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { Run } from '../../src/api/evals.js';
import { outcomeVerdict } from '../../src/evals/outcome.js';
import { readAndGate, startAndGate } from '../../src/evals/run-gated.js';
import type { RunReporter } from '../../src/evals/run-reporter.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// The domain of `vap evals run` and `evals runs get`, called as the MCP tools call it: the
// client, the environment, a signal and a reporter in; the run's end out, as a value.

let emu: TestEmulator;
let api: ApiClient;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  api = new ApiClient({ baseUrl: emu.url, apiKey: ORG_A.apiKey, userAgent: 'vap-test' });
  dir = mkdtempSync(join(tmpdir(), 'vap-run-end-'));
});
afterAll(async () => {
  await api?.close();
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function suite(): Promise<{ agentId: string; evalId: string }> {
  const agentId = (await emu.api('POST', '/api/v1/agents', { name: 'Reception', engine: 'realtime', instructions: 'Greet callers. Book appointments.' })).body
    .data.id as string;
  const evalId = (await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: 'Booking', iterationsPerScenario: 2 })).body.data.id as string;
  await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, {
    name: 'Book a cleaning',
    persona: 'A caller',
    goal: 'Book a cleaning today',
    category: 'happy_path',
  });
  return { agentId, evalId };
}

function recorder(): { reporter: RunReporter; lines: string[]; started: Run[] } {
  const lines: string[] = [];
  const started: Run[] = [];
  return {
    lines,
    started,
    reporter: {
      info: (l) => void lines.push(l),
      warn: (l) => void lines.push(`! ${l}`),
      started: (run, l) => {
        started.push(run);
        lines.push(l);
      },
      look: (l) => void lines.push(l),
      progress: async () => null,
    },
  };
}

const waitFor = (ms: number) => ({ wait: true, timeout: ms, poll: true });

describe('a followed run is a value', () => {
  it('a run followed to its end gives its outcome, and its gates say how the command ends; progress goes to the reporter', async () => {
    const ref = await suite();
    const r = recorder();
    const end = await startAndGate({ api: async () => api, signal: new AbortController().signal, env: {}, reporter: r.reporter }, ref, {
      ...waitFor(60_000),
      minScore: 0,
      allowFailedIterations: 2,
    });
    expect(end.kind).toBe('ended');
    if (end.kind !== 'ended') return;
    expect(end.outcome.detail.run.status).toBe('completed');
    expect(end.outcome.results).toHaveLength(2);
    expect(outcomeVerdict(end.outcome)).toMatchObject({ kind: 'passed', message: expect.stringMatching(/passed all 2 gates$/) });
    expect(r.lines[0]).toMatch(/^Calls: 2 calls \(1 scenario × 2 iterations\)/);
    expect(r.started.map((x) => x.id)).toEqual([end.outcome.detail.run.id]);

    const below = await readAndGate(
      { api: async () => api, signal: new AbortController().signal, env: {}, reporter: recorder().reporter },
      { ...ref, runId: end.outcome.detail.run.id },
      { timeout: 0, minScore: 1.01 },
    );
    expect(below.kind === 'ended' && outcomeVerdict(below.outcome).kind).toBe('gates');
  });

  it('a wait that runs out is a stop with the command that goes on waiting; the run is not touched', async () => {
    const ref = await suite();
    await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId: ref.evalId });
    const end = await startAndGate({ api: async () => api, signal: new AbortController().signal, env: {}, reporter: recorder().reporter }, ref, {
      ...waitFor(300),
      minScore: 0.5,
    });
    expect(end).toMatchObject({
      kind: 'stopped',
      stop: {
        kind: 'timeout',
        runId: expect.stringMatching(/^run_/),
        message: expect.stringContaining('had not finished'),
        resume: expect.stringContaining('vap evals runs get'),
      },
    });
    if (end.kind === 'stopped') await emu.control('POST', `/evals/runs/${end.stop.runId}/release`);
  });

  it('a gated read of a run still going writes its reports only when the caller asks, after showing it', async () => {
    const ref = await suite();
    await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId: ref.evalId });
    const started = await startAndGate({ api: async () => api, signal: new AbortController().signal, env: {}, reporter: recorder().reporter }, ref, {
      timeout: 0,
    });
    expect(started.kind).toBe('started');
    if (started.kind !== 'started') return;
    const path = join(dir, 'still.json');
    const end = await readAndGate(
      { api: async () => api, signal: new AbortController().signal, env: {}, reporter: recorder().reporter },
      { ...ref, runId: started.run.id },
      { timeout: 0, minScore: 0.5, report: [{ kind: 'json', path }] },
    );
    expect(end.kind).toBe('running');
    expect(existsSync(path)).toBe(false);
    if (end.kind === 'running') await end.writeReports();
    expect(JSON.parse(readFileSync(path, 'utf8')).stopped).toMatchObject({ kind: 'error', message: expect.stringContaining('add --wait') });
    await emu.control('POST', `/evals/runs/${started.run.id}/release`);
  });
});
