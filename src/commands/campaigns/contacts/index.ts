import { Command } from 'commander';
import type { ContextFactory } from '../../types.js';
import { addCommand } from './add.js';
import { listCommand } from './list.js';
import { removeCommand } from './remove.js';

export function contactsCommand(makeContext: ContextFactory): Command {
  return new Command('contacts')
    .description('The contacts a campaign calls (taken from its contact list)')
    .addCommand(listCommand(makeContext))
    .addCommand(addCommand(makeContext))
    .addCommand(removeCommand(makeContext));
}
