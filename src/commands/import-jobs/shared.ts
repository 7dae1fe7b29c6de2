import type { ImportJob } from '../../api/contacts.js';
import type { Context } from '../../context.js';
import { formatCount, shown, time } from '../../ui/values.js';

/** Errors shown in a terminal detail view; --json and TSV carry them all. */
const MAX_ERRORS_SHOWN = 20;

/** `processed/total (successful ok, failed failed)`, counts with separators for people (`12,000/50,000 …`), plain for programs. */
export function progressText(job: ImportJob, forPeople = true): string {
  const p = job.progress ?? { total: 0, processed: 0, successful: 0, failed: 0 };
  const n = forPeople ? formatCount : String;
  return `${n(p.processed)}/${n(p.total)} (${n(p.successful)} ok, ${n(p.failed)} failed)`;
}

/** One `row N, field F: message` line per error. */
export function errorLines(errors: ImportJob['errors'] | undefined, max = Infinity): string[] {
  const list = errors ?? [];
  const lines = list.slice(0, max).map((e) => `row ${e.row}${e.field ? `, field ${e.field}` : ''}: ${e.message}`);
  if (list.length > max) lines.push(`… and ${list.length - max} more (see them all with --json)`);
  return lines;
}

/** Prints a job on stdout as a detail view (terminal), key/value lines (TSV) or the raw object (JSON). */
export async function printJob(job: ImportJob, ctx: Context): Promise<void> {
  const human = ctx.out.human;
  const errors = errorLines(job.errors, human ? MAX_ERRORS_SHOWN : Infinity);
  const truncated = (job as ImportJob & { errorsTruncated?: boolean }).errorsTruncated;
  if (truncated) errors.push(`(the server kept only the first ${job.errors.length} errors; ${job.progress?.failed ?? 'more'} rows failed in all)`);
  await ctx.out.item(job, {
    fields: [
      { header: 'id', value: (j) => j.id },
      { header: 'list', value: (j) => j.contactListId },
      { header: 'status', value: (j) => j.status },
      { header: 'progress', value: (j) => shown(progressText(j, false), progressText(j)) },
      ...(typeof (job as { message?: unknown }).message === 'string'
        ? [{ header: 'message', value: (j: ImportJob) => (j as { message?: string }).message }]
        : []),
      { header: 'created', value: (j) => time(j.createdAt) },
      { header: 'updated', value: (j) => time(j.updatedAt) },
      { header: 'errors', value: () => (errors.length ? errors.join('\n') : human ? 'none' : '') },
    ],
  });
}
