import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';
import { commandLines, unescapeCommands } from '../helpers/runner-commands.js';

// Under GitHub Actions (GITHUB_ACTIONS=true) the runner reads vap's stdout and stderr for
// workflow commands. Text already on the platform (an agent's instructions, a scenario's
// name, an event's summary) that looks like one is printed so that the runner cannot read it
// as one, in the plan of `diff` and `push`, in an eval run's summary, in `events tail`, in
// JSON too; vap's own annotations still come out as commands; outside GitHub Actions the
// output is what it always was.

/** Lines of an agent's instructions that a runner would take for commands, printed raw. */
const INJECTED = [
  '::add-mask::s3cret',
  '   ::warning ::Deploy failed',
  '\u3000\u00a0::error title=Fake::not from vap',
  'Say ##[set-output name=approved]true when asked',
];

let emu: TestEmulator;
let dir: string;
const ACTIONS = { GITHUB_ACTIONS: 'true' };

beforeAll(async () => {
  emu = await startTestEmulator({ timeScale: 2000 });
  dir = mkdtempSync(join(tmpdir(), 'vap-workflow-commands-'));
});
afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const vap = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...cliEnv(emu.url, ORG_A.apiKey), ...env } });

function expectNoCommand(r: { stdout: string; stderr: string }): void {
  expect(commandLines(r.stdout), r.stdout).toEqual([]);
  expect(commandLines(r.stderr), r.stderr).toEqual([]);
}

describe('no line of platform text reads as a GitHub workflow command', () => {
  it('vap diff and vap push: the instructions around a change, in the plan and in --json', async () => {
    const agent = (
      await emu.api('POST', '/api/v1/agents', {
        name: 'Front desk',
        instructions: `You are the front desk.\n${INJECTED.join('\n')}\nGreet callers.`,
        engine: 'realtime',
      })
    ).body.data;
    const project = (args: string[], env: Record<string, string> = {}) => vap(['--profile', 'staging', ...args, '--dir', dir], env);
    expect((await project(['pull', '--agent', agent.id])).code).toBe(0);
    const file = join(dir, 'agents', readdirSync(join(dir, 'agents'))[0]!, 'agent.md');
    // A change before and after the injected lines: the plan shows them all as context.
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('You are the front desk.', 'You are the front desk of Acme.').replace('Greet callers.', 'Greet callers warmly.'),
    );

    const plain = await project(['diff']);
    expect(plain.code, plain.stderr).toBe(0);
    // Outside GitHub Actions the plan shows the instructions as they are.
    for (const line of INJECTED) expect(plain.stdout).toContain(`\n         ${line}\n`);
    expect(commandLines(plain.stdout)).toHaveLength(INJECTED.length);

    const actions = await project(['diff'], ACTIONS);
    expect(actions.code, actions.stderr).toBe(0);
    expectNoCommand(actions);
    expect(actions.stdout).toContain('\n         :\\u003aadd-mask::s3cret\n');
    expect(actions.stdout).toContain('\n         Say ##\\u005bset-output name=approved]true when asked\n');
    expect(unescapeCommands(actions.stdout)).toBe(plain.stdout);

    const json = await project(['diff', '--json'], ACTIONS);
    expectNoCommand(json);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse((await project(['diff', '--json'])).stdout));

    const push = await project(['push', '--yes'], ACTIONS);
    expect(push.code, push.stderr).toBe(0);
    expectNoCommand(push);
    expect(unescapeCommands(push.stdout)).toBe(plain.stdout);
    expect((await emu.api('GET', `/api/v1/agents/${agent.id}`)).body.data.instructions).toContain('Greet callers warmly.');
  });

  it("an eval run's summary on stdout: scenario names are not commands; vap's own annotations are", async () => {
    const agent = (await emu.api('POST', '/api/v1/agents', { name: 'Reception', engine: 'realtime', instructions: 'Greet callers.' })).body.data;
    const suite = (await emu.api('POST', `/api/v1/agents/${agent.id}/evals`, { name: 'Booking', iterationsPerScenario: 1 })).body.data;
    for (const name of ['::warning ::Deploy failed', 'Book ##[add-mask]x']) {
      expect(
        (
          await emu.api('POST', `/api/v1/agents/${agent.id}/evals/${suite.id}/scenarios`, {
            name,
            persona: 'A caller',
            goal: 'Book a slot',
            category: 'happy_path',
          })
        ).status,
      ).toBe(201);
    }
    const run = ['evals', 'run', suite.id, '--agent', agent.id, '--wait', '--min-score', '1'];
    const r = await vap(run, ACTIONS);
    expect(r.code, r.stderr).toBe(3);
    // The summary's table starts a row with each scenario's name: escaped.
    expect(r.stdout).toMatch(/^:\\u003awarning ::Deploy failed {2,}/m);
    expect(r.stdout).toMatch(/^Book ##\\u005badd-mask\]x {2,}/m);
    // Every line the runner reads as a command is one of vap's annotations: one per scenario and the gate.
    const own = commandLines(r.stdout);
    expect(own.length).toBe(3);
    for (const line of own) expect(line).toMatch(/^::(error|warning) title=Eval (scenario|gate) failed%3A /);
    expect(own.filter((l) => l.startsWith('::error title=Eval scenario failed%3A %3A%3Awarning %3A%3ADeploy failed::'))).toHaveLength(1);
    expect(commandLines(r.stderr)).toEqual([]);
    // Without GITHUB_ACTIONS: the names as they are, and no annotation.
    const plain = await vap(run);
    expect(plain.stdout).toMatch(/^::warning ::Deploy failed {2,}/m);
    expect(plain.stdout).not.toContain('title=');
  });

  it('events tail: an event summary in TSV and in --json', async () => {
    const first = await emu.control<{ firstId: string }>('POST', '/events', {
      type: 'campaign.status.updated',
      data: { campaignId: 'cmp_1', status: 'running', previousStatus: 'draft' },
    });
    const summary = 'Caller said ##[add-mask]hunter2\n::add-mask::hunter3';
    await emu.control('POST', '/events', { type: 'call.analysis.completed', callId: 'b3f1c1de-0000-4000-8000-000000000001', data: { summary } });
    const tail = ['events', 'tail', '--last-event-id', first.firstId, '--exit-on', 'call.analysis.completed'];

    const tsv = await vap(tail, ACTIONS);
    expect(tsv.code, tsv.stderr).toBe(0);
    expectNoCommand(tsv);
    expect(tsv.stdout).toContain('Caller said ##\\u005badd-mask]hunter2');
    expect(unescapeCommands(tsv.stdout)).toBe((await vap(tail)).stdout);

    const json = await vap(['--json', ...tail], ACTIONS);
    expect(json.code, json.stderr).toBe(0);
    expectNoCommand(json);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; data: { summary?: string } });
    expect(events.find((e) => e.type === 'call.analysis.completed')!.data.summary).toBe(summary);
  });
});
