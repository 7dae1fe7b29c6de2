import { once } from 'node:events';
import * as v8 from 'node:v8';
import { Command } from 'commander';
import { CALLS_DEFAULT_PAGE_SIZE, CALLS_MAX_PAGE_SIZE, callPages, type Call, type CallsPagination, type CallsSummary } from '../../api/calls.js';
import { CALL_TSV_COLUMNS, summaryLine } from '../../calls/format.js';
import type { Context } from '../../context.js';
import { rememberShown, resolveCampaignId } from '../../ids/resolve.js';
import { UsageError } from '../../errors.js';
import { action } from '../action.js';
import { BlockWriter } from '../../ui/block-writer.js';
import { safeText } from '../../ui/safe-text.js';
import { positiveInt, wideOption } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { setV8Flags } from '../../v8-flags.js';
import { addCallFilterOptions, callFilters, hasCallFilters, pageSizeOption, type CallFilterOptions } from '../call-options.js';

export interface CallListOptions extends CallFilterOptions {
  page?: number;
  pageSize?: number;
  limit?: number;
  all?: boolean;
}

export function listCommand(makeContext: ContextFactory): Command {
  return addCallFilterOptions(new Command('list').alias('ls').description('List calls, newest first, with filters; the counts by status follow the table'))
    .option('--page <n>', 'start at this page', positiveInt('--page'))
    .option(
      '--page-size <n>',
      `calls per page, at most ${CALLS_MAX_PAGE_SIZE} (default ${CALLS_DEFAULT_PAGE_SIZE}; ${CALLS_MAX_PAGE_SIZE} with --all or --limit)`,
      pageSizeOption(CALLS_MAX_PAGE_SIZE),
    )
    .option('--limit <n>', 'how many calls in all, following pages as needed (default: one page)', positiveInt('--limit'))
    .option('--all', 'follow every page, printing each as it arrives (memory stays flat)')
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
On a terminal the table is followed by the counts over every matching call (total,
completed, failed, active, queued); when piped they go to stderr so stdout stays data
(TSV without headers: id, status, direction, calleeName, phoneNumber, duration in
seconds, createdAt, campaignId).

Examples:
  $ vap calls list
  $ vap calls list --status in-progress
  $ vap calls list --campaign 6f1c2a9e-… --status failed --from 2026-11-01 --to 2026-11-07
  $ vap calls list --min-duration 2m --search "+1415"
  $ vap calls list --all -o ndjson > calls.ndjson
  $ vap calls list --status queued -q | xargs -n1 vap calls cancel`,
    )
    .action(action<CallListOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: CallListOptions, ctx: Context): Promise<void> {
  if (opts.all && opts.limit !== undefined) throw new UsageError('--all and --limit disagree', 'give one: --all for every call, --limit n for the first n');
  const filters = callFilters(opts);
  if (filters.campaignId !== undefined) filters.campaignId = await resolveCampaignId(ctx, filters.campaignId);
  const pageSize =
    opts.pageSize ?? (opts.all ? CALLS_MAX_PAGE_SIZE : opts.limit !== undefined ? Math.min(CALLS_MAX_PAGE_SIZE, opts.limit) : CALLS_DEFAULT_PAGE_SIZE);
  const wanted = opts.all ? Infinity : (opts.limit ?? pageSize);
  if (wanted > STEADY_ROWS) keepYoungGenerationSmall();
  const api = await ctx.api();

  let summary: CallsSummary | undefined;
  let first: CallsPagination | undefined;
  let shown = 0;
  let more = false;
  // Page by page, each yielded row by row as it arrives. When calls are created while the
  // listing is being read, the newest-first pages shift: rows already printed on the page
  // before are skipped (only that page's ids are kept, so memory stays flat).
  async function* rows(): AsyncGenerator<Call> {
    let previous = new Set<string>();
    for await (const page of callPages(api, { ...filters, startPage: opts.page ?? 1, pageSize }, ctx.signal)) {
      summary ??= page.summary;
      first ??= page.pagination;
      const ids = new Set<string>();
      for (const call of page.calls) {
        if (shown >= wanted) {
          more = true;
          return;
        }
        ids.add(call.id);
        if (previous.has(call.id)) continue;
        shown++;
        yield call;
      }
      previous = ids;
      more = page.pagination.page < page.pagination.totalPages;
      if (shown >= wanted) return;
    }
  }

  const empty = emptyMessage(opts);
  if (ctx.out.human && !ctx.globals.query) {
    // The table and what fits it to the terminal, loaded for a terminal only.
    const [chalk, { callTableHeader, callTableLayout, callTableRow }, { messageText }] = await Promise.all([
      ctx.stdoutStyle(),
      import('../../calls/table.js'),
      import('../../ui/fit.js'),
    ]);
    const layout = callTableLayout(ctx.present, ctx.tableFit());
    // Rows in blocks, as they arrive (src/ui/block-writer.ts), waiting when the terminal is slow.
    const out = new BlockWriter(ctx.io.stdoutText ?? ctx.io.stdout, { signal: ctx.signal });
    let count = 0;
    try {
      for await (const call of rememberShown(ctx, 'call', rows(), (c) => [c.id])) {
        if (count++ === 0) out.write(`${callTableHeader(chalk, layout)}\n`);
        const wait = out.write(`${callTableRow(call, chalk, ctx.present, layout)}\n`);
        if (wait) await wait;
      }
    } finally {
      await out.end();
    }
    if (count === 0) ctx.io.stderr.write(`${safeText(empty)}\n`);
    if (summary && (count > 0 || summary.total > 0))
      await write(ctx, `\n${chalk.dim(messageText(safeText(footer(summary, first, shown, more, opts)), ctx.tableFit().width))}\n`);
    return;
  }
  await ctx.out.list(rows(), { columns: CALL_TSV_COLUMNS, empty });
  if (summary) ctx.info(footer(summary, first, shown, more, opts));
}

/** Beyond this many rows a listing is a long stream (see keepYoungGenerationSmall). */
const STEADY_ROWS = 1000;

/**
 * A long --all keeps nothing across pages, yet V8 grows its young generation as each page's
 * objects survive scavenges: holding it at its starting size keeps memory flat at no measurable
 * cost (test/bench/calls.mjs). V8 reads the flag at each growth decision, so setting it now works.
 */
function keepYoungGenerationSmall(): void {
  try {
    setV8Flags(v8, '--semi-space-growth-factor=1');
  } catch {
    // an engine without the flag: nothing to do
  }
}

function footer(s: CallsSummary, p: CallsPagination | undefined, shown: number, more: boolean, opts: CallListOptions): string {
  const line = summaryLine(s);
  if (!p || !more || shown === 0) return line;
  const start = (p.page - 1) * p.pageSize + 1;
  // With --limit n, the next step is n more (at most every match), not n + a page size.
  const next = opts.limit !== undefined ? `--limit ${Math.min(s.total, opts.limit * 2)}` : `--page ${p.page + 1}`;
  return `${line} (showing ${start}–${start + shown - 1}; ${next} or --all for more)`;
}

function emptyMessage(opts: CallListOptions): string {
  const filtered = hasCallFilters(opts);
  if (opts.page && opts.page > 1) return `No calls on page ${opts.page}.`;
  return filtered ? 'No calls match these filters.' : 'No calls yet. Queue some with `vap campaigns calls queue <campaignId>`.';
}

/** A write to stdout that waits when the pipe is full, so a slow reader never makes rows pile up. */
async function write(ctx: Context, text: string): Promise<void> {
  if (!ctx.io.stdout.write(text)) await once(ctx.io.stdout, 'drain', { signal: ctx.signal });
}
