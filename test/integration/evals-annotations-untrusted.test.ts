import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { forbidden, HOSTILE, HOSTILE_SHOWN } from '../helpers/hostile.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

// `vap evals run --wait` in GitHub Actions prints `::error` / `::warning` workflow commands on
// stdout, which quote the platform's text (scenario names, a run's failure reason). That
// text is neutralised as for a terminal, then encoded: no raw control byte, DEL, C1 control
// or bidi override reaches the runner, and no `,` or `:` of the data splits a property.

let emu: TestEmulator;
let agentId: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  const agent = await emu.api('POST', '/api/v1/agents', { name: 'Reception', engine: 'realtime', instructions: 'Greet callers.' });
  expect(agent.status).toBe(201);
  agentId = agent.body.data.id;
});
afterAll(async () => {
  await emu?.close();
});

const GITHUB = { GITHUB_ACTIONS: 'true' };
const vap = (argv: string[]) => runCli(argv, { env: { ...cliEnv(emu.url, ORG_A.apiKey), ...GITHUB } });

async function hostileSuite(): Promise<string> {
  const created = await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: `Suite ${Math.random()}`, iterationsPerScenario: 1 });
  expect(created.status).toBe(201);
  const evalId = created.body.data.id as string;
  const s = await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, {
    name: `${HOSTILE}, a: b`,
    persona: 'A caller',
    goal: 'Book a slot',
    category: 'happy_path',
  });
  expect(s.status).toBe(201);
  return evalId;
}

/** The workflow command lines of stdout, each split as the runner reads it. */
function commands(stdout: string): Array<{ line: string; kind: string; props: string; data: string }> {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('::'))
    .map((line) => {
      const m = /^::(\w+) ([^:]*)::(.*)$/.exec(line);
      expect(m, `a workflow command: ${JSON.stringify(line)}`).not.toBeNull();
      return { line, kind: m![1]!, props: m![2]!, data: m![3]! };
    });
}

const decode = (s: string) => s.replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');

function expectSafe(cmds: ReturnType<typeof commands>): void {
  for (const c of cmds) {
    expect(forbidden(c.line), c.line).toEqual([]);
    // Not even tab or newline: a command is one line, its line breaks encoded.
    expect(c.line).not.toMatch(/[\x00-\x1f\x7f\x80-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    // One property (title); its value carries no raw separator of the data.
    expect(c.props.startsWith('title=')).toBe(true);
    expect(c.props.slice('title='.length)).not.toMatch(/[,:]/);
  }
}

describe('GitHub Actions annotations from hostile platform text', () => {
  it('a scenario named with control characters, a bidi override, commas and colons', async () => {
    const evalId = await hostileSuite();
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--min-score', '1', '--allow-failed-iterations', '1']);
    expect(r.code, r.stderr).toBe(3);
    const cmds = commands(r.stdout);
    expectSafe(cmds);
    const scenario = cmds.find((c) => decode(c.props).startsWith('title=Eval scenario failed: '));
    expect(scenario, r.stdout).toBeDefined();
    expect(decode(scenario!.props)).toBe(`title=Eval scenario failed: ${HOSTILE_SHOWN}, a: b`);
  });

  it("a failed run's reason", async () => {
    const evalId = await hostileSuite();
    await emu.control('POST', '/evals/next-run', { outcome: 'fail', reason: `${HOSTILE}\nsecond line, a: b 100%`, evalId });
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait']);
    expect(r.code, r.stderr).toBe(1);
    const cmds = commands(r.stdout);
    expectSafe(cmds);
    const failed = cmds.find((c) => /^title=Eval run #\d+ failed$/.test(decode(c.props)));
    expect(failed, r.stdout).toBeDefined();
    expect(failed!.kind).toBe('error');
    // The reason's line break is kept as a line of the annotation (encoded), everything else shown.
    expect(failed!.data).toBe(`${HOSTILE_SHOWN.replace(/%/g, '%25')}%0Asecond line, a: b 100%25`);
    expect(decode(failed!.data)).toBe(`${HOSTILE_SHOWN}\nsecond line, a: b 100%`);
  });
});
