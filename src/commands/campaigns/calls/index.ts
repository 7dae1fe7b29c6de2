import { Command } from 'commander';
import type { ContextFactory } from '../../types.js';
import { listCommand } from './list.js';
import { queueCommand } from './queue.js';

export function callsCommand(makeContext: ContextFactory): Command {
  return new Command('calls')
    .description('A campaign’s calls: list them, queue more')
    .addCommand(listCommand(makeContext))
    .addCommand(queueCommand(makeContext));
}
