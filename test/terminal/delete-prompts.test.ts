import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

// The delete prompts in a real terminal: each names the resource (not only its id), "yes"
// deletes it, and "no" keeps it, says "nothing deleted" and exits 0 (a choice, not a failure).

let emu: TestEmulator;

async function post<T = any>(path: string, body: unknown): Promise<T> {
  const r = await emu.api<{ data: T }>('POST', path, body);
  expect(r.status, path).toBeLessThan(300);
  return r.body.data;
}
const status = async (path: string) => (await emu.api('GET', path)).status;

describe.skipIf(!hasTmux())('delete prompts in a real terminal (tmux)', () => {
  let agent: string;
  beforeAll(async () => {
    assertBuilt();
    emu = await startTestEmulator({ allowLoopbackUrls: true });
    agent = (await post<{ id: string }>('/api/v1/agents', { name: 'Owner', instructions: 'Answer.', engine: 'realtime', variables: [] })).id;
  });
  afterAll(async () => {
    await emu?.close();
  });

  const run = (args: string) =>
    new TmuxSession(`node ${shellQuote(BIN)} ${args}`, {
      env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1', TERM: 'xterm-256color' },
    });

  /** Answers the prompt; returns the screen once the command ended, and its exit code. */
  async function answer(args: string, prompt: RegExp, key: 'y' | 'n'): Promise<{ screen: string; code: number }> {
    const tty = run(args);
    try {
      await tty.waitFor(prompt);
      tty.sendKeys(key, 'Enter');
      const code = await tty.exitCode();
      return { screen: tty.capture(), code };
    } finally {
      tty.kill();
    }
  }

  it('agents delete: names the agent; yes deletes it', async () => {
    const id = (await post<{ id: string }>('/api/v1/agents', { name: 'Doomed desk', instructions: 'Answer.', engine: 'realtime', variables: [] })).id;
    const r = await answer(`agents delete ${id}`, /Delete agent Doomed desk \(ag_\w+\)\? This cannot be undone/, 'y');
    expect(r.code).toBe(0);
    expect(r.screen).toContain(`Deleted agent ${id}`);
    expect(await status(`/api/v1/agents/${id}`)).toBe(404);
  });

  it('agents delete: no keeps it, says so, and exits 0', async () => {
    const id = (await post<{ id: string }>('/api/v1/agents', { name: 'Kept desk', instructions: 'Answer.', engine: 'realtime', variables: [] })).id;
    const r = await answer(`agents delete ${id}`, /Delete agent Kept desk/, 'n');
    expect(r.code).toBe(0);
    expect(r.screen).toContain(`nothing deleted: agent Kept desk (${id}) was kept`);
    expect(r.screen).not.toContain('error:');
    expect(await status(`/api/v1/agents/${id}`)).toBe(200);
  });

  it('evals delete and evals runs delete name the suite and the run', async () => {
    const suite = (await post<{ id: string }>(`/api/v1/agents/${agent}/evals`, { name: 'Booking flows', iterationsPerScenario: 1 })).id;
    await post(`/api/v1/agents/${agent}/evals/${suite}/scenarios`, {
      name: 'Reschedule',
      persona: 'A patient',
      goal: 'Move to Friday',
      category: 'happy_path',
    });
    const runId = (await post<{ id: string }>(`/api/v1/agents/${agent}/evals/${suite}/runs`, {})).id;

    const run = await answer(
      `evals runs delete ${suite} ${runId} --agent ${agent}`,
      /Delete run #1 \(run_\w+, \w+\) of suite Booking flows \(ev_\w+\) with its results\?/,
      'n',
    );
    expect(run.code).toBe(0);
    expect(run.screen).toMatch(/nothing deleted: run #1 \(run_\w+, \w+\) of suite Booking flows \(ev_\w+\) was kept/);
    expect(await status(`/api/v1/agents/${agent}/evals/${suite}/runs/${runId}`)).toBe(200);

    const kept = await answer(
      `evals delete ${suite} --agent ${agent}`,
      /Delete eval suite Booking flows \(ev_\w+\) with its scenarios, runs and results\?/,
      'n',
    );
    expect(kept.code).toBe(0);
    expect(kept.screen).toContain(`nothing deleted: eval suite Booking flows (${suite}) was kept`);
    const gone = await answer(`evals delete ${suite} --agent ${agent}`, /Delete eval suite Booking flows/, 'y');
    expect(gone.code).toBe(0);
    expect(await status(`/api/v1/agents/${agent}/evals/${suite}`)).toBe(404);
  });

  it('webhooks delete and rotate-secret name the endpoint; no keeps it and exits 0', async () => {
    const ep = await post<{ id: string }>('/api/v1/webhook-endpoints', { name: 'CRM hook', url: 'http://127.0.0.1:9/hook', events: ['call.ended'] });
    const rot = await answer(`webhooks rotate-secret ${ep.id}`, /Rotate the secret of CRM hook \(we_\w+\)\?/, 'n');
    expect(rot.code).toBe(0);
    expect(rot.screen).toContain(`nothing rotated: CRM hook (${ep.id}) keeps its secret`);
    const del = await answer(`webhooks delete ${ep.id}`, /Delete webhook endpoint CRM hook \(we_\w+, http:\/\/127\.0\.0\.1:9\/hook\)\?/, 'n');
    expect(del.code).toBe(0);
    expect(del.screen).toContain(`nothing deleted: webhook endpoint CRM hook (${ep.id}, http://127.0.0.1:9/hook) was kept`);
    expect(await status(`/api/v1/webhook-endpoints/${ep.id}`)).toBe(200);
  });

  it('campaigns delete: no keeps it and exits 0', async () => {
    const c = await post<{ id: string }>('/api/v1/campaigns', { name: 'Web callbacks', agentId: agent, type: 'api' });
    const r = await answer(`campaigns delete ${c.id}`, /Delete campaign Web callbacks \([0-9a-f-]{36}\)\?/, 'n');
    expect(r.code).toBe(0);
    expect(r.screen).toContain(`nothing deleted: campaign Web callbacks (${c.id}) was kept`);
    expect(await status(`/api/v1/campaigns/${c.id}`)).toBe(200);
  });

  it('without a terminal the prompt is a usage error naming --yes, and nothing is sent', async () => {
    await emu.clearRequests();
    const { execa } = await import('execa');
    const r = await execa('node', [BIN, 'agents', 'delete', agent], {
      env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1' },
      reject: false,
      stdin: 'ignore',
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('pass --yes');
    expect(await emu.requests()).toEqual([]);
  });
});
