import { Command, Option } from 'commander';
import { IMPORT_JOB_STATUSES, IMPORT_JOBS_MAX_PAGE_SIZE, listImportJobsPage, type ImportJob, type ImportJobStatus } from '../../api/contacts.js';
import { paginate } from '../../api/paginate.js';
import type { Context } from '../../context.js';
import { withPolicy } from '../../ui/columns.js';
import type { Column } from '../../ui/format.js';
import { action } from '../action.js';
import { addListingOptions, paginateOptions, type ListingOptions } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { count, ratio, time } from '../../ui/values.js';

interface ListOptions extends ListingOptions {
  list?: string;
  status?: ImportJobStatus;
}

const DEFAULT_LIMIT = 20;

export const JOB_COLUMNS: Column<ImportJob>[] = withPolicy<ImportJob>(
  [
    { header: 'id', value: (j) => j.id },
    { header: 'list', value: (j) => j.contactListId },
    { header: 'status', value: (j) => j.status },
    { header: 'processed', value: (j) => (j.progress ? ratio(j.progress.processed, j.progress.total) : '') },
    { header: 'failed', value: (j) => count(j.progress?.failed) },
    { header: 'created', value: (j) => time(j.createdAt) },
  ],
  { keep: ['id', 'status'], dropFirst: ['list', 'created', 'failed'] },
);

export function listCommand(makeContext: ContextFactory): Command {
  return addListingOptions(
    new Command('list')
      .alias('ls')
      .description('List contact import jobs')
      .option('--list <listId>', 'only jobs importing into this contact list')
      .addOption(new Option('--status <status>', 'only jobs in this status').choices(IMPORT_JOB_STATUSES)),
    DEFAULT_LIMIT,
  )
    .addHelpText(
      'after',
      `
Examples:
  $ vap import-jobs list
  $ vap import-jobs list --list cl_123 --status failed
  $ vap import-jobs list --status processing -q`,
    )
    .action(action<ListOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: ListOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const items = paginate(
    (req) => listImportJobsPage(api, { ...req, contactListId: opts.list, status: opts.status }, ctx.signal),
    paginateOptions(opts, IMPORT_JOBS_MAX_PAGE_SIZE, DEFAULT_LIMIT),
  );
  const filtered = opts.list || opts.status;
  await ctx.out.list(items, { columns: JOB_COLUMNS, empty: filtered ? 'No import jobs match.' : 'No import jobs yet. Start one with `vap contacts import`.' });
}
