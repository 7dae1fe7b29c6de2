// Untrusted text never drives the terminal, piped: one hostile string (an OSC title, a
// screen clear, a colour, an OSC 8 hyperlink, BEL, CR, BS, DEL, a C1 control and a
// right-to-left override) is put into real data in the emulator, and every output path
// of the built binary, run as a script would run it (stdout and stderr piped), is checked:
// no byte below 0x20 but tab and newline, no DEL and no C1 control, in stdout or stderr;
// and the data is still there, as visible escapes. --json keeps it byte-exact.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, vap } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { expectClean, HOSTILE, HOSTILE_SHOWN, HOSTILE_TSV, hostileCsv, seedHostile, type HostileData } from '../helpers/hostile.js';
import { testStateDir } from '../helpers/state-dir.js';

let emu: TestEmulator;
let d: HostileData;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator({ allowLoopbackUrls: true });
  d = await seedHostile(emu);
  dir = mkdtempSync(join(tmpdir(), 'vap-hostile-'));
  env = { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, VAP_CONFIG_DIR: join(dir, 'config') };
}, 60_000);
afterAll(async () => {
  await emu?.close();
});

/** Runs each command piped and checks both streams; returns the results by name. */
async function runAll(cases: Array<[name: string, args: string[], code?: number]>): Promise<Map<string, { stdout: string; stderr: string }>> {
  const out = new Map<string, { stdout: string; stderr: string }>();
  // A few at a time: each is a process of its own.
  for (let i = 0; i < cases.length; i += 4) {
    await Promise.all(
      cases.slice(i, i + 4).map(async ([name, args, code = 0]) => {
        const r = await vap(args, { env, timeout: 30_000 });
        expect(r.exitCode, `${name}: ${r.stderr}`).toBe(code);
        expectClean(name, r);
        out.set(name, r);
      }),
    );
  }
  return out;
}

describe('hostile text in every output path, piped (built binary)', () => {
  it('listings (TSV), detail views (field<TAB>value), ids and counts', async () => {
    const r = await runAll([
      ['agents list', ['agents', 'list']],
      ['agents list -q', ['agents', 'list', '-q']],
      ['agents get', ['agents', 'get', d.agentId]],
      ['agents versions', ['agents', 'versions', d.agentId]],
      ['evals list', ['evals', 'list', '--agent', d.agentId]],
      ['evals get', ['evals', 'get', d.evalId, '--agent', d.agentId]],
      ['evals scenarios list', ['evals', 'scenarios', 'list', d.evalId, '--agent', d.agentId]],
      ['evals runs list', ['evals', 'runs', 'list', d.evalId, '--agent', d.agentId]],
      ['evals runs results', ['evals', 'runs', 'results', d.evalId, d.runId, '--agent', d.agentId]],
      ['webhooks list', ['webhooks', 'list']],
      ['webhooks get', ['webhooks', 'get', d.webhookId]],
      ['contact-lists list', ['contact-lists', 'list']],
      ['contact-lists get', ['contact-lists', 'get', d.listId]],
      ['contacts list', ['contacts', 'list', d.listId]],
      ['import-jobs get', ['import-jobs', 'get', d.jobId]],
      ['campaigns list', ['campaigns', 'list']],
      ['campaigns get', ['campaigns', 'get', d.campaignId]],
      ['campaigns analytics', ['campaigns', 'analytics', d.campaignId]],
      ['campaigns calls list', ['campaigns', 'calls', 'list', d.campaignId]],
      ['analytics overview', ['analytics', 'overview']],
      ['calls list', ['calls', 'list']],
      ['calls get', ['calls', 'get', d.callId]],
      ['calls transcript', ['calls', 'transcript', d.callId]],
    ]);
    // The data is shown, escaped, not dropped: a TSV field keeps the data's backslash doubled.
    expect(r.get('agents list')!.stdout).toContain(`\t${HOSTILE_TSV}\t`);
    expect(r.get('agents get')!.stdout).toContain(`name\t${HOSTILE_TSV}\n`);
    expect(r.get('agents versions')!.stdout).toContain(HOSTILE_TSV);
    expect(r.get('evals runs results')!.stdout).toContain(HOSTILE_TSV);
    expect(r.get('webhooks list')!.stdout).toContain(HOSTILE_TSV);
    expect(r.get('contacts list')!.stdout).toContain(HOSTILE_TSV);
    expect(r.get('campaigns get')!.stdout).toContain(HOSTILE_TSV);
    expect(r.get('calls list')!.stdout).toContain(HOSTILE_TSV);
    expect(r.get('calls get')!.stdout).toContain(HOSTILE_TSV);
    expect(r.get('calls transcript')!.stdout).toContain(HOSTILE_TSV);
  }, 120_000);

  it('--json stays byte-exact: the data comes back as it was stored', async () => {
    const r = await vap(['agents', 'get', d.agentId, '--json'], { env });
    expect(r.exitCode).toBe(0);
    const agent = JSON.parse(r.stdout);
    expect(agent.name).toBe(HOSTILE);
    expect(agent.description).toBe(HOSTILE);
    // JSON escapes the C0 controls itself; the rest of the data is passed on as it is.
    expect(r.stdout).toContain('EVIL\\u001b]0;pwned\\u0007');
    const q = await vap(['agents', 'get', d.agentId, '--query', 'name'], { env });
    expect(JSON.parse(q.stdout)).toBe(HOSTILE);
    const nd = await vap(['calls', 'tail', d.eventCallId, '-o', 'ndjson', '--types', 'call.ended', '--exit-on', 'call.ended'], { env });
    expect(JSON.parse(nd.stdout.split('\n')[0]!).data.status).toBe(HOSTILE);
  });

  it('the run summary of `evals runs get --wait`, the tails, and success, warning and error lines', async () => {
    const r = await runAll([
      ['evals runs get --wait (summary)', ['evals', 'runs', 'get', d.runId, '--eval', d.evalId, '--agent', d.agentId, '--wait']],
      ['events tail', ['events', 'tail', '--last-event-id', '0', '--timeout', '2s'], 124],
      ['calls tail (a call of the event log)', ['calls', 'tail', d.eventCallId]],
      ['calls tail (a simulated call)', ['calls', 'tail', d.callId]],
      ['agents update (success line)', ['agents', 'update', d.agentId, '--description', 'calm']],
      ['an API error that echoes the input', ['evals', 'imports', 'candidates', d.evalId, '--agent', d.agentId, '--source', HOSTILE], 1],
      ['an id refused before sending', ['agents', 'get', HOSTILE], 2],
      ["Commander's error for an unknown command", ['agents', HOSTILE], 2],
      ['--verbose request lines', ['agents', 'get', d.agentId, '--verbose']],
    ]);
    // The tables cut long cells: the name's start, escaped.
    expect(r.get('evals runs get --wait (summary)')!.stdout).toContain(HOSTILE_SHOWN.slice(0, 40));
    expect(r.get('events tail')!.stdout).toContain(HOSTILE_TSV);
    expect(r.get('calls tail (a call of the event log)')!.stdout).toContain(HOSTILE_TSV);
    expect(r.get('an API error that echoes the input')!.stderr).toMatch(/^error: .*not found/m);
    // (The client folds white space in the API's message, the CR included, to one space.)
    expect(r.get('an API error that echoes the input')!.stderr).toContain(HOSTILE_SHOWN.split('\\r')[0]);
    const refused = r.get('an id refused before sending')!.stderr;
    expect(refused.startsWith(`error: <agentId> "${HOSTILE_SHOWN}" is not a valid id: it contains `), refused).toBe(true);
    expect(refused).not.toContain('\n');
    expect(r.get("Commander's error for an unknown command")!.stderr).toContain('EVIL\\e]0;pwned');
  }, 120_000);

  it('the rejected rows of an import quote the file safely', async () => {
    const file = join(dir, 'hostile.csv');
    writeFileSync(file, hostileCsv());
    const r = await vap(['contacts', 'import', d.listId, file, '--dry-run', '--errors-file', join(dir, 'hostile.errors.csv')], {
      env: { ...env, VAP_STATE_DIR: testStateDir() },
    });
    expect(r.exitCode, r.stderr).toBe(1);
    expectClean('contacts import', r);
    expect(r.stderr).toContain(`row 2, field phone: "${HOSTILE_SHOWN.slice(0, 20)}`);
    expect(r.stdout).toContain('Dry run of');
  });

  it('webhooks listen: its line per attempt', async () => {
    let hits = 0;
    const receiver: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        hits++;
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as { port: number }).port;
    try {
      const child = execa('node', [BIN, 'webhooks', 'listen', '--forward-to', `http://127.0.0.1:${port}/hook`, '--last-event-id', '0'], {
        reject: false,
        extendEnv: false,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...env },
      });
      const deadline = Date.now() + 20_000;
      while (hits < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGINT');
      const r = await child;
      expect(hits).toBeGreaterThanOrEqual(5);
      expectClean('webhooks listen', { stdout: String(r.stdout), stderr: String(r.stderr) });
      expect(String(r.stdout)).toMatch(/\tcall\.[a-z.]+\t\d+\t200\t\d+\tdelivered\t1\t/);
    } finally {
      receiver.close();
    }
  }, 30_000);
});
