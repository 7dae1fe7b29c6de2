import type { ApiClient } from '../api/client.js';
import { CANDIDATES_MAX_PAGE_SIZE, listCandidatesPage, type CandidateCall, type CandidateFilter } from '../api/eval-imports.js';
import type { Context } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { truncate } from '../ui/format.js';
import { safeText } from '../ui/safe-text.js';
import { parseDateFlag, parseDirection, parseMinDuration, type WizardPlan } from './options.js';
import type { ChosenSource } from './select-source.js';
import { DEFAULT_PRESENTATION, formatSeconds, formatTime, type Presentation } from '../ui/values.js';

/** An import takes at most this many calls (the emulator's bound, evals-contract.md). */
export const MAX_IMPORT_CALLS = 500;

type Filter = WizardPlan['filter'];

const check = (parse: () => unknown): true | string => {
  try {
    parse();
    return true;
  } catch (err) {
    return err instanceof UsageError ? `${err.message}${err.hint ? `; ${err.hint}` : ''}` : String(err);
  }
};

/** The filters, asked one after the other (Enter keeps each one off). */
export async function askFilters(ctx: Context, current: Filter): Promise<Filter> {
  const p = ctx.prompter;
  // No defaults: Enter always means "any", so a filter can be taken off; the current value is shown.
  const was = (v: unknown) => (v === undefined ? '' : `, was ${v}`);
  const from = await p.input(`Calls from (YYYY-MM-DD, empty: any${was(current.from)})`, {
    flag: '--from',
    validate: (v) => check(() => parseDateFlag('--from', v)),
  });
  const to = await p.input(`Calls to (YYYY-MM-DD, empty: any${was(current.to)})`, { flag: '--to', validate: (v) => check(() => parseDateFlag('--to', v)) });
  const min = await p.input(
    `Minimum duration (seconds or 1m30s, empty: any${was(current.minDuration === undefined ? undefined : `${current.minDuration}s`)})`,
    {
      flag: '--min-duration',
      validate: (v) => check(() => parseMinDuration(v)),
    },
  );
  const direction = await p.select(
    'Direction',
    [
      { name: 'any', value: 'any' },
      { name: 'inbound', value: 'inbound' },
      { name: 'outbound', value: 'outbound' },
    ],
    { flag: '--direction', default: current.direction ?? 'any' },
  );
  const search = await p.input(`Text search (transcript, intent, sentiment; empty: none${was(current.search)})`, { flag: '--search' });
  return {
    from: parseDateFlag('--from', from),
    to: parseDateFlag('--to', to),
    minDuration: parseMinDuration(min),
    direction: parseDirection(direction),
    search: search.trim() || undefined,
  };
}

function apiFilter(source: ChosenSource, f: Filter): CandidateFilter {
  return { sourceType: source.sourceType, sourceId: source.sourceId, ...f };
}

export function describeCall(c: CandidateCall, p: Presentation = DEFAULT_PRESENTATION): string {
  // When and how long as everywhere else (src/ui/values.ts): `3 days ago`, `2m 5s`.
  const when = formatTime(c.startedAt, p);
  const took = typeof c.durationSeconds === 'number' ? formatSeconds(c.durationSeconds) : '';
  // Every part is the service's text: made safe before it is cut and padded.
  const preview = c.preview ? `  “${truncate(safeText(String(c.preview)), 36)}”` : '';
  return `${safeText(when).padEnd(p.absoluteTimes ? 24 : 14)}  ${safeText(String(c.direction)).padEnd(8)} ${took.padStart(7)}  ${safeText(String(c.sentiment)).padEnd(8)}  ${truncate(safeText(String(c.callerIntent ?? '')), 24).padEnd(24)}${preview}`;
}

/** Every candidate matching the filters (for --all-candidates). */
async function allCandidates(api: ApiClient, ids: { agentId: string; evalId: string }, filter: CandidateFilter, ctx: Context): Promise<string[]> {
  const out: string[] = [];
  for (let page = 1; ; page++) {
    const r = await listCandidatesPage(api, ids.agentId, ids.evalId, filter, { page, pageSize: CANDIDATES_MAX_PAGE_SIZE }, ctx.signal);
    out.push(...r.calls.map((c) => c.id));
    if (r.calls.length < CANDIDATES_MAX_PAGE_SIZE || out.length >= r.total) break;
    if (out.length > MAX_IMPORT_CALLS) break;
  }
  return [...new Set(out)];
}

/**
 * The rows of a page of calls: --page-size, but no more than fit on the terminal with the
 * heading, the help line and the answers above them, so that every row is in view at once.
 */
export function visiblePageSize(wanted: number, ctx: Context): number {
  const rows = (ctx.io.stderr as { rows?: number }).rows;
  return rows && rows > 0 ? Math.max(3, Math.min(wanted, rows - 8)) : wanted;
}

/** Step 5: the calls to import: --calls, --all-candidates, or ticked page by page. */
export async function pickCalls(
  plan: WizardPlan,
  source: ChosenSource,
  ids: { agentId: string; evalId: string },
  api: ApiClient,
  ctx: Context,
): Promise<string[]> {
  if (Array.isArray(plan.calls)) return plan.calls;
  let filter = plan.filter;
  if (plan.calls === 'all') {
    const calls = await allCandidates(api, ids, apiFilter(source, filter), ctx);
    if (calls.length === 0)
      throw new CliError(
        `no candidate calls in ${source.name} match the filters (calls already imported into this suite are left out)`,
        undefined,
        'widen --from/--to/--min-duration/--direction/--search',
      );
    if (calls.length > MAX_IMPORT_CALLS)
      throw new CliError(
        `more than ${MAX_IMPORT_CALLS} candidate calls match; an import takes at most ${MAX_IMPORT_CALLS}`,
        undefined,
        'narrow the filters (--from/--to/--min-duration/--direction/--search)',
      );
    return calls;
  }
  // From here on the calls are ticked on a terminal; prompter refuses (naming the flag) without one.
  if (!ctx.prompter.canPrompt)
    throw new UsageError(
      'missing --calls id,… or --all-candidates (nothing is asked without a terminal, with --no-input or in CI)',
      'pick the calls to import',
    );
  if (!plan.filterGiven) filter = await askFilters(ctx, filter);
  const selected = new Set<string>();
  const pageSize = visiblePageSize(plan.pageSize, ctx);
  let page = 1;
  for (;;) {
    const r = await listCandidatesPage(api, ids.agentId, ids.evalId, apiFilter(source, filter), { page, pageSize }, ctx.signal);
    const pages = Math.max(1, Math.ceil(r.total / pageSize));
    if (r.calls.length > 0) {
      const first = (page - 1) * pageSize + 1;
      // Every row of the page is on screen, so the range is what is shown; the count follows the ticks.
      const elsewhere = [...selected].filter((id) => !r.calls.some((c) => c.id === id)).length;
      const ticked = await ctx.prompter.countedCheckbox(
        (n) => `Calls ${first}–${first + r.calls.length - 1} of ${r.total} (page ${page}/${pages}, ${elsewhere + n} selected; space ticks, enter goes on)`,
        r.calls.map((c) => ({ name: describeCall(c, ctx.present), value: c.id, checked: selected.has(c.id), short: c.id.slice(0, 8) })),
        { flag: '--calls id,…' },
      );
      for (const c of r.calls) selected.delete(c.id);
      for (const id of ticked) selected.add(id);
    } else {
      ctx.io.stderr.write(page === 1 ? 'No calls match these filters (calls already imported into this suite are left out).\n' : 'No calls on this page.\n');
    }
    const nav: Array<{ name: string; value: string }> = [];
    if (selected.size > 0) nav.push({ name: `Import the ${selected.size} selected call${selected.size === 1 ? '' : 's'}`, value: 'import' });
    if (page < pages) nav.push({ name: 'Next page', value: 'next' });
    if (page > 1) nav.push({ name: 'Previous page', value: 'prev' });
    nav.push({ name: 'Change the filters', value: 'filters' });
    const defaultNav = page < pages ? 'next' : selected.size > 0 ? 'import' : 'filters';
    const go = await ctx.prompter.select('Next', nav, { flag: '--calls id,…', default: defaultNav });
    if (go === 'import') return [...selected];
    if (go === 'next') page += 1;
    else if (go === 'prev') page -= 1;
    else {
      filter = await askFilters(ctx, filter);
      page = 1;
    }
  }
}
