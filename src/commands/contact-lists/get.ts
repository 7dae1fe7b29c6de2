import { Command } from 'commander';
import { getContactList } from '../../api/contacts.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { printContactList } from './shared.js';

export function getCommand(makeContext: ContextFactory): Command {
  return new Command('get')
    .alias('show')
    .description('Show a contact list and its schema')
    .argument('<listId>', 'contact list id')
    .addHelpText(
      'after',
      `
Examples:
  $ vap contact-lists get cl_123
  $ vap contact-lists get cl_123 --json
  $ vap contact-lists get cl_123 --query "schema.fields[?required].name"`,
    )
    .action(action<object>(makeContext, ([id], _opts, ctx) => run(id!, ctx)));
}

export async function run(id: string, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const list = await getContactList(api, id, ctx.signal);
  await printContactList(list, ctx);
}
