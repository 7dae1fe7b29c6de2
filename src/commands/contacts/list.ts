import { Command } from 'commander';
import { CONTACTS_MAX_PAGE_SIZE, getContactList, listContactsPage, type Contact } from '../../api/contacts.js';
import { paginate } from '../../api/paginate.js';
import type { Context } from '../../context.js';
import { withPolicy } from '../../ui/columns.js';
import type { Column } from '../../ui/format.js';
import { action } from '../action.js';
import { addListingOptions, paginateOptions, type ListingOptions } from '../listing.js';
import type { ContextFactory } from '../types.js';

interface ListOptions extends ListingOptions {
  search?: string;
}

const DEFAULT_LIMIT = 50;

export function listCommand(makeContext: ContextFactory): Command {
  return addListingOptions(
    new Command('list')
      .alias('ls')
      .description("List a contact list's contacts; columns are the id and the list's schema fields")
      .argument('<listId>', 'contact list id')
      .option('--search <text>', 'match name or phone'),
    DEFAULT_LIMIT,
  )
    .addHelpText(
      'after',
      `
Examples:
  $ vap contacts list cl_123
  $ vap contacts list cl_123 --search "+1415"
  $ vap contacts list cl_123 --all -o tsv > contacts.tsv
  $ vap contacts list cl_123 --limit 500 --json`,
    )
    .action(action<ListOptions>(makeContext, ([listId], opts, ctx) => run(listId!, opts, ctx)));
}

export async function run(listId: string, opts: ListOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  // The schema once, for the columns (and so that an unknown list is one clear error).
  const list = await getContactList(api, listId, ctx.signal);
  const names = (list.schema?.fields ?? []).map((f) => f.name).filter((n) => n !== 'id');
  // A narrow terminal keeps the id and the schema's first field (a name, as a rule).
  const columns: Column<Contact>[] = withPolicy<Contact>(
    [{ header: 'id', value: (c) => c.id }, ...names.map((n) => ({ header: n, value: (c: Contact) => c[n] }))],
    { keep: ['id', ...names.slice(0, 1)] },
  );
  const raw = paginate(
    (req) => listContactsPage(api, list.id, { ...req, search: opts.search }, ctx.signal),
    paginateOptions(opts, CONTACTS_MAX_PAGE_SIZE, DEFAULT_LIMIT),
  );
  // NDJSON carries the same columns as the table and TSV; JSON (and --query) the raw objects.
  const items = ctx.out.format === 'ndjson' && !ctx.globals.query ? project(raw, ['id', ...names]) : raw;
  await ctx.out.list(items, {
    columns,
    empty: opts.search
      ? `No contacts in ${list.id} match "${opts.search}".`
      : `No contacts in ${list.id} yet. Import some with \`vap contacts import ${list.id} contacts.csv\`.`,
  });
}

async function* project(items: AsyncIterable<Contact>, keys: string[]): AsyncGenerator<Contact> {
  for await (const c of items) {
    const o: Contact = {};
    for (const k of keys) o[k] = c[k] ?? null;
    yield o;
  }
}
