import { Command } from 'commander';
import type { ContextFactory } from '../types.js';

// PLACEHOLDER: replaced by the verb's implementation.
export function runCommand(_makeContext: ContextFactory): Command {
  return new Command('run').description('(being built)');
}
