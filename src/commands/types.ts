import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../context.js';

/** Builds a Context for the options a command was invoked with. */
export type ContextFactory = (globals: GlobalOptions) => Context;

/** Adds a group's verbs to the group's Command. */
export type RegisterGroup = (group: Command, makeContext: ContextFactory) => void | Promise<void>;
