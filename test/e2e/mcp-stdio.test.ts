// `vap mcp` as an assistant's client runs it: the official SDK's client starts the built
// binary over stdio against the emulator, lists the tools (names, schemas, the four
// annotations, the data warning), calls every read tool over data that carries the hostile
// string everywhere (no control character comes back), pages a listing with cursors, cuts a
// large result to the stated size, refuses a write without --allow-writes and again
// without confirm, and with both rolls an agent back (the version history shows it).
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { assertBuilt, BIN, vap } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { forbidden, seedHostile, type HostileData } from '../helpers/hostile.js';
import { connectStdio, envelopeOf, textOf, type McpSession } from '../helpers/mcp.js';
import { DATA_NOTICE, DATA_WARNING } from '../../src/mcp/safety.js';

let emu: TestEmulator;
let d: HostileData;
/** A plain agent at version 2 (its instructions changed once). */
let desk: { id: string };
let secondRunId: string;
let project: string;
let ro: McpSession;

/** The writes, and which of them are destructive (they need confirm). */
const WRITES: Record<string, { destructive: boolean; idempotent: boolean; openWorld: boolean }> = {
  vap_agents_create: { destructive: false, idempotent: false, openWorld: false },
  vap_agents_update: { destructive: true, idempotent: true, openWorld: false },
  vap_agents_rollback: { destructive: true, idempotent: false, openWorld: false },
  vap_agents_bisect: { destructive: true, idempotent: false, openWorld: false },
  vap_agents_voice: { destructive: true, idempotent: true, openWorld: false },
  vap_agents_tools: { destructive: true, idempotent: true, openWorld: false },
  vap_evals_run: { destructive: false, idempotent: false, openWorld: true },
  vap_campaigns_start: { destructive: true, idempotent: true, openWorld: true },
  vap_campaigns_pause: { destructive: true, idempotent: true, openWorld: false },
  vap_webhooks_rotate_secret: { destructive: true, idempotent: false, openWorld: false },
};

async function ok<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const r = await emu.api<any>(method, path, body);
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  return (r.body?.data ?? r.body) as T;
}

async function versionsOf(
  agentId: string,
): Promise<{ currentVersion: number; versions: Array<{ versionNumber: number; changeType: string; rolledBackTo?: number; reason?: string }> }> {
  return ok('GET', `/api/v1/agents/${agentId}/versions`);
}

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator({ allowLoopbackUrls: true });
  d = await seedHostile(emu);
  desk = await ok('POST', '/api/v1/agents', { name: 'Front desk', instructions: 'Greet callers.', engine: 'realtime', variables: [] });
  await ok('PATCH', `/api/v1/agents/${desk.id}`, { instructions: 'Greet callers warmly.' });
  // A second finished run of the hostile suite, for the diff against the first.
  const run = await ok<{ id: string }>('POST', `/api/v1/agents/${d.agentId}/evals/${d.evalId}/runs`);
  secondRunId = run.id;
  for (let i = 0; ; i++) {
    const r = await ok<{ run: { status: string } }>('GET', `/api/v1/agents/${d.agentId}/evals/${d.evalId}/runs/${run.id}`);
    if (r.run.status === 'completed' || r.run.status === 'failed') break;
    if (i > 400) throw new Error('the second run did not end');
    await new Promise((r) => setTimeout(r, 50));
  }
  // An agents-as-code folder with the plain agent in it, for the plan.
  project = mkdtempSync(join(tmpdir(), 'vap-mcp-ascode-'));
  const pulled = await vap(['pull', '--agent', desk.id], {
    env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, VAP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vap-mcp-config-')) },
    cwd: project,
  });
  expect(pulled.exitCode, pulled.stderr).toBe(0);
  ro = await connectStdio(emu);
}, 120_000);

afterAll(async () => {
  await ro?.close();
  await emu?.close();
});

describe('vap mcp over stdio, through the SDK client', () => {
  let tools: Tool[];
  beforeAll(async () => {
    tools = (await ro.client.listTools()).tools;
  });

  it('says nothing but the protocol on stdout, and what it serves on stderr', () => {
    // The SDK client would have failed to parse anything else on stdout.
    expect(ro.stderr()).toContain('vap mcp: serving the Model Context Protocol on stdin and stdout (profile default, read-only)');
  });

  it('stops on SIGTERM, as a client stops it, with exit 0', async () => {
    const server = execa('node', [BIN, 'mcp'], {
      env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), VAP_API_KEY: ORG_A.apiKey, VAP_BASE_URL: emu.url },
      extendEnv: false,
      reject: false,
    });
    await new Promise<void>((resolve) => {
      let said = '';
      server.stderr!.on('data', (c: Buffer) => {
        said += c.toString();
        if (said.includes('vap mcp: serving')) resolve();
      });
    });
    server.kill('SIGTERM');
    const r = await server;
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('without a key, says so and exits 4 before serving', async () => {
    const r = await execa('node', [BIN, 'mcp'], {
      env: { PATH: process.env.PATH ?? '', HOME: mkdtempSync(join(tmpdir(), 'vap-nokey-')) },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/^error: no API key found[^\n]*; run `vap auth login`, or set VAP_API_KEY$/);
    expect(r.stdout).toBe('');
  });

  it('lists the tools: vap_<group>_<verb>, input and output schemas, the four annotations, the data warning', () => {
    expect(tools.length).toBe(36);
    for (const t of tools) {
      expect(t.name, t.name).toMatch(/^vap_[a-z]+(_[a-z]+)+$/);
      expect(t.description, t.name).toContain(DATA_WARNING);
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(Object.keys(t.outputSchema?.properties ?? {}), t.name).toEqual(expect.arrayContaining(['dataNotice', 'data']));
      const a = t.annotations!;
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
        expect(typeof a[hint], `${t.name} ${hint}`).toBe('boolean');
      const w = WRITES[t.name];
      if (w) {
        expect(a, t.name).toMatchObject({ readOnlyHint: false, destructiveHint: w.destructive, idempotentHint: w.idempotent, openWorldHint: w.openWorld });
        expect(t.description, t.name).toMatch(/Changes: .* Undo: /s);
        expect(t.description, t.name).toContain('--allow-writes');
        if (w.destructive) expect(Object.keys(t.inputSchema.properties ?? {}), t.name).toContain('confirm');
      } else {
        expect(a, t.name).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      }
    }
    expect(
      tools
        .filter((t) => WRITES[t.name])
        .map((t) => t.name)
        .sort(),
    ).toEqual(Object.keys(WRITES).sort());
  });

  it('calls every read tool; each result carries the platform text under data, with no control character', async () => {
    const args: Record<string, Record<string, unknown>> = {
      vap_agents_list: {},
      vap_agents_get: { agentId: d.agentId },
      vap_agents_versions: { agentId: d.agentId },
      vap_voices_list: { language: 'es' },
      vap_evals_list: { agentId: d.agentId },
      vap_evals_get: { agentId: d.agentId, evalId: d.evalId },
      vap_evals_runs_list: { agentId: d.agentId, evalId: d.evalId },
      vap_evals_runs_get: { agentId: d.agentId, evalId: d.evalId, runId: d.runId },
      vap_evals_runs_results: { agentId: d.agentId, evalId: d.evalId, runId: d.runId },
      vap_evals_runs_diff: { agentId: d.agentId, evalId: d.evalId, runA: d.runId, runB: secondRunId },
      vap_calls_list: { campaignId: d.campaignId },
      vap_calls_get: { callId: d.callId },
      vap_campaigns_list: {},
      vap_campaigns_get: { campaignId: d.campaignId },
      vap_campaigns_analytics: { campaignId: d.campaignId },
      vap_analytics_overview: {},
      vap_contact_lists_list: {},
      vap_contact_lists_get: { listId: d.listId },
      vap_import_jobs_list: {},
      vap_import_jobs_get: { jobId: d.jobId },
      vap_webhooks_list: {},
      vap_webhooks_get: { webhookId: d.webhookId },
      vap_webhooks_deliveries: { webhookId: d.webhookId },
      vap_events_recent: {},
      vap_events_types: {},
      vap_ascode_diff: { dir: project },
    };
    const reads = tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    expect(Object.keys(args).sort()).toEqual(reads.sort());
    for (const name of reads) {
      const r = await ro.call(name, args[name]).catch((err: Error) => {
        throw new Error(`${name}: ${err.message}`);
      });
      const text = textOf(r);
      expect(r.isError, `${name}: ${text}`).toBeFalsy();
      const env = envelopeOf(r);
      expect(env.dataNotice, name).toBe(DATA_NOTICE);
      expect(env.data, name).toBeTypeOf('object');
      // The text content is the same envelope, for clients that read text only.
      expect(JSON.parse(text), name).toEqual(env);
      expect(forbidden(text), name).toEqual([]);
      expect(forbidden(JSON.stringify(env)), name).toEqual([]);
    }
  });

  it('reads as the verbs do: the call with its analysis flags and transcript, the runs compared with a verdict, the plan', async () => {
    const call = envelopeOf(await ro.call('vap_calls_get', { callId: d.callId })).data;
    expect(call.call.id).toBe(d.callId);
    expect(call.transcript.messages.length).toBeGreaterThan(0);
    expect(call.transcript.messages[0]).toMatchObject({ role: expect.any(String), text: expect.any(String) });
    expect(Array.isArray(call.attention)).toBe(true);

    const diff = envelopeOf(await ro.call('vap_evals_runs_diff', { agentId: d.agentId, evalId: d.evalId, runA: d.runId, runB: secondRunId })).data;
    expect(diff.diff.a.id).toBe(d.runId);
    expect(diff.diff.b.id).toBe(secondRunId);
    expect(diff.verdict).toMatchObject({ passed: true, exitCodeInTheCli: 0 });

    const gated = envelopeOf(
      await ro.call('vap_evals_runs_get', { agentId: d.agentId, evalId: d.evalId, runId: secondRunId, minScore: 1, baseline: 'previous' }),
    ).data;
    expect(gated.outcome.run.status).toBe('completed');
    expect(gated.verdict).toMatchObject({ passed: false, exitCodeInTheCli: 3 });
    expect(gated.outcome.gates[0]).toMatchObject({ gate: '--min-score 1', passed: false });
    expect(gated.outcome.results[0].transcript).toBeUndefined();

    const plan = envelopeOf(await ro.call('vap_ascode_diff', { dir: project })).data;
    expect(plan.plan).toMatchObject({
      profile: 'default',
      changes: false,
      resources: [{ kind: 'agent', key: 'front-desk', action: 'unchanged', id: desk.id }],
    });
  });

  it('pages a listing with cursors that carry its filters', async () => {
    const first = envelopeOf(await ro.call('vap_agents_list', { limit: 1 }));
    expect(first.data.agents).toHaveLength(1);
    expect(first.nextCursor).toBeTypeOf('string');
    const second = envelopeOf(await ro.call('vap_agents_list', { limit: 1, cursor: first.nextCursor }));
    expect(second.data.agents).toHaveLength(1);
    expect(second.data.agents[0].id).not.toBe(first.data.agents[0].id);
    expect(second.nextCursor).toBeUndefined();
    const other = await ro.call('vap_agents_list', { cursor: first.nextCursor, search: 'desk' });
    expect(other.isError).toBe(true);
    expect(textOf(other)).toContain('the cursor continues a listing with search not set');
    const foreign = await ro.call('vap_calls_list', { cursor: first.nextCursor });
    expect(textOf(foreign)).toContain('that cursor belongs to vap_agents_list');
  });

  it("gives the organization's newest events, and those after an event, page by page", async () => {
    const newest = envelopeOf(await ro.call('vap_events_recent', { limit: 3 })).data;
    expect(newest.events).toHaveLength(3);
    const ids = newest.events.map((e: { id: string }) => Number(e.id));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(newest.lastEventId).toBe(newest.events[2].id);
    expect(newest.events[0].envelope).toMatchObject({ type: newest.events[0].type, occurredAt: expect.any(String) });

    const after = envelopeOf(await ro.call('vap_events_recent', { afterEventId: newest.events[0].id, limit: 1 }));
    expect(after.data.events.map((e: { id: string }) => e.id)).toEqual([newest.events[1].id]);
    const next = envelopeOf(await ro.call('vap_events_recent', { cursor: after.nextCursor, limit: 1 }));
    expect(next.data.events.map((e: { id: string }) => e.id)).toEqual([newest.events[2].id]);
  });

  it('refuses a write without --allow-writes, saying so, and changes nothing', async () => {
    const before = await versionsOf(desk.id);
    const r = await ro.call('vap_agents_rollback', { agentId: desk.id, version: 1, reason: 'v2 greets too long', confirm: desk.id });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^vap_agents_rollback was refused: this server is read-only.*vap mcp --allow-writes.*Nothing was changed\.$/s);
    expect(await versionsOf(desk.id)).toEqual(before);
  });
});

describe('vap mcp --allow-writes', () => {
  let rw: McpSession;
  beforeAll(async () => {
    rw = await connectStdio(emu, ['--allow-writes']);
  });
  afterAll(async () => {
    await rw?.close();
  });

  it('still refuses a destructive write without confirm, or with another id', async () => {
    const before = await versionsOf(desk.id);
    const none = await rw.call('vap_agents_rollback', { agentId: desk.id, version: 1, reason: 'v2 greets too long' });
    expect(none.isError).toBe(true);
    expect(textOf(none)).toBe(
      `vap_agents_rollback was refused: it changes agent "${desk.id}", and no confirm was given. Pass confirm equal to that id to confirm the change (after the user agreed to it). Nothing was changed.`,
    );
    const wrong = await rw.call('vap_agents_rollback', { agentId: desk.id, version: 1, reason: 'v2 greets too long', confirm: d.agentId });
    expect(textOf(wrong)).toContain(`and confirm was "${d.agentId}"`);
    expect(await versionsOf(desk.id)).toEqual(before);
  });

  it('with confirm, rolls the agent back: a new version, the history kept, and how to undo it', async () => {
    const r = envelopeOf(await rw.call('vap_agents_rollback', { agentId: desk.id, version: 1, reason: 'v2 greets too long', confirm: desk.id }));
    expect(r.data).toEqual({ agentId: desk.id, previousVersion: 2, restored: 1, currentVersion: 3 });
    expect(r.undo).toContain(`call vap_agents_rollback with agentId ${desk.id}, version 2`);
    const history = await versionsOf(desk.id);
    expect(history.currentVersion).toBe(3);
    expect(history.versions.map((v) => v.versionNumber)).toEqual([3, 2, 1]);
    expect(history.versions[0]).toMatchObject({ rolledBackTo: 1, reason: 'v2 greets too long' });
    // The tool reads the same history.
    const listed = envelopeOf(await rw.call('vap_agents_versions', { agentId: desk.id })).data;
    expect(listed.currentVersion).toBe(3);
    expect(listed.versions[0]).toMatchObject({ versionNumber: 3, rolledBackTo: 1, reason: 'v2 greets too long' });
    expect((await ok('GET', `/api/v1/agents/${desk.id}`)).instructions).toBe('Greet callers.');
  });

  it('changes an agent, its voice and its tools, each result saying what it was before', async () => {
    const a = await ok<{ id: string }>('POST', '/api/v1/agents', { name: 'Desk two', instructions: 'Take messages.', engine: 'realtime', variables: [] });
    const updated = envelopeOf(
      await rw.call('vap_agents_update', { agentId: a.id, instructions: 'Take messages and spell names back.', reason: 'names were misheard', confirm: a.id }),
    );
    expect(updated.data).toEqual({ agentId: a.id, previousVersion: 1, currentVersion: 2, previous: { instructions: 'Take messages.' } });
    expect(updated.undo).toContain(`call vap_agents_rollback with agentId ${a.id}, version 1`);

    const voices = envelopeOf(await rw.call('vap_voices_list', { language: 'es' })).data.voices;
    const voiced = envelopeOf(await rw.call('vap_agents_voice', { agentId: a.id, voiceId: voices[0].id, language: voices[0].language, confirm: a.id }));
    expect(voiced.data.voice).toMatchObject({ voiceId: voices[0].id, language: voices[0].language });
    expect(voiced.data.previous).toMatchObject({ voiceId: expect.any(String) });

    const tools = (await emu.control<{ orgs: Array<{ org: string; tools: Array<{ id: string }> }> }>('GET', '/tools?org=acme')).orgs[0]!.tools;
    const tooled = envelopeOf(await rw.call('vap_agents_tools', { agentId: a.id, toolIds: [tools[0]!.id], confirm: a.id }));
    expect(tooled.data).toMatchObject({ agentId: a.id, previous: [], tools: [{ id: tools[0]!.id }] });
  });

  it('pauses and starts a campaign, and rotates a webhook secret (returned once, or written to a file)', async () => {
    expect(envelopeOf(await rw.call('vap_campaigns_pause', { campaignId: d.campaignId, confirm: d.campaignId })).data.campaign.status).toBe('paused');
    const started = envelopeOf(await rw.call('vap_campaigns_start', { campaignId: d.campaignId, confirm: d.campaignId }));
    expect(started.data.campaign.status).toBe('active');
    expect(started.undo).toContain('vap_campaigns_pause');

    const rotated = envelopeOf(await rw.call('vap_webhooks_rotate_secret', { webhookId: d.webhookId, confirm: d.webhookId }));
    expect(rotated.data.endpoint.secret).toMatch(/^whsec_/);
    const file = join(mkdtempSync(join(tmpdir(), 'vap-mcp-secret-')), 'secret');
    const kept = envelopeOf(await rw.call('vap_webhooks_rotate_secret', { webhookId: d.webhookId, secretFile: file, confirm: d.webhookId }));
    const secret = readFileSync(file, 'utf8').trim();
    expect(secret).toMatch(/^whsec_.{20,}/);
    expect(JSON.stringify(kept)).not.toContain(secret);
    expect(kept.data.endpoint).toEqual({ id: d.webhookId, secretPrefix: expect.any(String) });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('runs an eval suite as `vap evals run --wait` does: its gates, its baseline, its exit as a verdict', async () => {
    const passed = envelopeOf(await rw.call('vap_evals_run', { agentId: d.agentId, evalId: d.evalId, minScore: 0, baseline: 'previous' }));
    expect(passed.data.verdict).toEqual({ passed: true, exitCodeInTheCli: 0 });
    expect(passed.data.outcome.run.status).toBe('completed');
    expect(passed.data.outcome.gates).toEqual([
      expect.objectContaining({ gate: '--min-score 0', passed: true }),
      expect.objectContaining({ gate: '--allow-failed-iterations (default: fewer than 20%)', passed: true }),
    ]);
    expect(passed.data.outcome.baseline).toMatchObject({ spec: 'previous' });
    expect(passed.data.log.join('\n')).toMatch(/Started run #\d+/);

    // A client that asks for progress hears the run's progress lines as it goes.
    const progress: string[] = [];
    const below = envelopeOf(
      (await rw.client.callTool({ name: 'vap_evals_run', arguments: { agentId: d.agentId, evalId: d.evalId, minScore: 1 } }, undefined, {
        onprogress: (p) => progress.push(p.message ?? ''),
      })) as CallToolResult,
    );
    expect(below.data.verdict).toMatchObject({ passed: false, exitCodeInTheCli: 3 });
    // What the run will spend comes first, then the run.
    expect(progress[0]).toMatch(/^Calls: \d+ calls? \(\d+ scenarios? × \d+ iterations?\)/);
    expect(progress[1]).toMatch(/^Started run #\d+ \(run_\w+\)/);
    expect(progress.some((l) => /^run #\d+ \(run_\w+\) (pending|running|completed)/.test(l))).toBe(true);

    const started = envelopeOf(await rw.call('vap_evals_run', { agentId: d.agentId, evalId: d.evalId, wait: false }));
    expect(started.data.started).toMatchObject({ id: expect.any(String), status: 'pending' });

    const refused = await rw.call('vap_evals_run', { agentId: d.agentId, evalId: d.evalId, wait: false, minScore: 0.5 });
    expect(textOf(refused)).toContain('the gates and the baseline need wait');

    await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId: d.evalId });
    const held = envelopeOf(await rw.call('vap_evals_run', { agentId: d.agentId, evalId: d.evalId, timeoutSeconds: 1 }));
    expect(held.data.verdict).toMatchObject({ passed: false, exitCodeInTheCli: 124 });
    expect(held.notes).toContain('The wait ran out; the run goes on. Read it later with vap_evals_runs_get (with the same gates to gate it).');
    const runs = (await ok<{ runs: Array<{ id: string; status: string }> }>('GET', `/api/v1/agents/${d.agentId}/evals/${d.evalId}/runs`)).runs;
    await emu.control('POST', `/evals/runs/${runs[0]!.id}/release`);
  });

  it('a write that is not destructive needs no confirm', async () => {
    const r = envelopeOf(await rw.call('vap_agents_create', { name: 'Made by an assistant', instructions: 'Take messages.', engine: 'pipeline' }));
    expect(r.data.agent).toMatchObject({ name: 'Made by an assistant', currentVersion: 1 });
    expect(r.undo).toContain('vap agents delete');
  });
});

describe('results over the stated size', () => {
  let small: McpSession;
  /** A size the call's facts and analysis fit in, but not its whole transcript. */
  let limit: number;
  beforeAll(async () => {
    const full = textOf(await ro.call('vap_calls_get', { callId: d.callId })).length;
    limit = full - 300;
    small = await connectStdio(emu, ['--max-result', String(limit)]);
  });
  afterAll(async () => {
    await small?.close();
  });

  it('a transcript is cut to the size, with the argument that reads the rest', async () => {
    const r = await small.call('vap_calls_get', { callId: d.callId });
    expect(textOf(r).length).toBeLessThanOrEqual(limit);
    const env = envelopeOf(r);
    const shown = env.data.transcript.messages.length;
    expect(env.cut).toMatchObject({ limitChars: limit, shown, rest: expect.stringContaining(`transcriptFrom ${shown}`) });
    const next = envelopeOf(await small.call('vap_calls_get', { callId: d.callId, transcriptFrom: shown }));
    expect(next.data.transcript.from).toBe(shown);
    expect(next.data.transcript.messages[0].ordinal).toBe(shown);
  });

  it('a long text is cut, saying where the whole is', async () => {
    const long = await ok<{ id: string }>('POST', '/api/v1/agents', {
      name: 'Long',
      instructions: 'Say hello. '.repeat(1000),
      engine: 'realtime',
      variables: [],
    });
    const r = await small.call('vap_agents_get', { agentId: long.id });
    expect(textOf(r).length).toBeLessThanOrEqual(limit);
    const env = envelopeOf(r);
    expect(env.cut).toMatchObject({ limitChars: limit, textsCutAt: expect.any(Number), rest: `read the whole agent as the resource vap://agents/${long.id}` });
    expect(env.data.agent.instructions).toMatch(/… \[cut: \d+ more characters\]$/);
  });

  it('a listing shows what fits and its cursor goes on from there', async () => {
    const seeded = await emu.control<{ campaignId: string }>('POST', '/calls/seed', { count: 60 });
    const first = envelopeOf(await small.call('vap_calls_list', { campaignId: seeded.campaignId, limit: 60 }));
    expect(JSON.stringify(first).length).toBeLessThanOrEqual(limit);
    const shown = first.data.calls.length;
    expect(first.cut).toEqual({ limitChars: limit, shown, of: 60, rest: 'the rest follows: call vap_calls_list again with cursor = nextCursor' });
    const second = envelopeOf(await small.call('vap_calls_list', { campaignId: seeded.campaignId, limit: 60, cursor: first.nextCursor }));
    // The next call starts right after the last one shown.
    const all = await ok<{ calls: Array<{ id: string }> }>('GET', `/api/v1/calls?campaignId=${seeded.campaignId}&pageSize=100`);
    expect(second.data.calls[0].id).toBe(all.calls[shown]!.id);
  });
});
