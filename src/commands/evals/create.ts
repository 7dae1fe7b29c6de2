import { Command } from 'commander';
import type { ContextFactory } from '../types.js';

// PLACEHOLDER: replaced by the verb's implementation.
export function createCommand(_makeContext: ContextFactory): Command {
  return new Command('create').description('(being built)');
}
