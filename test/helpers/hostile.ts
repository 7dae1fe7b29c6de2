import { expect } from 'vitest';
import { safeText, safeTsv } from '../../src/ui/safe-text.js';
import type { TestEmulator } from './emulator.js';

/**
 * One hostile string, put into real data in the emulator and taken through every output
 * path: an OSC title, a screen clear, a 256-colour SGR that vap never uses itself, an OSC 8
 * hyperlink, BEL, CR, BS, DEL, a C1 control (CSI, U+009B) and a right-to-left override.
 */
export const HOSTILE = 'EVIL\x1b]0;pwned\x07\x1b[2J\x1b[38;5;196mRED\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\\r\bX\x7f\u009b31m\u202eTXT';

/** A shorter one for fields of at most 50 characters (tags): still a title, a clear, a colour, DEL, C1 and an override. */
export const HOSTILE_SHORT = 'E\x1b]0;pwned\x07\x1b[2J\x1b[38;5;196mR\r\x7f\u009b\u202eT';

/** How HOSTILE reads once made safe: every control character a visible escape (src/ui/safe-text.ts). */
export const HOSTILE_SHOWN = safeText(HOSTILE);

/** Its TSV form: the data's backslashes doubled too, so that a field reads back unambiguously. */
export const HOSTILE_TSV = safeTsv(HOSTILE);

/** Characters no output of vap may carry from data: C0 but tab and newline, DEL, C1, line separators, bidi overrides and isolates. */
const FORBIDDEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The forbidden characters of a text, each with a little context (for a readable failure). */
export function forbidden(text: string): string[] {
  return [...text.matchAll(FORBIDDEN)].map(
    (m) => `U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index! - 20), m.index! + 10))}`,
  );
}

/** Piped output: not one forbidden character, in stdout or stderr. */
export function expectClean(what: string, out: { stdout: string; stderr: string }): void {
  expect(forbidden(out.stdout), `${what}: stdout`).toEqual([]);
  expect(forbidden(out.stderr), `${what}: stderr`).toEqual([]);
}

/**
 * Output for a terminal: vap's own escape codes are allowed (colours, and the line redraw
 * of its progress bars), nothing else; and the data's own colour (38;5;196, which vap never
 * uses) is never an escape code.
 */
export function expectCleanForTerminal(what: string, text: string): void {
  expect(text, `${what}: the data's colour reached the terminal`).not.toContain('\x1b[38;5;196m');
  const ownCodesRemoved = text.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r\x1b\[2K/g, '');
  expect(forbidden(ownCodesRemoved), what).toEqual([]);
}

async function ok<T = any>(emu: TestEmulator, method: string, path: string, body?: unknown): Promise<T> {
  const r = await emu.api<any>(method, path, body);
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  return (r.body?.data ?? r.body) as T;
}

async function until<T>(what: string, get: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface HostileData {
  agentId: string;
  evalId: string;
  runId: string;
  webhookId: string;
  listId: string;
  jobId: string;
  campaignId: string;
  /** A call placed to a callee named HOSTILE: its transcript and analysis quote the name. */
  callId: string;
  /** A call id of the event log whose events carry HOSTILE (transcript, statuses, summary). */
  eventCallId: string;
}

/**
 * Puts HOSTILE into every kind of data the emulator keeps: an agent (name, description, tag,
 * variable, instructions, a rollback reason), an eval suite, a criterion's name and a
 * scenario (name, persona, goal) with a finished run, a webhook endpoint, a contact list
 * and a contact, an API campaign (name, description) with a call to a callee of that name
 * (so the generated transcript and analysis quote it), and events of the organization and
 * of a call whose payloads carry it.
 */
export async function seedHostile(emu: TestEmulator): Promise<HostileData> {
  const agent = await ok<{ id: string }>(emu, 'POST', '/api/v1/agents', {
    name: HOSTILE,
    instructions: `Greet ${HOSTILE} warmly.`,
    engine: 'realtime',
    variables: [{ name: 'who', description: HOSTILE }],
    description: HOSTILE,
    tags: [HOSTILE_SHORT],
  });
  await ok(emu, 'PATCH', `/api/v1/agents/${agent.id}`, { instructions: `Greet ${HOSTILE} in Spanish.` });
  await ok(emu, 'POST', `/api/v1/agents/${agent.id}/rollback`, { version: 1, reason: HOSTILE });

  const suite = await ok<{ id: string }>(emu, 'POST', `/api/v1/agents/${agent.id}/evals`, {
    name: HOSTILE,
    iterationsPerScenario: 1,
    scoringCriteria: [{ key: 'tone', name: HOSTILE, weight: 1 }],
  });
  await ok(emu, 'POST', `/api/v1/agents/${agent.id}/evals/${suite.id}/scenarios`, { name: HOSTILE, persona: HOSTILE, goal: HOSTILE, category: 'edge_case' });
  const run = await ok<{ id: string }>(emu, 'POST', `/api/v1/agents/${agent.id}/evals/${suite.id}/runs`);
  await until(
    'the eval run',
    () => ok<{ run: { status: string } }>(emu, 'GET', `/api/v1/agents/${agent.id}/evals/${suite.id}/runs/${run.id}`),
    (d) => d.run.status !== 'pending' && d.run.status !== 'running',
  );

  const webhook = await ok<{ id: string }>(emu, 'POST', '/api/v1/webhook-endpoints', { name: HOSTILE, url: 'http://127.0.0.1:9/hook', events: ['call.ended'] });

  const list = await ok<{ id: string }>(emu, 'POST', '/api/v1/contact-lists', {
    name: HOSTILE,
    schema: {
      fields: [
        { name: 'name', type: 'string', required: true },
        { name: 'phone', type: 'phone', required: true },
        { name: 'note', type: 'string' },
      ],
    },
  });
  const job = await ok<{ jobId: string }>(emu, 'POST', `/api/v1/contact-lists/${list.id}/contacts`, {
    contacts: [{ name: HOSTILE, phone: '+14155550101', note: HOSTILE }],
  });
  await until(
    'the import job',
    () => ok<{ status: string }>(emu, 'GET', `/api/v1/import-jobs/${job.jobId}`),
    (j) => j.status === 'completed',
  );

  const campaign = await ok<{ id: string }>(emu, 'POST', '/api/v1/campaigns', {
    name: HOSTILE,
    description: HOSTILE,
    type: 'api',
    direction: 'outbound',
    agentId: agent.id,
  });
  await ok(emu, 'POST', `/api/v1/campaigns/${campaign.id}/start`);
  // Some simulated calls are not answered: a few are placed, and one that was answered (with a transcript) is kept.
  const placed: string[] = [];
  for (let i = 0; i < 6; i++)
    placed.push(
      (await ok<{ id: string }>(emu, 'POST', `/api/v1/campaigns/${campaign.id}/trigger`, { phoneNumber: `+1415555012${i}`, calleeName: HOSTILE })).id,
    );
  const calls = await until(
    'the calls and their analyses',
    () => Promise.all(placed.map((id) => ok<{ id: string; status: string; analysis?: unknown }>(emu, 'GET', `/api/v1/calls/${id}`))),
    // A call that never connected is never analysed; a completed one is, a couple of simulated minutes after it ends.
    (cs) => cs.every((c) => c.status === 'failed' || (c.status === 'completed' && Boolean(c.analysis))),
    30_000,
  );
  const call = calls.find((c) => c.status === 'completed');
  if (!call) throw new Error('none of the simulated calls was answered');

  const eventCallId = 'call_hostile_1';
  const publish = (type: string, callId: string, data: Record<string, unknown>) => emu.control('POST', '/events', { type, callId, data });
  await publish('call.started', HOSTILE, { direction: HOSTILE, calleeName: HOSTILE, phoneNumber: HOSTILE, agentId: HOSTILE, campaignId: HOSTILE });
  await publish('call.started', eventCallId, { direction: 'outbound', calleeName: HOSTILE, phoneNumber: '+15550123', agentId: agent.id, agentVersion: 1 });
  await publish('call.status.updated', eventCallId, { status: HOSTILE, previousStatus: HOSTILE });
  await publish('call.transcript.updated', eventCallId, { role: 'agent', text: `Hello ${HOSTILE}`, ordinal: 0, offsetSeconds: 0.5 });
  await publish('call.transcript.updated', eventCallId, { role: HOSTILE, text: HOSTILE, ordinal: 1, offsetSeconds: 2 });
  await publish('intelligence.speaker.identified', eventCallId, { status: 'identified', name: HOSTILE, source: HOSTILE });
  await publish('call.ended', eventCallId, { status: HOSTILE, durationSeconds: 42, engine: HOSTILE });
  await publish('call.analysis.completed', eventCallId, { overallSentiment: HOSTILE, summary: HOSTILE, resolved: true });
  await publish('eval.run.completed', HOSTILE, { runId: HOSTILE, status: HOSTILE, evalId: HOSTILE, overallScore: 0.5 });

  return {
    agentId: agent.id,
    evalId: suite.id,
    runId: run.id,
    webhookId: webhook.id,
    listId: list.id,
    jobId: job.jobId,
    campaignId: campaign.id,
    callId: call.id,
    eventCallId,
  };
}

/** A CSV whose rows put HOSTILE in values that are rejected (quoted in the error lines) and in ones that are kept. */
export function hostileCsv(): string {
  const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
  return [
    'name,phone,note',
    `${q(HOSTILE)},+14155550102,${q(HOSTILE)}`,
    `${q(HOSTILE)},${q(HOSTILE)},x`,
    `ok,+14155550103,${q(`=HYPERLINK("${HOSTILE}")`)}`,
    '',
  ].join('\n');
}
