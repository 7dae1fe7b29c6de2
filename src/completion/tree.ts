import type { Command, Option } from 'commander';

/** The command tree as completion scripts need it. */
export interface CompletionNode {
  /** Command path, e.g. `vap agents create`. */
  path: string;
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  options: Array<{ flags: string[]; description: string; takesValue: boolean; choices?: string[] }>;
  /** Choices of a positional argument (for `vap completion <shell>`). */
  argumentChoices?: string[];
}

function optionFlags(o: Option): string[] {
  return [o.short, o.long].filter((f): f is string => Boolean(f));
}

export interface CompletionTree {
  /** Options of the root command, accepted after any command. */
  globals: CompletionNode['options'];
  nodes: CompletionNode[];
}

function ownOptions(cmd: Command): CompletionNode['options'] {
  return cmd.options
    .filter((o) => !o.hidden && o.long !== '--version')
    .map((o) => ({ flags: optionFlags(o), description: o.description, takesValue: o.required || o.optional, choices: o.argChoices }));
}

/** Walks a Commander program: every command path with its subcommands and its own options. */
export function completionTree(program: Command): CompletionTree {
  const nodes: CompletionNode[] = [];
  const globals = [...ownOptions(program), { flags: ['-h', '--help'], description: 'show help', takesValue: false }];
  const visit = (cmd: Command, path: string) => {
    const options = path === 'vap' ? [] : ownOptions(cmd);
    // Hidden commands (the help topics) are left out, as they are of the help's command list.
    const subs = cmd.createHelp().visibleCommands(cmd).filter((c) => c.name() !== 'help');
    const args = (cmd as unknown as { registeredArguments?: Array<{ argChoices?: string[] }> }).registeredArguments ?? [];
    nodes.push({
      path,
      description: cmd.description(),
      subcommands: subs.map((c) => ({ name: c.name(), description: c.description() })),
      options,
      argumentChoices: args[0]?.argChoices,
    });
    for (const sub of subs) visit(sub, `${path} ${sub.name()}`);
  };
  visit(program, 'vap');
  return { globals, nodes };
}
