import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

// What the live views write to a pipe, byte for byte, with the ids the platform really uses
// (UUIDs) and text longer than any line: the full ids and the exact times, TSV fields that
// stay one line each, the roles in the API's words, nothing wrapped or shortened for a
// terminal; and --json passes the server's events on as they were, --absolute-times or not.

let emu: TestEmulator;
let env: Record<string, string>;

const LONG =
  'Margaret Hamilton asked not to be called again and said her lawyer would hear about the repeated calls; the agent confirmed the number was removed from the calling list.';
const TEXT = "Hi, is this Margaret? This is Maya from Acme Dental, I'm calling about your appointment next Tuesday at half past three.";

interface Logged {
  id: string;
  type: string;
  organizationId: string;
  callId: string | null;
  occurredAt: string;
  data: Record<string, unknown>;
}

beforeAll(async () => {
  emu = await startTestEmulator();
  env = cliEnv(emu.url, ORG_A.apiKey);
});
afterAll(async () => {
  await emu?.close();
});

async function logged(callId: string): Promise<Logged[]> {
  const { events } = await emu.control<{ events: Logged[] }>('GET', `/events?org=${ORG_A.name}`);
  return events.filter((e) => e.callId === callId);
}

async function oneCall(): Promise<{ callId: string; campaignId: string }> {
  const callId = randomUUID();
  const campaignId = randomUUID();
  const publish = (type: string, data: Record<string, unknown>) => emu.control('POST', '/events', { type, callId, data });
  await publish('call.started', {
    status: 'in_progress',
    direction: 'outbound',
    phoneNumber: '+14155550108',
    calleeName: 'Margaret Hamilton',
    agentId: 'ag_1',
    agentVersion: 3,
    campaignId,
  });
  await publish('call.transcript.updated', { role: 'user', text: TEXT, ordinal: 0, offsetSeconds: 0.4 });
  await publish('call.ended', { status: 'completed', durationSeconds: 113, engine: 'realtime' });
  await publish('call.analysis.completed', {
    summary: LONG,
    overallSentiment: 'negative',
    resolved: false,
    doNotCallRequested: true,
    legalThreatened: true,
    crisisDetected: false,
  });
  return { callId, campaignId };
}

describe('live views piped, byte for byte', () => {
  it('events tail: TSV of id, exact time, type, full call id and the summary (full campaign id, API roles)', async () => {
    const { callId, campaignId } = await oneCall();
    const events = (await logged(callId)).filter((e) => e.type !== 'call.transcript.updated');
    const from = String(Number(events[0]!.id) - 1);
    for (const flags of [[], ['--absolute-times']]) {
      const r = await runCli([...flags, 'events', 'tail', '--last-event-id', from, '--exit-on', 'call.analysis.completed'], { env });
      expect(r.code, r.stderr).toBe(0);
      const [started, ended, analysed] = events;
      expect(r.stdout).toBe(
        [
          `${started!.id}\t${started!.occurredAt}\tcall.started\t${callId}\toutbound to Margaret Hamilton +14155550108 · agent ag_1 v3 · campaign ${campaignId}\n`,
          `${ended!.id}\t${ended!.occurredAt}\tcall.ended\t${callId}\tcompleted after 1m 53s (realtime)\n`,
          // TSV keeps the flags as words (a terminal gives the alerts lines of their own) and cuts a long summary to one bounded field.
          `${analysed!.id}\t${analysed!.occurredAt}\tcall.analysis.completed\t${callId}\tnegative · do not call requested, legal threatened — ${LONG.slice(0, 119)}…\n`,
        ].join(''),
      );
    }
  });

  it('calls tail: TSV with the API’s role word (user), the text whole in the event, and --json as the server sent it', async () => {
    const { callId } = await oneCall();
    const events = await logged(callId);
    const tsv = await runCli(['calls', 'tail', callId], { env });
    expect(tsv.code, tsv.stderr).toBe(0);
    const lines = tsv.stdout.split('\n');
    expect(lines).toHaveLength(events.length + 1);
    const transcript = events.find((e) => e.type === 'call.transcript.updated')!;
    // The call stream's events carry no time of their own (the spec's type, callId, data): an empty field.
    expect(lines[1]).toBe(`${transcript.id}\t\tcall.transcript.updated\t${callId}\tuser: ${TEXT}`);
    const json = await runCli(['--absolute-times', 'calls', 'tail', callId, '--json'], { env });
    expect(
      json.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    ).toEqual(events.map((e) => ({ id: e.id, type: e.type, callId: e.callId, data: e.data })));
    // The end notice goes to stderr, with the full id; a call that is over has nothing to resume.
    expect(json.stderr).toBe(`call ${callId} is over: its analysis is in (4 events); --follow keeps listening\n`);
  });
});
