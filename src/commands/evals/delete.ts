import { Command } from 'commander';
import type { ContextFactory } from '../types.js';

// PLACEHOLDER: replaced by the verb's implementation.
export function deleteCommand(_makeContext: ContextFactory): Command {
  return new Command('delete').description('(being built)');
}
