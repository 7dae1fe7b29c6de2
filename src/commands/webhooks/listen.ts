import { Command } from 'commander';
import type { ContextFactory } from '../types.js';

// PLACEHOLDER: replaced by `webhooks listen` (CLI-EVENTS).
export function listenCommand(_makeContext: ContextFactory): Command {
  return new Command('listen').description('(being built)');
}
