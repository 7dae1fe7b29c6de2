import { Command } from 'commander';
import type { ContextFactory } from '../types.js';

// PLACEHOLDER: replaced by the verb's implementation.
export function listCommand(_makeContext: ContextFactory): Command {
  return new Command('list').description('(being built)');
}
