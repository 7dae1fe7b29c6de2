// Untrusted text never drives the terminal, in the forms made for a person: every verb
// run as on a terminal (tables, detail views, charts, chats, tails, the run summary,
// progress, success and error lines), with colour on, over emulator data that carries one
// hostile string. Only vap's own escape codes (its colours, the redraw of a progress line)
// may reach the output; the data's come out as visible escapes. The real terminal (pane
// title, screen) is checked under tmux in test/terminal/untrusted-text.test.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { expectCleanForTerminal, HOSTILE, HOSTILE_SHOWN, HOSTILE_SHORT, hostileCsv, seedHostile, type HostileData } from '../helpers/hostile.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let d: HostileData;
let env: Record<string, string | undefined>;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator({ allowLoopbackUrls: true });
  d = await seedHostile(emu);
  dir = mkdtempSync(join(tmpdir(), 'vap-hostile-tty-'));
  // Colour on, as on a terminal: vap's own codes are in the output, next to the data's escaped ones.
  env = { ...cliEnv(emu.url, ORG_A.apiKey, join(dir, 'config')), NO_COLOR: undefined, FORCE_COLOR: '1', COLUMNS: '120' };
}, 60_000);
afterAll(async () => {
  await emu?.close();
});

async function onTerminal(name: string, args: string[], code = 0, opts: { signal?: AbortSignal; columns?: number } = {}): Promise<string> {
  const r = await runCli(args, { env: opts.columns ? { ...env, COLUMNS: String(opts.columns) } : env, tty: true, signal: opts.signal });
  expect(r.code, `${name}: ${r.stderr}`).toBe(code);
  const all = `${r.stdout}${r.stderr}`;
  expectCleanForTerminal(name, all);
  return all;
}

describe('hostile text on a terminal (in-process, colour on)', () => {
  it('tables and detail views show it escaped, with vap’s own colours kept', async () => {
    // [name, argv, whether the view shows a hostile field]
    const cases: Array<[string, string[], boolean?]> = [
      ['agents list', ['agents', 'list']],
      ['agents get', ['agents', 'get', d.agentId]],
      ['agents versions', ['agents', 'versions', d.agentId]],
      ['evals list', ['evals', 'list', '--agent', d.agentId]],
      ['evals get', ['evals', 'get', d.evalId, '--agent', d.agentId]],
      ['evals scenarios list', ['evals', 'scenarios', 'list', d.evalId, '--agent', d.agentId]],
      ['evals runs list', ['evals', 'runs', 'list', d.evalId, '--agent', d.agentId], false],
      ['webhooks list', ['webhooks', 'list']],
      ['webhooks get', ['webhooks', 'get', d.webhookId]],
      ['contact-lists list', ['contact-lists', 'list']],
      ['contact-lists get', ['contact-lists', 'get', d.listId]],
      ['contacts list', ['contacts', 'list', d.listId]],
      ['import-jobs list', ['import-jobs', 'list'], false],
      ['campaigns list', ['campaigns', 'list']],
      ['campaigns get', ['campaigns', 'get', d.campaignId]],
      ['campaigns calls list', ['campaigns', 'calls', 'list', d.campaignId]],
      ['calls list', ['calls', 'list']],
    ];
    for (const [name, args, shows = true] of cases) {
      const out = await onTerminal(name, args);
      expect(out, name).toContain('\x1b[1m'); // vap's bold headers and labels
      if (shows) expect(out, name).toMatch(/EVIL\\e\]0;pwned|E\\e\]0;pwned/);
    }
  }, 60_000);

  it('the analytics screens, the call detail, transcripts and chats, the eval results and run summary', async () => {
    expect(await onTerminal('campaigns analytics', ['campaigns', 'analytics', d.campaignId])).toContain(`Campaign ${HOSTILE_SHOWN}`);
    await onTerminal('campaigns analytics --summary', ['campaigns', 'analytics', d.campaignId, '--summary']);
    await onTerminal('campaigns analytics --realtime', ['campaigns', 'analytics', d.campaignId, '--realtime']);
    await onTerminal('analytics overview', ['analytics', 'overview']);
    const detail = await onTerminal('calls get', ['calls', 'get', d.callId]);
    expect(detail).toContain('EVIL\\e]0;pwned');
    const transcript = await onTerminal('calls transcript', ['calls', 'transcript', d.callId]);
    expect(transcript).toContain('EVIL\\e]0;pwned');
    const results = await onTerminal('evals runs results', ['evals', 'runs', 'results', d.evalId, d.runId, '--agent', d.agentId]);
    expect(results).toContain('EVIL\\e]0;pwned');
    expect(await onTerminal('evals runs get --wait', ['evals', 'runs', 'get', d.runId, '--eval', d.evalId, '--agent', d.agentId, '--wait'])).toContain(
      'EVIL\\e]0;pwned',
    );
    await onTerminal('evals runs diff', ['evals', 'runs', 'diff', d.runId, d.runId, '--eval', d.evalId, '--agent', d.agentId]);
  }, 60_000);

  it('events tail, calls tail (chat and status lines), and webhooks listen lines', async () => {
    // Wide enough that no line wraps (the hostile text whole on one line); at 80 columns it wraps, escaped all the same.
    const org = await onTerminal('events tail', ['events', 'tail', '--last-event-id', '0', '--timeout', '1s'], 124, { columns: 1000 });
    expect(org).toContain(`to ${HOSTILE_SHOWN}`);
    await onTerminal('events tail at 80 columns', ['events', 'tail', '--last-event-id', '0', '--timeout', '1s'], 124, { columns: 80 });
    const chat = await onTerminal('calls tail', ['calls', 'tail', d.eventCallId], 0, { columns: 1000 });
    await onTerminal('calls tail at 80 columns', ['calls', 'tail', d.eventCallId], 0, { columns: 80 });
    expect(chat).toContain(`Hello ${HOSTILE_SHOWN}`);
    expect(chat).toContain(`${HOSTILE_SHOWN.slice(0, 12)}`);
    await onTerminal('calls tail (simulated call)', ['calls', 'tail', d.callId]);

    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), 1500);
    try {
      await onTerminal(
        'webhooks listen',
        ['webhooks', 'listen', '--forward-to', 'http://127.0.0.1:9/hook', '--last-event-id', '0', '--max-attempts', '1'],
        130,
        { signal: stop.signal },
      );
    } finally {
      clearTimeout(timer);
    }
  }, 60_000);

  it('success, warning and error lines, prompts refused, progress and rejected rows', async () => {
    expect(await onTerminal('agents update', ['agents', 'update', d.agentId, '--name', HOSTILE])).toContain(`Updated agent ${d.agentId}`);
    expect(
      await onTerminal('an API error echoing the input', ['evals', 'imports', 'candidates', d.evalId, '--agent', d.agentId, '--source', HOSTILE_SHORT], 1),
    ).toContain('E\\e]0;pwned');
    expect(await onTerminal('an id refused', ['campaigns', 'contacts', 'remove', d.campaignId, HOSTILE_SHORT, '--yes'], 2)).toMatch(
      /<contactId\.\.\.> "E\\e\]0;pwned/,
    );
    const file = join(dir, 'hostile.csv');
    writeFileSync(file, hostileCsv());
    const imported = await onTerminal(
      'contacts import',
      ['contacts', 'import', d.listId, file, '--dry-run', '--errors-file', join(dir, 'hostile.errors.csv')],
      1,
    );
    expect(imported).toContain('row 2, field phone: "EVIL\\e]0;pwned');
  }, 60_000);
});
