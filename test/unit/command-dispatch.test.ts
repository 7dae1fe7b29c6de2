// Dispatch on the command path: the tables of verbs say what each verb module builds (name,
// aliases, order), and reading argv picks the one verb to load, the group's whole tree (its
// help, a mistyped verb, anything unusual), or the tree as it was always built.
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { GROUPS } from '../../src/commands/registry.js';
import { isSubgroup, type CommandEntry } from '../../src/commands/types.js';
import { buildProgram, resolveCommandLine } from '../../src/program.js';

const notRun = async () => {
  throw new Error('not run');
};
const io = () => ({ stdout: new PassThrough(), stderr: new PassThrough() });

async function tree(argv: string[], loadAll = false): Promise<Command> {
  return buildProgram(argv, io(), notRun, loadAll);
}

/** The global options, as the program defines them. */
async function globals() {
  return (await tree(['agents', 'list'])).options;
}

const paths = (cmd: Command, prefix = ''): string[] =>
  cmd.commands.flatMap((c) => {
    const p = `${prefix}${c.name()}`;
    return [p, ...paths(c, `${p} `)];
  });

describe('the tables of verbs', () => {
  it('name each verb, its aliases and its place as its module builds it', async () => {
    const full = await tree([], true);
    const check = async (parent: Command, entries: readonly CommandEntry[], where: string) => {
      expect(
        parent.commands.map((c) => c.name()),
        where,
      ).toEqual(entries.map((e) => e.name));
      for (const e of entries) {
        const cmd = parent.commands.find((c) => c.name() === e.name)!;
        if (isSubgroup(e)) {
          expect(cmd.description(), `${where} ${e.name}`).toBe(e.description);
          await check(cmd, e.verbs, `${where} ${e.name}`);
        } else {
          expect(cmd.aliases(), `${where} ${e.name}`).toEqual(e.aliases ?? []);
          // The module the table loads builds that verb and no other.
          expect((await e.load())(notRun).name(), `${where} ${e.name}`).toBe(e.name);
        }
      }
    };
    for (const g of GROUPS) {
      const group = full.commands.find((c) => c.name() === g.name)!;
      if (g.verbs) await check(group, g.verbs, g.name);
      // A group that is itself a verb has no verbs, or those its table names (`vap mcp config`).
      else
        expect(
          group.commands.map((c) => c.name()),
          g.name,
        ).toEqual(g.subcommands ?? []);
    }
  });

  it('vap mcp, a group that is also a verb, is built with its config verb and runs either', async () => {
    expect(paths(await tree(['mcp']))).toEqual(['mcp', 'mcp config']);
    const mcp = (await tree(['mcp'])).commands[0]!;
    expect(mcp.options.map((o) => o.long)).toEqual(['--allow-writes', '--http', '--max-result']);
    expect(mcp.commands[0]!.options.map((o) => o.long)).toEqual(['--client', '--allow-writes', '--name']);
  });

  it('the tree built for one verb holds that group and verb only', async () => {
    expect(paths(await tree(['agents', 'list']))).toEqual(['agents', 'agents list']);
    expect(paths(await tree(['--json', 'evals', 'runs', 'ls', 'suite_1']))).toEqual(['evals', 'evals runs', 'evals runs list']);
    expect(paths(await tree(['plan', '--exit-code']))).toEqual(['diff']);
  });

  it('a group’s help or a mistyped verb builds the whole group, and nothing of the others', async () => {
    const help = paths(await tree(['agents', '--help']));
    expect(help).toContain('agents create');
    expect(help.every((p) => p.startsWith('agents'))).toBe(true);
    expect(paths(await tree(['agents', 'lst']))).toEqual(help);
  });

  it('the root help names every group and loads none', async () => {
    const root = await tree(['--help']);
    expect(root.commands.filter((c) => !(c as unknown as { _hidden: boolean })._hidden).map((c) => c.name())).toEqual(GROUPS.map((g) => g.name));
    expect(root.commands.every((c) => c.commands.length === 0)).toBe(true);
  });
});

describe('reading the command line', () => {
  const verbOf = async (argv: string[]) => {
    const line = resolveCommandLine(argv, await globals());
    if (line.fallback) return 'as always';
    if (line.topic) return `the topic ${line.topic}`;
    if (!line.group) return 'root';
    if (!line.verb) return `${line.group.name} (whole${line.helpOnly ? ', help only' : ''})`;
    return [line.group.name, ...line.verb.subgroups.map((s) => s.name), line.verb.entry.name].join(' ');
  };

  it.each([
    [['agents', 'list'], 'agents list'],
    [['agents', 'ls', '--limit', '5'], 'agents list'],
    [['--json', 'agents', 'list'], 'agents list'],
    [['agents', '--json', 'list'], 'agents list'],
    [['-o', 'json', 'agents', 'get', 'ag_1'], 'agents get'],
    [['--output=json', '--profile', 'staging', 'agents', 'rm', 'ag_1'], 'agents delete'],
    [['agents', 'list', '--help'], 'agents list'],
    [['help', 'agents', 'list'], 'agents list'],
    [['evals', 'runs', 'get', 'run_1'], 'evals runs get'],
    [['campaigns', 'contacts', 'rm', 'c_1', 'ct_1'], 'campaigns contacts remove'],
  ])('%j runs one verb: %s', async (argv, want) => {
    expect(await verbOf(argv)).toBe(want);
  });

  it.each([
    [['agents'], 'agents (whole, help only)'],
    [['agents', '--help'], 'agents (whole, help only)'],
    [['agents', '-h', 'list'], 'agents (whole, help only)'],
    [['help', 'agents'], 'agents (whole, help only)'],
    [['agents', 'help'], 'agents (whole, help only)'],
    [['agents', 'lst'], 'agents (whole, help only)'],
    [['evals', 'runs'], 'evals (whole, help only)'],
    [['evals', 'runs', '--help'], 'evals (whole, help only)'],
    [['agents', 'help', 'list'], 'agents (whole)'],
    [['help', 'agents', 'list', 'extra'], 'agents (whole)'],
    [['agents', '--bogus', 'list'], 'agents (whole)'],
    [['agents', '--', 'list'], 'agents (whole)'],
    [['pull', '--all'], 'pull (whole)'],
    [['mcp'], 'mcp (whole)'],
    [['mcp', '--allow-writes', '--http', '8123'], 'mcp (whole)'],
    [['mcp', 'config', '--client', 'claude'], 'mcp (whole)'],
  ])('%j builds the group: %s', async (argv, want) => {
    expect(await verbOf(argv)).toBe(want);
  });

  it.each([
    [[], 'root'],
    [['--help'], 'as always'],
    [['agnets'], 'root'],
    [['help', 'agnets'], 'root'],
    [['a11y'], 'root'],
    [['--bogus', 'agents', 'list'], 'as always'],
    [['-qo', 'json', 'agents', 'list'], 'as always'],
    [['-V', 'agents'], 'as always'],
    [['help', 'mcp'], 'the topic mcp'],
    [['help', 'emulator', '--no-color'], 'the topic emulator'],
    [['--profile', 'x', 'help', 'emulator'], 'the topic emulator'],
    [['--help', 'agents'], 'as always'],
  ])('%j: %s', async (argv, want) => {
    expect(await verbOf(argv)).toBe(want);
  });
});
