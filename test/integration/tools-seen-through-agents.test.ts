import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// `vap tools list`: the API has no tool listing, so the tools are those of the agents the key
// can read, with their ids. In an organization with no agent yet nothing is seen, and both
// `tools list` and `agents create --tool <name>` say where a tool's id is found instead.

const FRESH = { name: 'fresh', apiKey: 'key_fresh_test' };
const BUSY = { name: 'busy', apiKey: 'key_busy_test' };

let emu: TestEmulator;
const toolsOf = async (org: string) =>
  (await emu.control<{ orgs: Array<{ tools: Array<{ id: string; name: string }> }> }>('GET', `/tools?org=${org}`)).orgs[0]!.tools.map(({ id, name }) => ({
    id,
    name,
  }));

beforeAll(async () => {
  emu = await startTestEmulator({ orgs: [FRESH, BUSY] });
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  await emu.clearRequests();
});

const vap = (org: { apiKey: string }, argv: string[], opts: RunOptions = {}) =>
  runCli(argv, { ...opts, env: { ...cliEnv(emu.url, org.apiKey), COLUMNS: '80', ...opts.env } });
const changes = async () => (await emu.requests()).filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);

describe('a new organization: no agent, so no tool is seen', () => {
  it('tools list says so, and where a tool id is found', async () => {
    const r = await vap(FRESH, ['tools', 'list'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    // (Wrapped between words at the terminal's 80 columns.)
    expect(r.stderr.replace(/\n(?!$)/g, ' ')).toBe(
      `No tools seen: this key can read no agent yet (the API lists tools only through agents). Give a tool by its id, from the product's tool page (on vap's emulator: \`curl ${emu.url}/_emulator/tools\`).\n`,
    );
    expect(JSON.parse((await vap(FRESH, ['tools', 'list', '--json'])).stdout)).toEqual([]);
  });

  it('agents create --tool "Calendar booking" exits 2 saying exactly what to do, and creates nothing', async () => {
    const r = await vap(FRESH, [
      'agents',
      'create',
      '--name',
      'Front desk',
      '--engine',
      'realtime',
      '--instructions',
      'Greet callers.',
      '--tool',
      'Calendar booking',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: --tool: no tool named "Calendar booking" among the tools of the agents this key can read (the API has no tool listing); no agent this key can read has a tool yet, so no name is known: give the tool's id, from the product's tool page (on vap's emulator: \`curl ${emu.url}/_emulator/tools\`); once an agent has tools, \`vap tools list\` shows their names and ids\n`,
    );
    expect(await changes()).toEqual([]);
  });

  it('the way out works: the first agent by tool id, then tools list shows it, and names work', async () => {
    const calendar = (await toolsOf(FRESH.name)).find((t) => t.name === 'Calendar booking')!;
    const first = await vap(FRESH, [
      'agents',
      'create',
      '--name',
      'Front desk',
      '--engine',
      'realtime',
      '--instructions',
      'Greet callers.',
      '--tool',
      calendar.id,
      '-q',
    ]);
    expect(first.code, first.stderr).toBe(0);
    const list = await vap(FRESH, ['tools', 'list'], { tty: true });
    expect(list.stdout).toBe(`ID${' '.repeat(calendar.id.length)}NAME              AGENTS\n${calendar.id}  Calendar booking  1\n`);
    const second = await vap(FRESH, [
      'agents',
      'create',
      '--name',
      'Back office',
      '--engine',
      'realtime',
      '--instructions',
      'Answer.',
      '--tool',
      'Calendar booking',
      '--json',
    ]);
    expect(second.code, second.stderr).toBe(0);
    expect((await vap(FRESH, ['tools', 'list'])).stdout).toBe(`${calendar.id}\tCalendar booking\t2\n`);
  });
});

describe('tools list: the tools of the agents the key can read', () => {
  it('every output format, sorted by name; a tool several agents have is listed once', async () => {
    const tools = await toolsOf(BUSY.name);
    const byName = (n: string) => tools.find((t) => t.name === n)!;
    for (const [name, set] of [
      ['A', ['CRM lookup', 'Send SMS']],
      ['B', ['CRM lookup']],
      ['C', []],
    ] as const) {
      const r = await vap(BUSY, [
        'agents',
        'create',
        '--name',
        name,
        '--engine',
        'realtime',
        '--instructions',
        'Hi.',
        ...set.flatMap((t) => ['--tool', byName(t).id]),
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
    await emu.clearRequests();
    const json = JSON.parse((await vap(BUSY, ['tools', 'list', '--json'])).stdout);
    expect(json).toEqual([
      { ...byName('CRM lookup'), agentCount: 2 },
      { ...byName('Send SMS'), agentCount: 1 },
    ]);
    expect((await vap(BUSY, ['tools', 'list', '-q'])).stdout).toBe(`${byName('CRM lookup').id}\n${byName('Send SMS').id}\n`);
    expect(
      (await vap(BUSY, ['tools', 'ls', '-o', 'ndjson'])).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).name),
    ).toEqual(['CRM lookup', 'Send SMS']);
    // Read-only: nothing but reads.
    expect(await changes()).toEqual([]);
  });

  it('reads the first 200 agents, as a tool name is looked for among, and says so; --all reads every one', async () => {
    const tools = await toolsOf(BUSY.name);
    for (let i = 0; i < 200; i++) await emu.api('POST', '/api/v1/agents', { name: `Filler ${i}`, engine: 'realtime', instructions: 'Hi.' }, BUSY.apiKey);
    const page2 = (await emu.api('GET', '/api/v1/agents?page=2&pageSize=200', undefined, BUSY.apiKey)).body.data.agents as Array<{ id: string }>;
    expect(page2.length).toBeGreaterThan(0);
    const end = tools.find((t) => t.name === 'End call')!;
    await emu.api('PUT', `/api/v1/agents/${page2[0]!.id}/tools`, { toolIds: [end.id] }, BUSY.apiKey);
    const first = await vap(BUSY, ['tools', 'list']);
    expect(first.stdout).not.toContain(end.id);
    expect(first.stderr).toMatch(/^The tools of the first 200 of \d+ agents; --all reads every agent\.\n$/);
    const all = await vap(BUSY, ['tools', 'list', '--all']);
    expect(all.stdout).toContain(`${end.id}\tEnd call\t1\n`);
    expect(all.stderr).toBe('');
  });

  it('has help with examples', async () => {
    const r = await runCli(['tools', 'list', '--help']);
    expect(r.stdout).toContain('Usage: vap tools list|ls [options]');
    expect(r.stdout).toContain('$ vap tools list');
    expect(r.stdout).toContain("A tool no agent has yet is not listed: its id is on the product's tool page.");
  });
});
