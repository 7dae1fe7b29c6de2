import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createContext } from '../../src/context.js';
import { ProgressBar } from '../../src/contacts/progress.js';
import { isAccessible } from '../../src/ui/accessible.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// VAP_ACCESSIBLE=1 (or ACCESSIBLE=1) on a terminal: nothing is drawn in place. Spinners,
// progress bars and watch screens become plain lines: no carriage return, no cursor movement
// or line erasing (no ESC at all with NO_COLOR), each line written once.

let emu: TestEmulator;
let dir: string;
let agentId: string;

const ACCESSIBLE = { VAP_ACCESSIBLE: '1' };
const vap = (argv: string[], opts: RunOptions = {}) => runCli(argv, { ...opts, env: { ...cliEnv(emu.url, ORG_A.apiKey), ...opts.env } });

/** No redraw in the bytes: no CR, no ESC (colour is off in these runs, so any ESC would be cursor work). */
function expectPlain(text: string): void {
  expect(text).not.toContain('\r');
  expect(text).not.toContain('\x1b');
}

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-accessible-'));
  agentId = (await emu.api('POST', '/api/v1/agents', { name: 'Reception', engine: 'realtime', instructions: 'Greet callers.' })).body.data.id;
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('VAP_ACCESSIBLE', () => {
  it('is on for VAP_ACCESSIBLE or ACCESSIBLE set to anything but 0/false/no/off', () => {
    expect(isAccessible({})).toBe(false);
    expect(isAccessible({ VAP_ACCESSIBLE: '1' })).toBe(true);
    expect(isAccessible({ ACCESSIBLE: '1' })).toBe(true);
    expect(isAccessible({ ACCESSIBLE: 'true' })).toBe(true);
    for (const off of ['', '0', 'false', 'no', 'OFF']) expect(isAccessible({ VAP_ACCESSIBLE: off }), off).toBe(false);
  });

  it('a spinner is its text once and its outcome as a line of its own', async () => {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (c: Buffer) => (err += c.toString()));
    const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr, stdinIsTTY: true, stdoutIsTTY: true, stderrIsTTY: true };
    const ctx = createContext(io, { NO_COLOR: '1', ACCESSIBLE: '1' }, {}, new AbortController().signal);
    const s = await ctx.spinner('import job job_1: pending');
    s.text('import job job_1: processing 10/100');
    s.text('import job job_1: processing 50/100');
    s.succeed('import job job_1: completed');
    expect(err).toBe('import job job_1: pending\n✓ import job job_1: completed\n');
  });

  it('the contacts import bar becomes a line per tenth of the rows done, and one at 100% when all are', () => {
    vi.useFakeTimers();
    try {
      const stream = new PassThrough();
      let out = '';
      stream.on('data', (c: Buffer) => (out += c.toString()));
      const bar = new ProgressBar(stream, true, true);
      for (const done of [500, 1200, 1500, 3100, 10_000]) {
        bar.update({ done, total: 10_000, exact: false, sent: done });
        vi.advanceTimersByTime(600);
      }
      bar.log('row 7, field phone: "x" is not in E.164 form');
      bar.finish({ done: 10_000, total: 10_000, exact: true, sent: 10_000 });
      const lines = out.trim().split('\n');
      expect(lines.map((l) => /^progress: (\d+)%/.exec(l)?.[1] ?? l)).toEqual(['12', '31', '99', 'row 7, field phone: "x" is not in E.164 form', '100']);
      expect(lines[0]).toMatch(/^progress: 12% {2}1,200 of ~10,000 rows {2}1,200 sent {2}[\d,]+ rows\/s {2}ETA /);
      expect(lines[4]).toMatch(/^progress: 100% {2}10,000 of 10,000 rows {2}10,000 sent {2}[\d,]+ rows\/s$/);
      expectPlain(out);
    } finally {
      vi.useRealTimers();
    }
  });

  it('contacts import on a terminal writes no redraw', async () => {
    const list = (
      await emu.api('POST', '/api/v1/contact-lists', {
        name: 'Leads',
        schema: {
          fields: [
            { name: 'name', type: 'string', required: true },
            { name: 'phone', type: 'phone', required: true },
          ],
        },
      })
    ).body.data.id;
    const csv = join(dir, 'leads.csv');
    writeFileSync(csv, `name,phone\n${Array.from({ length: 3000 }, (_, i) => `Person ${i},+1415555${String(i).padStart(4, '0')}`).join('\n')}\n`);
    const r = await vap(['contacts', 'import', list, csv, '--dry-run'], { tty: true, env: ACCESSIBLE });
    expect(r.code).toBe(0);
    expectPlain(r.stderr);
  });

  it('evals run --wait: a line per status change instead of the bar', async () => {
    const evalId = (await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: 'Suite', iterationsPerScenario: 2 })).body.data.id;
    await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, {
      name: 'Book',
      persona: 'A parent',
      goal: 'Book a cleaning',
      category: 'happy_path',
    });
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait'], { tty: true, env: ACCESSIBLE });
    expect(r.code).toBe(0);
    expectPlain(r.stderr);
    expect(r.stderr).toMatch(/^run #1 \(run_\w+\) \w+: /m);
    // Without it, the same run on a terminal draws a bar in place.
    const bar = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait'], { tty: true });
    expect(bar.stderr).toContain('\r\x1b[2K');
  });

  it('evals imports triage: a line per batch instead of the bar', async () => {
    const evalId = (await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: 'Imports', iterationsPerScenario: 1 })).body.data.id;
    const sources = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/imports/sources`)).body.data;
    const src = sources.outboundCampaigns[0];
    const cands = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/imports/candidates?sourceType=campaign&sourceId=${src.id}&pageSize=4`)).body
      .data.calls;
    const imp = (
      await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/imports`, {
        sourceType: 'campaign',
        sourceId: src.id,
        callIds: cands.map((c: { id: string }) => c.id),
      })
    ).body.data.id;
    const r = await vap(['evals', 'imports', 'triage', evalId, imp, '--agent', agentId, '--batch-size', '2'], { tty: true, env: ACCESSIBLE });
    expect(r.code).toBe(0);
    expectPlain(r.stderr);
    expect(r.stderr).toContain('triaged 2/4 (+2, 2 remaining)\ntriaged 4/4 (+2, 0 remaining)\n');
  });

  it('the import wizard’s triage too', async () => {
    const evalId = (await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: 'Wizard', iterationsPerScenario: 1 })).body.data.id;
    const src = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/imports/sources`)).body.data.callCenters[0];
    const cands = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/imports/candidates?sourceType=call_center&sourceId=${src.id}&pageSize=3`))
      .body.data.calls;
    const r = await vap(
      [
        'evals',
        'import',
        '--agent',
        agentId,
        '--eval',
        evalId,
        '--source',
        src.id,
        '--calls',
        cands.map((c: { id: string }) => c.id).join(','),
        '--batch-size',
        '1',
        '--create',
        'all',
      ],
      { tty: true, env: ACCESSIBLE },
    );
    expect(r.code).toBe(0);
    expectPlain(r.stderr);
    expect(r.stderr).toContain('triaged 1/3\ntriaged 2/3\ntriaged 3/3\n');
  });
});
