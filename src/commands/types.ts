import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../context.js';

/** Builds a Context for the options a command was invoked with. */
export type ContextFactory = (globals: GlobalOptions) => Context;

/** What the program gives a group besides its Command: the whole tree, for `vap completion`. */
export interface GroupHost {
  /** The full command tree, every group loaded. */
  fullTree(): Promise<Command>;
}

/** Adds a group's verbs to the group's Command. */
export type RegisterGroup = (group: Command, makeContext: ContextFactory, host?: GroupHost) => void | Promise<void>;
