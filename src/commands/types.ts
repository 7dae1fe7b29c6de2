import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../context.js';

/** Builds a Context for the options a command was invoked with. */
export type ContextFactory = (globals: GlobalOptions) => Promise<Context>;

/** What the program gives a group besides its Command: the whole tree, for `vap completion`. */
export interface GroupHost {
  /** The full command tree, every group loaded. */
  fullTree(): Promise<Command>;
}

/** Adds a group's verbs to the group's Command (a group that is itself a verb: pull, api, completion). */
export type RegisterGroup = (group: Command, makeContext: ContextFactory, host?: GroupHost) => void | Promise<void>;

/** A verb's Commander factory (the `xxxCommand` export of its file). */
export type VerbFactory = (makeContext: ContextFactory) => Command;

/**
 * A verb in a group's table: its names, and its module, loaded only when the verb runs
 * or the group's whole tree is wanted (its help, a mistyped verb, completions).
 */
export interface VerbEntry {
  name: string;
  /** The factory's `.alias()` names, so that `vap agents ls` also loads one verb (a unit test compares them). */
  aliases?: readonly string[];
  load: () => Promise<VerbFactory>;
}

/** A group inside a group (`evals runs`, `campaigns contacts`) and its own table. */
export interface SubgroupEntry {
  name: string;
  description: string;
  /**
   * Made with `parent.command()`, which copies the parent's settings (the root's help command
   * and its description), rather than `new Command()`: kept as each subgroup was first built,
   * so that its help reads the same.
   */
  inheritSettings: boolean;
  verbs: readonly CommandEntry[];
}

export type CommandEntry = VerbEntry | SubgroupEntry;

export function isSubgroup(e: CommandEntry): e is SubgroupEntry {
  return 'verbs' in e;
}
