import { Command } from 'commander';
import type { ContextFactory } from '../types.js';

// PLACEHOLDER: replaced by the verb's implementation.
export function getCommand(_makeContext: ContextFactory): Command {
  return new Command('get').description('(being built)');
}
