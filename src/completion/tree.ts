import type { Command, Option } from 'commander';
import { argumentTakes, optionTakes, type Takes } from './takes.js';

/** The command tree as completion scripts need it. */
export interface CompletionNode {
  /** Command path, e.g. `vap agents create`. */
  path: string;
  description: string;
  subcommands: Array<{ name: string; aliases: string[]; description: string }>;
  /** Its own flags; `takes` says what a flag's value is (src/completion/takes.ts): nothing offered without it. */
  options: Array<{ flags: string[]; description: string; takesValue: boolean; choices?: string[]; takes?: Takes }>;
  /** Choices of a positional argument (for `vap completion <shell>`). */
  argumentChoices?: string[];
  /** What each positional argument takes, in order (undefined: nothing offered); the last repeats when `variadic`. */
  args: Array<Takes | undefined>;
  variadic?: boolean;
}

function optionFlags(o: Option): string[] {
  return [o.short, o.long].filter((f): f is string => Boolean(f));
}

export interface CompletionTree {
  /** Options of the root command, accepted after any command. */
  globals: CompletionNode['options'];
  nodes: CompletionNode[];
  /**
   * Paths that stand for another: an alias (`vap plan` is `vap diff`, `vap agents ls` is
   * `vap agents list`) and a group named after `help` (`vap help agents` goes on as `vap agents`).
   */
  same: Array<{ path: string; is: string }>;
}

/** A help topic, for `vap help <topic>` (src/help/topics.ts). */
export interface CompletionTopic {
  name: string;
  aliases: string[];
  summary: string;
}

function ownOptions(cmd: Command): CompletionNode['options'] {
  return cmd.options
    .filter((o) => !o.hidden && o.long !== '--version')
    .map((o) => {
      const takesValue = o.required || o.optional;
      const takes = takesValue ? optionTakes(o) : undefined;
      return { flags: optionFlags(o), description: o.description, takesValue, choices: o.argChoices, ...(takes ? { takes } : {}) };
    });
}

/**
 * Walks a Commander program: every command path with its subcommands (and their aliases) and
 * its own options; `vap help` offers the groups and the help topics, aliases included.
 */
export function completionTree(program: Command, topics: readonly CompletionTopic[] = []): CompletionTree {
  const nodes: CompletionNode[] = [];
  const same: CompletionTree['same'] = [];
  const globals: CompletionTree['globals'] = [...ownOptions(program), { flags: ['-h', '--help'], description: 'show help', takesValue: false }];
  const visit = (cmd: Command, path: string) => {
    const options = path === 'vap' ? [] : ownOptions(cmd);
    // Hidden commands (the help topics) are left out, as they are of the help's command list.
    const subs = cmd
      .createHelp()
      .visibleCommands(cmd)
      .filter((c) => c.name() !== 'help');
    const args = cmd.registeredArguments;
    const subcommands = subs.map((c) => ({ name: c.name(), aliases: c.aliases(), description: c.description() }));
    if (path === 'vap') subcommands.push({ name: 'help', aliases: [], description: 'show help for a command or a topic' });
    const variadic = args.at(-1)?.variadic ? { variadic: true } : {};
    nodes.push({
      path,
      description: cmd.description(),
      subcommands,
      options,
      argumentChoices: args[0]?.argChoices,
      args: args.map((a) => argumentTakes(a)),
      ...variadic,
    });
    for (const sub of subs) {
      for (const a of sub.aliases()) same.push({ path: `${path} ${a}`, is: `${path} ${sub.name()}` });
      visit(sub, `${path} ${sub.name()}`);
    }
  };
  visit(program, 'vap');

  // `vap help <group or topic>`: a group goes on as the group does (`vap help agents list`).
  const groups = nodes.find((n) => n.path === 'vap')!.subcommands.filter((s) => s.name !== 'help');
  // A topic named like a group (`vap help mcp`) is the group's help.
  topics = topics.filter((t) => !groups.some((g) => g.name === t.name));
  nodes.push({
    path: 'vap help',
    description: 'show help for a command or a topic',
    subcommands: [...groups, ...topics.map((t) => ({ name: t.name, aliases: t.aliases, description: t.summary }))],
    options: [],
    args: [],
  });
  for (const g of groups) for (const w of [g.name, ...g.aliases]) same.push({ path: `vap help ${w}`, is: `vap ${g.name}` });
  for (const t of topics) {
    nodes.push({ path: `vap help ${t.name}`, description: t.summary, subcommands: [], options: [], args: [] });
    for (const a of t.aliases) same.push({ path: `vap help ${a}`, is: `vap help ${t.name}` });
  }
  return { globals, nodes, same };
}
