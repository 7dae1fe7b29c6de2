import { Command } from 'commander';
import type { ContextFactory } from '../types.js';

// PLACEHOLDER: replaced by the verb's implementation.
export function updateCommand(_makeContext: ContextFactory): Command {
  return new Command('update').description('(being built)');
}
