import { Command } from 'commander';
import { CONTACT_LISTS_MAX_PAGE_SIZE, listContactListsPage, type ContactList } from '../../api/contacts.js';
import { paginate } from '../../api/paginate.js';
import type { Context } from '../../context.js';
import { withPolicy } from '../../ui/columns.js';
import type { Column } from '../../ui/format.js';
import { action } from '../action.js';
import { addListingOptions, paginateOptions, type ListingOptions } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { count, time } from '../../ui/values.js';

export const CONTACT_LIST_COLUMNS: Column<ContactList>[] = withPolicy<ContactList>(
  [
    { header: 'id', value: (l) => l.id },
    { header: 'name', value: (l) => l.name },
    { header: 'contacts', value: (l) => count(l.contactCount) },
    { header: 'fields', value: (l) => (l.schema?.fields ?? []).map((f) => f.name).join(',') },
    { header: 'updated', value: (l) => time(l.updatedAt) },
  ],
  { keep: ['id', 'name', 'contacts'], dropFirst: ['fields'] },
);

export function listCommand(makeContext: ContextFactory): Command {
  return addListingOptions(new Command('list').alias('ls').description('List contact lists'))
    .addHelpText(
      'after',
      `
Examples:
  $ vap contact-lists list
  $ vap contact-lists list --all -o ndjson > lists.ndjson
  $ vap contact-lists list -q | head -1`,
    )
    .action(action<ListingOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: ListingOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const items = paginate((req) => listContactListsPage(api, req, ctx.signal), paginateOptions(opts, CONTACT_LISTS_MAX_PAGE_SIZE));
  await ctx.out.list(items, { columns: CONTACT_LIST_COLUMNS, empty: 'No contact lists yet. Create one with `vap contact-lists create`.' });
}
