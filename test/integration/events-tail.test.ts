import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { IO } from '../../src/context.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

/** A CLI run in-process whose output can be watched while it runs, and interrupted (Ctrl-C). */
function startCli(argv: string[], env: Record<string, string>, tty = false) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const io: IO = { stdin: Readable.from([]), stdout, stderr, stdinIsTTY: tty, stdoutIsTTY: tty, stderrIsTTY: tty };
  const ac = new AbortController();
  running.add(ac);
  let exit: number | undefined;
  const done = main(argv, { io, env: { NO_COLOR: '1', ...env }, signal: ac.signal }).then((code) => {
    exit = code;
    return { code, stdout: out, stderr: err };
  });
  return {
    done,
    interrupt: () => ac.abort(new DOMException('interrupted', 'AbortError')),
    stdout: () => out,
    stderr: () => err,
    exited: () => exit !== undefined,
  };
}

async function until(what: string, pred: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Tails still running when a test ends (a failed one) are stopped, so that the next test starts clean. */
const running = new Set<AbortController>();

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; type: string; callId: string | null; data: Record<string, unknown> });

let emu: TestEmulator;
let env: Record<string, string>;

/** Waits until `n` streams are open on the emulator (the tail is connected and live). */
async function streamsOpen(n = 1): Promise<void> {
  await until(`${n} open stream(s)`, async () => (await emu.control<{ open: number }>('GET', '/streams')).open >= n);
}

async function publish(type: string, opts: { callId?: string; data?: Record<string, unknown>; count?: number } = {}): Promise<void> {
  await emu.control('POST', '/events', { type, ...opts });
}

beforeAll(async () => {
  emu = await startTestEmulator();
  env = { ...cliEnv(emu.url, ORG_A.apiKey), VAP_STREAM_MAX_RETRY_MS: '20' };
});

afterAll(async () => {
  await emu?.close();
});

beforeEach(async () => {
  for (const ac of running) ac.abort(new DOMException('interrupted', 'AbortError'));
  running.clear();
  await until('no stream left open', async () => (await emu.control<{ open: number }>('GET', '/streams')).open === 0);
  await emu.control('DELETE', '/streams/drop').catch(() => undefined);
  await emu.control('DELETE', '/streams/stall').catch(() => undefined);
  await emu.control('POST', '/streams/heartbeat', { ms: 15_000 });
  await emu.clearRequests();
});

describe('vap events tail', () => {
  it('loses no event and repeats none under 100 forced drops', async () => {
    const tail = startCli(['events', 'tail', '--json'], env);
    await streamsOpen();
    await emu.control('POST', '/streams/drop', { everyMs: 25 });
    let published = 0;
    // Publish in small bursts while the streams keep being dropped, until 100 reconnections were reported.
    await until(
      '100 reconnections',
      async () => {
        await publish('call.status.updated', { callId: 'call_drops', data: { status: 'ringing', previousStatus: 'initiated' }, count: 5 });
        published += 5;
        await new Promise((r) => setTimeout(r, 15));
        return (tail.stderr().match(/^reconnected after /gm) ?? []).length >= 100;
      },
      120_000,
    );
    await emu.control('DELETE', '/streams/drop');
    await publish('eval.run.completed', { data: { runId: 'run_last' } });
    published += 1;
    await until('every event printed', () => jsonLines(tail.stdout()).length >= published, 30_000).catch((err: Error) => {
      throw new Error(
        `${err.message}: ${jsonLines(tail.stdout()).length} of ${published} printed; stderr ends with:\n${tail.stderr().split('\n').slice(-8).join('\n')}`,
      );
    });
    tail.interrupt();
    const res = await tail.done;
    expect(res.code).toBe(130);
    const events = jsonLines(res.stdout);
    const ids = events.map((e) => Number(e.id));
    expect(new Set(ids).size).toBe(ids.length); // 0 duplicated
    expect(ids.length).toBe(published); // 0 lost
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids[ids.length - 1]! - ids[0]! + 1).toBe(published); // no gap inside
    expect(res.stderr).toMatch(/reconnected after \d+\.\ds, replayed \d+ missed events?/);
    expect(res.stderr).toContain(`resume with: vap --json events tail --last-event-id ${ids[ids.length - 1]}`);
  }, 150_000);

  it('reconnects when the stream goes silent for twice the heartbeat interval', async () => {
    await emu.control('POST', '/streams/heartbeat', { ms: 150 });
    const tail = startCli(['events', 'tail', '--json', '--verbose'], env);
    await streamsOpen();
    await publish('call.started', { callId: 'call_stall', data: { status: 'in_progress' } });
    await until('the first event', () => jsonLines(tail.stdout()).length === 1);
    await emu.control('POST', '/streams/stall');
    await publish('call.ended', { callId: 'call_stall', data: { status: 'completed', durationSeconds: 12, engine: 'realtime' } });
    await until('the stale stream dropped', () => /no data or heartbeat for 0\.3s/.test(tail.stderr()));
    await emu.control('DELETE', '/streams/stall');
    await until('the missed event', () => jsonLines(tail.stdout()).length === 2);
    await until('the gap report', () => /reconnected after \d+\.\ds, replayed \d+ missed event/.test(tail.stderr()));
    tail.interrupt();
    const res = await tail.done;
    expect(res.code).toBe(130);
    expect(jsonLines(res.stdout).map((e) => e.type)).toEqual(['call.started', 'call.ended']);
  });

  it('refuses an unknown type with exit 2 before opening the stream', async () => {
    const res = await runCli(['events', 'tail', '--types', 'call.ended,call.exploded'], { env });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('unknown event type "call.exploded"');
    const paths = (await emu.requests()).map((r) => r.path);
    expect(paths.some((p) => p.startsWith('/api/v1/events/types'))).toBe(true);
    expect(paths.some((p) => /^\/api\/v1\/events(\?|$)/.test(p))).toBe(false);
  });

  it('refuses a stream-only type on the organization stream, pointing at calls tail', async () => {
    const res = await runCli(['events', 'tail', '--types', 'call.transcript.updated'], { env });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('vap calls tail <callId> --types call.transcript.updated');
    expect((await emu.requests()).some((r) => /^\/api\/v1\/events(\?|$)/.test(r.path))).toBe(false);
  });

  it('exits 4 when the key is refused, without retrying', async () => {
    const res = await runCli(['events', 'tail'], { env: { ...env, VAP_API_KEY: 'key_nobody' } });
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/refused the key/);
    expect((await emu.requests()).filter((r) => /^\/api\/v1\/events(\?|$)/.test(r.path))).toHaveLength(1);
  });

  it('--exit-on ends after the first event of that type, and says how to resume', async () => {
    const tail = startCli(['events', 'tail', '--exit-on', 'eval.run.completed', '--json'], env);
    await streamsOpen();
    await publish('call.started', { callId: 'call_x1', data: { status: 'in_progress' } });
    await publish('eval.run.completed', { data: { runId: 'run_1', status: 'completed' } });
    await publish('call.ended', { callId: 'call_x1', data: { status: 'completed' } });
    const res = await tail.done;
    expect(res.code).toBe(0);
    const events = jsonLines(res.stdout);
    expect(events.map((e) => e.type)).toEqual(['call.started', 'eval.run.completed']);
    expect(res.stderr).toContain(`last event id ${events[1]!.id}; resume with: vap --json events tail --last-event-id ${events[1]!.id}`);
  });

  it('--last-event-id replays what came after it', async () => {
    const tail = startCli(['events', 'tail', '--json', '--types', 'campaign.status.updated'], env);
    await streamsOpen();
    await publish('campaign.status.updated', { data: { campaignId: 'cmp_1', status: 'running', previousStatus: 'draft' }, count: 4 });
    await until('4 events', () => jsonLines(tail.stdout()).length === 4);
    tail.interrupt();
    const ids = jsonLines((await tail.done).stdout).map((e) => e.id);
    const res = await runCli(['events', 'tail', '--json', '--last-event-id', ids[1]!, '--types', 'campaign.status.updated', '--timeout', '1s'], { env });
    expect(res.code).toBe(124);
    expect(jsonLines(res.stdout).map((e) => e.id)).toEqual(ids.slice(2));
    expect(res.stderr).toContain(`resumed after event ${ids[1]}: replayed 2 events`);
    expect(res.stderr).toContain(`resume with: vap --json events tail --types campaign.status.updated --last-event-id ${ids[3]}`);
  });

  it('--timeout ends with 124 and the resume hint', async () => {
    const res = await runCli(['events', 'tail', '--timeout', '300ms'], { env });
    expect(res.code).toBe(124);
    expect(res.stderr).toMatch(/stopped following the organization's events after 300ms \(--timeout\)/);
    expect(res.stderr).toContain('no event received');
  });

  it('prints TSV when piped without a format, one line per event', async () => {
    const tail = startCli(['events', 'tail', '--exit-on', 'call.ended'], env);
    await streamsOpen();
    await publish('call.ended', { callId: 'call_tsv', data: { status: 'completed', durationSeconds: 75, engine: 'pipeline' } });
    const res = await tail.done;
    expect(res.code).toBe(0);
    const cols = res.stdout.trim().split('\t');
    expect(cols[2]).toBe('call.ended');
    expect(cols[3]).toBe('call_tsv');
    expect(cols[4]).toBe('completed after 1m 15s (pipeline)');
  });
});

describe('vap events types and the terminal view', () => {
  it("events types lists the live catalog with each type's delivery", async () => {
    const res = await runCli(['events', 'types', '--json'], { env });
    expect(res.code).toBe(0);
    const types = JSON.parse(res.stdout) as Array<{ type: string; delivery: string[] }>;
    expect(types.find((t) => t.type === 'call.transcript.updated')?.delivery).toEqual(['stream']);
    expect(types.find((t) => t.type === 'call.analysis.completed')?.delivery).toEqual(['stream', 'webhook']);
  });

  it('on a terminal, one line per event: time, type, call and a summary', async () => {
    const tail = startCli(['events', 'tail', '--exit-on', 'intelligence.speaker.identified'], env, true);
    await streamsOpen();
    await publish('call.started', {
      callId: 'call_tty',
      data: { status: 'in_progress', direction: 'inbound', phoneNumber: '+15550199', calleeName: 'Bo', agentId: 'ag_7', agentVersion: 2 },
    });
    await publish('intelligence.speaker.identified', {
      callId: 'call_tty',
      data: { status: 'identified', name: 'Bo Lind', timesSpokenBefore: 3, source: 'voice_match' },
    });
    const res = await tail.done;
    expect(res.code).toBe(0);
    // 80 columns (no terminal size in-process): a long summary wraps under itself, the columns aligned.
    expect(res.stdout).toBe(
      [
        `${res.stdout.slice(0, 8)}  call.started                    call_tty inbound from Bo +15550199 ·`,
        '                                                   agent ag_7 v2',
        `${res.stdout.split('\n')[2]!.slice(0, 8)}  intelligence.speaker.identified call_tty Bo Lind, spoken 3 times`,
        '                                                   before (voice match)',
        '',
      ].join('\n'),
    );
    expect(res.stdout).toMatch(/^\d\d:\d\d:\d\d  /);
    expect(res.stderr).toContain("Following the organization's events; Ctrl-C to stop");
  });
});

describe('vap calls tail', () => {
  it('shows the call so far, follows it live and ends after call.analysis.completed', async () => {
    const callId = 'call_live_1';
    await publish('call.started', { callId, data: { status: 'in_progress', direction: 'outbound', phoneNumber: '+15550100', calleeName: 'Ana' } });
    const tail = startCli(['calls', 'tail', callId, '--json'], env);
    await until('the history', () => jsonLines(tail.stdout()).length === 1);
    await publish('call.transcript.updated', { callId, data: { role: 'agent', text: 'Hello Ana', ordinal: 1, offsetSeconds: 0.4 } });
    await publish('call.transcript.updated', { callId, data: { role: 'user', text: 'Hi', ordinal: 2, offsetSeconds: 1.9 } });
    await publish('call.ended', { callId, data: { status: 'completed', durationSeconds: 30, engine: 'realtime' } });
    await publish('call.started', { callId: 'call_other', data: { status: 'in_progress' } });
    await publish('call.analysis.completed', { callId, data: { summary: 'Greeted', overallSentiment: 'positive', resolved: true } });
    const res = await tail.done;
    expect(res.code).toBe(0);
    const events = jsonLines(res.stdout);
    expect(events.map((e) => e.type)).toEqual(['call.started', 'call.transcript.updated', 'call.transcript.updated', 'call.ended', 'call.analysis.completed']);
    expect(events.every((e) => e.callId === callId)).toBe(true);
    expect(events[1]!.data).toMatchObject({ role: 'agent', text: 'Hello Ana' });
    // The call is over: nothing more comes, so there is nothing to resume.
    expect(res.stderr).toContain(`call ${callId} is over: its analysis is in`);
    expect(res.stderr).not.toContain('resume with');
  });

  it('keeps the final event for itself when --types leaves it out', async () => {
    const callId = 'call_live_2';
    await publish('call.started', { callId, data: { status: 'in_progress' } });
    const tail = startCli(['calls', 'tail', callId, '--json', '--types', 'call.transcript.updated'], env);
    await streamsOpen();
    await publish('call.transcript.updated', { callId, data: { role: 'agent', text: 'Hi', ordinal: 1, offsetSeconds: 0 } });
    await publish('call.analysis.completed', { callId, data: { summary: 's' } });
    const res = await tail.done;
    expect(res.code).toBe(0);
    expect(jsonLines(res.stdout).map((e) => e.type)).toEqual(['call.transcript.updated']);
  });

  it('Ctrl-C prints the last id and the command that resumes, and exits 130', async () => {
    const callId = 'call_live_3';
    await publish('call.started', { callId, data: { status: 'in_progress' } });
    const tail = startCli(['calls', 'tail', callId, '--follow'], env);
    await until('the history', () => tail.stdout().includes('call.started'));
    tail.interrupt();
    const res = await tail.done;
    expect(res.code).toBe(130);
    expect(res.stderr).toMatch(new RegExp(`last event id \\d+; resume with: vap calls tail ${callId} --follow --last-event-id \\d+`));
  });

  it('an unknown call is an error (exit 1)', async () => {
    const res = await runCli(['calls', 'tail', 'call_nope'], { env });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/HTTP 404/);
  });
});
