import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// `vap evals list|create|get|update|delete` and `vap evals scenarios list|add` against a
// real emulator (issue 7).

let emu: TestEmulator;
let agent: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  agent = await createAgent('Reception');
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  await emu.clearRequests();
});

const vap = (argv: string[], opts: RunOptions = {}, key = ORG_A.apiKey) => runCli(argv, { ...opts, env: { ...cliEnv(emu.url, key), ...opts.env } });

async function createAgent(name: string, key = ORG_A.apiKey): Promise<string> {
  const r = await emu.api<{ data: { id: string } }>(
    'POST',
    '/api/v1/agents',
    { name, instructions: 'Book and move appointments.', engine: 'realtime', variables: [] },
    key,
  );
  expect(r.status).toBe(201);
  return r.body.data.id;
}

async function createSuite(extra: string[] = []): Promise<string> {
  const r = await vap(['evals', 'create', '--agent', agent, '--name', 'Booking', '-q', ...extra]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

async function sent(): Promise<string[]> {
  return (await emu.requests()).map((r) => `${r.method} ${r.path}`);
}

/** A usage error: exit 2, one line on stderr matching `err`, nothing sent. */
async function expectUsage(argv: string[], err: RegExp, opts: RunOptions = {}): Promise<void> {
  await emu.clearRequests();
  const r = await vap(argv, opts);
  expect(r.code, argv.join(' ')).toBe(2);
  expect(r.stderr, argv.join(' ')).toMatch(err);
  expect(r.stderr.trim().split('\n'), argv.join(' ')).toHaveLength(1);
  expect(r.stdout).toBe('');
  expect(await sent(), argv.join(' ')).toEqual([]);
}

describe('vap evals create', () => {
  it('creates a draft suite with the default criteria and one iteration per scenario', async () => {
    const r = await vap(['evals', 'create', '--agent', agent, '--name', 'Defaults', '--json']);
    expect(r.code).toBe(0);
    const suite = JSON.parse(r.stdout);
    expect(suite).toMatchObject({
      id: expect.stringMatching(/^ev_/),
      name: 'Defaults',
      status: 'draft',
      iterationsPerScenario: 1,
      runCount: 0,
      latestRunScore: null,
      noise: null,
    });
    expect(suite.scoringCriteria.map((c: { key: string }) => c.key)).toEqual(['goal_completion', 'instruction_adherence', 'tone', 'efficiency']);
    expect(r.stderr).toContain(`Created suite Defaults (${suite.id}), draft`);
    expect(r.stderr).toContain(`vap evals scenarios add ${suite.id} --agent ${agent}`);
    expect(await sent()).toEqual([`POST /api/v1/agents/${agent}/evals`]);
  });

  it('sends iterations, criteria (normalised by the service) and noise', async () => {
    const r = await vap([
      'evals',
      'create',
      '--agent',
      agent,
      '--name',
      'Custom',
      '--iterations',
      '3',
      '--criterion',
      'resolution=3:Issue resolved',
      '--criterion',
      'tone=1',
      '--noise',
      'cafe:medium',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const suite = JSON.parse(r.stdout);
    expect(suite.iterationsPerScenario).toBe(3);
    expect(suite.noise).toEqual({ type: 'cafe', level: 'medium' });
    expect(suite.scoringCriteria).toEqual([
      { key: 'resolution', name: 'Issue resolved', weight: 0.75 },
      { key: 'tone', name: 'Tone', weight: 0.25 },
    ]);
  });

  it('takes the agent from VAP_AGENT', async () => {
    const r = await vap(['evals', 'create', '--name', 'From env', '-q'], { env: { VAP_AGENT: agent } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ev_\w+\n$/);
  });

  it('refuses bad input locally with one line naming the fix, and sends nothing', async () => {
    const base = ['evals', 'create', '--agent', agent, '--name', 'x'];
    await expectUsage(['evals', 'create', '--name', 'x'], /missing --agent.*VAP_AGENT/);
    await expectUsage([...base, '--noise', 'disco:low'], /unknown noise type "disco".*office, cafe, street, call_center, static, wind/);
    await expectUsage([...base, '--noise', 'cafe:loud'], /unknown noise level "loud".*low, medium, high/);
    await expectUsage([...base, '--noise', 'cafe'], /not of the form type:level.*--noise <type>:<level>/);
    await expectUsage([...base, '--iterations', '0'], /--iterations "0".*1 to 20/);
    await expectUsage([...base, '--iterations', '21'], /--iterations "21".*1 to 20/);
    await expectUsage([...base, '--iterations', '2.5'], /--iterations "2.5".*1 to 20/);
    await expectUsage([...base, '--criterion', 'tone'], /--criterion "tone" has no weight.*key=weight/);
    await expectUsage([...base, '--criterion', 'tone=0'], /weight "0" is not a number above 0/);
    await expectUsage([...base, '--criterion', 'Tone=1'], /key "Tone" is not valid/);
    await expectUsage([...base, '--criterion', 'tone=1', '--criterion', 'tone=2'], /tone is given twice/);
    await expectUsage(['evals', 'create', '--agent', agent, '--name', '  '], /--name must not be empty/);
  });
});

describe('vap evals list and get', () => {
  it('lists suites: TSV when piped, ids with -q, a table on a terminal', async () => {
    const other = await createAgent('Empty');
    const empty = await vap(['evals', 'list', '--agent', other], { tty: true });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toContain(`vap evals create --agent ${other}`);

    const a = await createSuite();
    const b = await createSuite(['--noise', 'office:low', '--iterations', '2']);
    const tsv = await vap(['evals', 'list', '--agent', agent]);
    expect(tsv.code).toBe(0);
    const rows = tsv.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    // No latest score: an empty field piped (a terminal shows `–`).
    expect(rows.find((r) => r[0] === b)).toEqual([b, 'Booking', 'draft', '2', '0', '0', '', 'office:low']);
    expect(rows.find((r) => r[0] === a)?.[7]).toBe('off');
    const ids = (await vap(['evals', 'list', '--agent', agent, '-q'])).stdout.trim().split('\n');
    expect(ids.indexOf(a)).toBeLessThan(ids.indexOf(b));
    // Every column with --wide (at 80 columns NOISE is left out so that the table fits).
    const table = await vap(['evals', 'list', '--agent', agent, '--wide'], { tty: true });
    expect(table.stdout).toMatch(/ID\s+NAME\s+STATUS\s+ITERATIONS\s+SCENARIOS\s+RUNS\s+LATEST SCORE\s+NOISE/);
  });

  it('shows a suite with its criteria and weights, run count and latest score', async () => {
    const id = await createSuite(['--criterion', 'goal=2:Goal reached', '--criterion', 'politeness=1']);
    const r = await vap(['evals', 'get', id, '--agent', agent], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/status\s+draft/);
    expect(r.stdout).toMatch(/runs\s+0/);
    expect(r.stdout).toMatch(/latest score\s+–/);
    expect(r.stdout).toMatch(/goal\s+0\.667\s+Goal reached/);
    expect(r.stdout).toMatch(/politeness\s+0\.333\s+Politeness/);
    const json = JSON.parse((await vap(['evals', 'get', '--eval', id, '--agent', agent, '--json'])).stdout);
    expect(json).toMatchObject({ id, runCount: 0, latestRunScore: null });
    const q = await vap(['evals', 'get', id, '--agent', agent, '--query', 'scoringCriteria[].key']);
    expect(JSON.parse(q.stdout)).toEqual(['goal', 'politeness']);
  });

  it("reports an unknown suite, and another tenant's, as not found (exit 1)", async () => {
    const id = await createSuite();
    const missing = await vap(['evals', 'get', 'ev_nope', '--agent', agent]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: .*HTTP 404/);
    const foreignAgent = await createAgent('Theirs', ORG_B.apiKey);
    const foreign = await vap(['evals', 'get', id, '--agent', agent], {}, ORG_B.apiKey);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/HTTP 404/);
    expect((await vap(['evals', 'list', '--agent', foreignAgent], {}, ORG_A.apiKey)).code).toBe(1);
    await expectUsage(['evals', 'get', id, '--eval', 'ev_other', '--agent', agent], /disagrees/);
  });
});

describe('vap evals update', () => {
  it('marks a suite ready, sets and clears noise, renames, changes iterations', async () => {
    const id = await createSuite();
    const ready = await vap(['evals', 'update', id, '--agent', agent, '--status', 'ready', '--json']);
    expect(ready.code).toBe(0);
    expect(JSON.parse(ready.stdout)).toMatchObject({ id, status: 'ready' });
    expect(ready.stderr).toContain(`Updated suite ${id}: status ready`);

    const noisy = await vap(['evals', 'update', id, '--agent', agent, '--noise', 'call_center:high', '--json']);
    expect(JSON.parse(noisy.stdout).noise).toEqual({ type: 'call_center', level: 'high' });
    expect(noisy.stderr).toContain('noise call_center:high');
    const quiet = await vap(['evals', 'update', id, '--agent', agent, '--no-noise', '--name', 'Renamed', '--iterations', '4', '--json']);
    expect(quiet.code).toBe(0);
    expect(JSON.parse(quiet.stdout)).toMatchObject({ noise: null, name: 'Renamed', iterationsPerScenario: 4 });
    expect(quiet.stderr).toContain('noise off');

    const again = await vap(['evals', 'update', id, '--agent', agent, '--status', 'ready', '-q']);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe(id);
  });

  it('validates before sending: status, noise, iterations, an empty change', async () => {
    const id = await createSuite();
    const base = ['evals', 'update', id, '--agent', agent];
    await expectUsage([...base, '--status', 'draft'], /does not go back to draft.*--status ready/);
    await expectUsage([...base, '--status', 'archived'], /"archived" is not a status.*--status ready/);
    await expectUsage([...base, '--noise', 'rain:high'], /unknown noise type "rain"/);
    await expectUsage([...base, '--noise', 'wind:extreme'], /unknown noise level "extreme"/);
    await expectUsage([...base, '--iterations', '50'], /1 to 20/);
    await expectUsage(base, /nothing to update.*--status ready.*--no-noise/);
    await expectUsage([...base, '--noise', 'cafe:low', '--no-noise'], /--noise and --no-noise contradict each other/);
    await expectUsage([...base, '--no-noise', '--noise', 'cafe:low'], /--noise and --no-noise contradict each other/);
  });
});

describe('vap evals delete', () => {
  it('needs --yes without a terminal, then deletes the suite', async () => {
    const id = await createSuite();
    await expectUsage(['evals', 'delete', id, '--agent', agent], /cannot ask .*without a terminal.*--yes/);
    expect((await vap(['evals', 'get', id, '--agent', agent, '-q'])).code).toBe(0);
    await emu.clearRequests();

    const r = await vap(['evals', 'delete', id, '--agent', agent, '--yes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Deleted eval suite ${id}`);
    expect(await sent()).toEqual([`DELETE /api/v1/agents/${agent}/evals/${id}`]);
    expect((await vap(['evals', 'get', id, '--agent', agent])).code).toBe(1);

    const other = await createSuite();
    const json = await vap(['evals', 'rm', other, '--agent', agent, '-y', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ id: other, deleted: true });
  });
});

describe('vap evals scenarios', () => {
  const add = (id: string, extra: string[]) => vap(['evals', 'scenarios', 'add', id, '--agent', agent, ...extra]);

  it('adds hand-written scenarios and lists them with category, enabled and auto-generated', async () => {
    const id = await createSuite();
    const none = await vap(['evals', 'scenarios', 'list', id, '--agent', agent], { tty: true });
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain(`vap evals scenarios add ${id}`);

    const r = await add(id, [
      '--name',
      'Reschedule',
      '--persona',
      'A patient booked for Monday',
      '--goal',
      'Move it to Friday',
      '--category',
      'happy_path',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const sc = JSON.parse(r.stdout);
    expect(sc).toMatchObject({ id: expect.stringMatching(/^sc_/), name: 'Reschedule', category: 'happy_path', isEnabled: true, isAutoGenerated: false });
    expect(r.stderr).toContain(`Added scenario Reschedule (${sc.id}) to suite ${id}`);
    const second = await add(id, [
      '--name',
      'Wrong number',
      '--persona',
      'Someone who dialled by mistake',
      '--goal',
      'Find out who they called',
      '--category',
      'edge_case',
      '-q',
    ]);
    expect(second.stdout).toMatch(/^sc_\w+\n$/);

    const tsv = await vap(['evals', 'scenarios', 'list', id, '--agent', agent]);
    expect(tsv.code).toBe(0);
    expect(
      tsv.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t').slice(1, 5)),
    ).toEqual([
      ['Reschedule', 'happy_path', 'yes', 'no'],
      ['Wrong number', 'edge_case', 'yes', 'no'],
    ]);
    // Every column with --wide (at 80 columns GOAL is left out so that the table fits).
    const table = await vap(['evals', 'scenarios', 'list', '--eval', id, '--agent', agent, '--wide'], { tty: true });
    expect(table.stdout).toMatch(/ID\s+NAME\s+CATEGORY\s+ENABLED\s+AUTO-GENERATED\s+GOAL/);
    const edge = await vap(['evals', 'scenarios', 'list', id, '--agent', agent, '--category', 'edge_case', '-q']);
    expect(edge.stdout.trim()).toBe(second.stdout.trim());
    const suite = JSON.parse((await vap(['evals', 'get', id, '--agent', agent, '--json'])).stdout);
    expect(suite.scenarioCount).toBe(2);
  });

  it('validates a scenario before sending it', async () => {
    const id = await createSuite();
    const ok = ['--name', 'n', '--persona', 'p', '--goal', 'g'];
    await expectUsage(['evals', 'scenarios', 'add', id, '--agent', agent, '--name', 'n'], /missing --persona, --goal, --category/);
    await expectUsage(['evals', 'scenarios', 'add', id, '--agent', agent, ...ok], /missing --category.*happy_path/);
    await expectUsage(
      ['evals', 'scenarios', 'add', id, '--agent', agent, ...ok, '--category', 'chitchat'],
      /"chitchat" is not a scenario category.*happy_path, edge_case, adversarial, escalation, compliance/,
    );
    await expectUsage(
      ['evals', 'scenarios', 'add', id, '--agent', agent, '--name', 'n', '--persona', ' ', '--goal', 'g', '--category', 'edge_case'],
      /--persona must not be empty/,
    );
    await expectUsage(
      ['evals', 'scenarios', 'add', id, '--agent', agent, '--name', 'x'.repeat(201), '--persona', 'p', '--goal', 'g', '--category', 'edge_case'],
      /--name is 201 characters long.*200/,
    );
    await expectUsage(['evals', 'scenarios', 'add', '--agent', agent, ...ok, '--category', 'edge_case'], /missing the eval suite id/);
  });
});
