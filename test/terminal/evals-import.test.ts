import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

// The import wizard in a real terminal: every step driven with keystrokes (arrows, space,
// enter, typed filters), then the scenarios it created checked over HTTP.

let emu: TestEmulator;
let agent: string;
let scratch: string;

const DOWN = 'Down';
const UP = 'Up';
const SPACE = 'Space';
const ENTER = 'Enter';

/** The call rows (◯ or ◉) drawn under the last heading that starts with `heading`. */
function rowsUnder(screen: string, heading: string): number {
  const after = screen.split(heading).pop()!.split('\n').slice(1);
  let n = 0;
  for (const line of after) {
    if (!/^[ ❯][◯◉] /.test(line)) break;
    n++;
  }
  return n;
}

async function post<T = any>(path: string, body: unknown): Promise<T> {
  const r = await emu.api<{ data: T }>('POST', path, body);
  expect(r.status, path).toBeLessThan(300);
  return r.body.data;
}
const get = async <T = any>(path: string): Promise<T> => (await emu.api<{ data: T }>('GET', path)).body.data;

describe.skipIf(!hasTmux())('vap evals import in a real terminal (tmux)', () => {
  beforeAll(async () => {
    assertBuilt();
    // Triage takes 1.5 simulated s per call: at this scale a batch of one takes 150 ms, time enough for a Ctrl-C.
    emu = await startTestEmulator({ timeScale: 10 });
    await post('/api/v1/agents', { name: 'Front desk', instructions: 'Greet callers.', engine: 'realtime', variables: [] });
    agent = (
      await post<{ id: string }>('/api/v1/agents', { name: 'Billing line', instructions: 'Help callers with bills.', engine: 'realtime', variables: [] })
    ).id;
    scratch = (await post<{ id: string }>(`/api/v1/agents/${agent}/evals`, { name: 'Scratch', iterationsPerScenario: 1 })).id;
  });
  afterAll(async () => {
    await emu?.close();
  });

  const start = (args = '') =>
    new TmuxSession(`node ${shellQuote(BIN)} evals import ${args}`, {
      env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1', TERM: 'xterm-256color' },
      height: 50,
    });

  it('walks every step with keystrokes and creates the scenarios ticked', async () => {
    const sources = await get<{
      outboundCampaigns: Array<{ id: string; name: string; callCount: number }>;
      inboundCampaigns: Array<{ id: string; name: string; callCount: number }>;
    }>(`/api/v1/agents/${agent}/evals/${scratch}/imports/sources`);
    const inbound = sources.inboundCampaigns[0]!;
    const skip = sources.outboundCampaigns.length; // the list shows outbound campaigns first
    const candidates = await get<{ calls: Array<{ id: string }>; total: number }>(
      `/api/v1/agents/${agent}/evals/${scratch}/imports/candidates?sourceType=campaign&sourceId=${inbound.id}&minDuration=30&pageSize=100`,
    );
    expect(candidates.total).toBeGreaterThan(10);
    const c = candidates.calls.map((x) => x.id);

    const tty = start('--page-size 5');
    try {
      await tty.waitFor(/Agent/);
      tty.sendKeys(DOWN);
      await tty.waitFor(/❯ Billing line/);
      tty.sendKeys(ENTER);
      await tty.waitFor(/Eval suite/);
      tty.sendKeys(DOWN, ENTER); // past "Scratch" to "+ Create a new suite"
      await tty.waitFor(/Name of the new suite/);
      tty.sendKeys('-l', 'From real calls');
      tty.sendKeys(ENTER);

      let screen = await tty.waitFor(/Import calls from/);
      expect(screen).toContain(`${inbound.name}`);
      expect(screen).toMatch(new RegExp(`${inbound.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+${inbound.callCount} calls`));
      for (let i = 0; i < skip; i++) tty.sendKeys(DOWN);
      await tty.waitFor(new RegExp(`❯ Inbound campaign\\s+${inbound.name}`));
      tty.sendKeys(ENTER);

      await tty.waitFor(/Calls from/);
      tty.sendKeys(ENTER); // any start date
      await tty.waitFor(/Calls to/);
      tty.sendKeys(ENTER);
      await tty.waitFor(/Minimum duration/);
      tty.sendKeys('-l', '30');
      tty.sendKeys(ENTER);
      await tty.waitFor(/Direction/);
      tty.sendKeys(ENTER); // any
      await tty.waitFor(/Text search/);
      tty.sendKeys(ENTER);

      // Page 1: tick the first two calls; the heading counts them as they are ticked, and shows every row it announces.
      screen = await tty.waitFor(new RegExp(`Calls 1–5 of ${candidates.total} \\(page 1/\\d+, 0 selected`));
      expect(rowsUnder(screen, 'Calls 1–5 of')).toBe(5);
      tty.sendKeys(SPACE);
      await tty.waitFor(/Calls 1–5 of .*\(page 1\/\d+, 1 selected/);
      tty.sendKeys(DOWN, SPACE);
      await tty.waitFor(/Calls 1–5 of .*\(page 1\/\d+, 2 selected/);
      tty.sendKeys(ENTER);
      await tty.waitFor(/Import the 2 selected calls/);
      tty.sendKeys(ENTER); // the cursor starts on "Next page"
      // Page 2: tick the first call; then back to page 1, where the ticks are kept.
      await tty.waitFor(new RegExp(`Calls 6–10 of ${candidates.total} \\(page 2/.*2 selected`));
      tty.sendKeys(SPACE);
      await tty.waitFor(/Calls 6–10 of .*\(page 2\/\d+, 3 selected/);
      tty.sendKeys(ENTER);
      await tty.waitFor(/Import the 3 selected calls/);
      tty.sendKeys(DOWN, ENTER); // "Next page" → "Previous page"
      screen = await tty.waitFor(/Calls 1–5 of .*3 selected/);
      expect(
        (
          screen
            .split(/Calls 1–5 of/)
            .pop()!
            .match(/◉/g) ?? []
        ).length,
      ).toBe(2);
      tty.sendKeys(ENTER);
      await tty.waitFor(/Import the 3 selected calls/);
      tty.sendKeys(UP, ENTER); // "Next page" → "Import the 3 selected calls"

      screen = await tty.waitFor(/Create scenarios from these calls/, 30_000);
      expect(screen).toMatch(/Triage .* 3\/3 calls/);
      expect(screen).toMatch(/summary: /);
      expect(screen).toMatch(/scenario: /);
      // All ticked by default; untick the first.
      tty.sendKeys(SPACE, ENTER);
      screen = await tty.waitFor(/Created 2 scenarios/);
      expect(await tty.exitCode()).toBe(0);

      const suites = await get<{ evals: Array<{ id: string; name: string }> }>(`/api/v1/agents/${agent}/evals`);
      const made = suites.evals.find((s) => s.name === 'From real calls');
      expect(made).toBeDefined();
      const scenarios = (
        await get<{ scenarios: Array<{ sourceCallId: string; isAutoGenerated: boolean }> }>(`/api/v1/agents/${agent}/evals/${made!.id}/scenarios`)
      ).scenarios;
      expect(scenarios).toHaveLength(2);
      for (const s of scenarios) expect([c[0], c[1], c[5]]).toContain(s.sourceCallId);
      expect(scenarios.every((s) => s.isAutoGenerated)).toBe(true);
      const imports = (await get<{ imports: Array<{ totalCalls: number; status: string }> }>(`/api/v1/agents/${agent}/evals/${made!.id}/imports`)).imports;
      expect(imports).toMatchObject([{ totalCalls: 3, status: 'triaged' }]);
    } finally {
      tty.kill();
    }
  }, 90_000);

  it('on a short terminal, pages hold the rows that fit, and the announced range is the rows shown', async () => {
    const tty = new TmuxSession(
      `node ${shellQuote(BIN)} evals import --agent ${agent} --eval ${scratch} --source-type call-center --page-size 50 --min-duration 0 --direction any --search ''`,
      {
        env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, NO_COLOR: '1', TERM: 'xterm-256color' },
        height: 20,
      },
    );
    try {
      await tty.waitFor(/Import calls from/);
      tty.sendKeys(ENTER);
      const screen = await tty.waitFor(/Calls 1–\d+ of \d+ \(page 1\//);
      const [, last] = /Calls 1–(\d+) of/.exec(screen)!;
      // 20 rows: the heading, the help line and the answers above leave 12 for calls.
      expect(Number(last)).toBe(12);
      expect(rowsUnder(screen, 'Calls 1–')).toBe(12);
      tty.sendKeys('C-c');
      expect(await tty.exitCode()).toBe(130);
    } finally {
      tty.kill();
    }
  });

  it('a suite created in the wizard is removed again when the wizard stops before the import', async () => {
    const named = 'Abandoned suite';
    const tty = start(`--agent ${agent}`);
    try {
      await tty.waitFor(/Eval suite/);
      tty.sendKeys(UP, ENTER); // the last choice: "+ Create a new suite"
      await tty.waitFor(/Name of the new suite/);
      tty.sendKeys('-l', named);
      tty.sendKeys(ENTER);
      await tty.waitFor(/Created suite Abandoned suite \(ev_\w+\); it is removed again if the wizard stops before the calls are\s+imported/);
      await tty.waitFor(/Import calls from/);
      // While it exists, the suite is there; Ctrl-C at the source step stops the wizard.
      expect((await get<{ evals: Array<{ name: string }> }>(`/api/v1/agents/${agent}/evals`)).evals.map((e) => e.name)).toContain(named);
      tty.sendKeys('C-c');
      const screen = await tty.waitFor(/\[exit \d+\]/);
      expect(screen).toMatch(/Removed suite Abandoned suite \(ev_\w+\), created for this import: nothing was imported/);
      expect(await tty.exitCode()).toBe(130);
    } finally {
      tty.kill();
    }
    expect((await get<{ evals: Array<{ name: string }> }>(`/api/v1/agents/${agent}/evals`)).evals.map((e) => e.name)).not.toContain(named);
  });

  it('is Ctrl-C safe during triage, and offers to resume the import when run again', async () => {
    const suite = (await post<{ id: string }>(`/api/v1/agents/${agent}/evals`, { name: 'Resumed', iterationsPerScenario: 1 })).id;
    const src = (await get<{ callCenters: Array<{ id: string; callCount: number }> }>(`/api/v1/agents/${agent}/evals/${suite}/imports/sources`))
      .callCenters[0]!;
    const first = start(`--agent ${agent} --eval ${suite} --source ${src.id} --all-candidates --batch-size 1 --create all`);
    try {
      await first.waitFor(/Triage .* [1-9]\d*\/\d+ calls/);
      first.sendKeys('C-c');
      const screen = await first.waitFor(/\[exit \d+\]/);
      expect(screen).toMatch(/resume/);
      expect(await first.exitCode()).toBe(130);
    } finally {
      first.kill();
    }
    const [imp] = (await get<{ imports: Array<{ id: string; triagedCalls: number; totalCalls: number }> }>(`/api/v1/agents/${agent}/evals/${suite}/imports`))
      .imports;
    expect(imp!.triagedCalls).toBeLessThan(imp!.totalCalls);

    const again = start(`--agent ${agent} --eval ${suite}`);
    try {
      await again.waitFor(new RegExp(`❯ Resume ${imp!.id}`));
      again.sendKeys(ENTER);
      await again.waitFor(/Create scenarios from these calls/, 60_000);
      again.sendKeys(ENTER);
      await again.waitFor(new RegExp(`Created ${imp!.totalCalls} scenarios`));
      expect(await again.exitCode()).toBe(0);
    } finally {
      again.kill();
    }
    const scenarios = (await get<{ scenarios: unknown[] }>(`/api/v1/agents/${agent}/evals/${suite}/scenarios`)).scenarios;
    expect(scenarios).toHaveLength(imp!.totalCalls);
  }, 120_000);
});
