import { Command } from 'commander';
import type { ContextFactory } from '../types.js';

// PLACEHOLDER: replaced by the verb's implementation.
export function importCommand(_makeContext: ContextFactory): Command {
  return new Command('import').description('(being built)');
}
