import { Command, Option } from 'commander';
import {
  CANDIDATES_DEFAULT_PAGE_SIZE,
  CANDIDATES_MAX_PAGE_SIZE,
  listCandidatesPage,
  type CandidateCall,
  type CandidateFilter,
  type SourceType,
} from '../../../api/eval-imports.js';
import type { Context } from '../../../context.js';
import { withPolicy } from '../../../ui/columns.js';
import type { Column } from '../../../ui/format.js';
import { completes } from '../../../completion/takes.js';
import { action } from '../../action.js';
import { wideOption } from '../../listing.js';
import { safeText } from '../../../ui/safe-text.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent, resolveEvalId } from '../options.js';
import { intIn, isoDate, parseSourceType, resolveSourceType } from './common.js';
import { duration, time } from '../../../ui/values.js';

export const CANDIDATE_COLUMNS: Column<CandidateCall>[] = withPolicy<CandidateCall>(
  [
    { header: 'id', value: (c) => c.id },
    { header: 'started', value: (c) => time(c.startedAt) },
    { header: 'direction', value: (c) => c.direction },
    { header: 'duration', value: (c) => duration(c.durationSeconds) },
    { header: 'sentiment', value: (c) => c.sentiment },
    { header: 'intent', value: (c) => c.callerIntent },
    { header: 'resolved', value: (c) => (c.resolved ? 'yes' : 'no') },
    { header: 'preview', value: (c) => c.preview ?? '' },
  ],
  { keep: ['id', 'started'] },
);

interface Options {
  agent?: string;
  eval?: string;
  sourceType?: SourceType;
  source?: string;
  from?: string;
  to?: string;
  minDuration?: number;
  direction?: 'inbound' | 'outbound';
  search?: string;
  page?: number;
  pageSize?: number;
  all?: boolean;
}

export function candidatesCommand(makeContext: ContextFactory): Command {
  return new Command('candidates')
    .description('List the past calls of a source that can be imported (newest first; calls already imported into the suite are left out)')
    .argument('[evalId]', 'the eval suite (or pass --eval)')
    .addOption(agentOption())
    .addOption(evalOption())
    .option('--source <id>', 'the campaign or call center (see `imports sources`)')
    .addOption(
      completes(new Option('--source-type <type>', 'campaign or call_center (default: call_center for cc_… ids, else campaign)').argParser(parseSourceType), [
        'campaign',
        'call_center',
      ]),
    )
    .option('--from <date>', 'calls started on or after this ISO date or timestamp', isoDate('--from'))
    .option('--to <date>', 'calls started on or before this ISO date (the whole day) or timestamp', isoDate('--to'))
    .option('--min-duration <seconds>', 'calls at least this many seconds long', intIn('--min-duration', 0))
    .addOption(new Option('--direction <direction>', 'only inbound or only outbound calls').choices(['inbound', 'outbound']))
    .option('--search <text>', 'text in the transcript, the caller intent or the sentiment (case-insensitive)')
    .option('--page <n>', 'the page to show (default 1)', intIn('--page', 1))
    .option(
      '--page-size <n>',
      `calls per page (default ${CANDIDATES_DEFAULT_PAGE_SIZE}, at most ${CANDIDATES_MAX_PAGE_SIZE})`,
      intIn('--page-size', 1, CANDIDATES_MAX_PAGE_SIZE),
    )
    .option('--all', 'every page, streaming rows as they arrive')
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
On a terminal, the line under the table says which page this is and how many
calls match. Pass the ids to \`imports create --calls\`.

Examples:
  $ vap evals imports candidates ev_123 --agent ag_456 --source cc_7h2k...
  $ vap evals imports candidates ev_123 --agent ag_456 --source 3f1e... --direction inbound --min-duration 120
  $ vap evals imports candidates ev_123 --agent ag_456 --source cc_7h2k... --from 2026-03-01 --to 2026-03-07 --search refund
  $ vap evals imports candidates ev_123 --agent ag_456 --source cc_7h2k... --all -q | head -20 | paste -sd, -`,
    )
    .action(action<Options>(makeContext, (args, opts, ctx) => run(args[0], opts, ctx)));
}

export async function run(arg: string | undefined, opts: Options, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const evalId = resolveEvalId(arg, opts);
  const { sourceType, sourceId } = resolveSourceType(opts);
  const filter: CandidateFilter = { sourceType, sourceId };
  if (opts.from) filter.from = opts.from;
  if (opts.to) filter.to = opts.to;
  if (opts.minDuration !== undefined) filter.minDuration = opts.minDuration;
  if (opts.direction) filter.direction = opts.direction;
  if (opts.search) filter.search = opts.search;
  const api = await ctx.api();

  if (opts.all) {
    const pageSize = opts.pageSize ?? CANDIDATES_MAX_PAGE_SIZE;
    async function* every(): AsyncGenerator<CandidateCall> {
      for (let page = opts.page ?? 1; ; page++) {
        const res = await listCandidatesPage(api, agentId, evalId, filter, { page, pageSize }, ctx.signal);
        yield* res.calls;
        if (res.calls.length === 0 || res.calls.length < pageSize || (page - 1) * pageSize + res.calls.length >= res.total) return;
      }
    }
    await ctx.out.list(every(), { columns: CANDIDATE_COLUMNS, empty: 'No calls match.' });
    return;
  }

  const page = opts.page ?? 1;
  const pageSize = opts.pageSize ?? CANDIDATES_DEFAULT_PAGE_SIZE;
  const res = await listCandidatesPage(api, agentId, evalId, filter, { page, pageSize }, ctx.signal);
  const n = await ctx.out.list(res.calls, {
    columns: CANDIDATE_COLUMNS,
    empty: res.total > 0 ? `No calls on page ${page} (${res.total} match).` : 'No calls match.',
  });
  if (ctx.out.human && n > 0) {
    const pages = Math.max(1, Math.ceil(res.total / pageSize));
    const more = page < pages ? `; next: --page ${page + 1}, or --all` : '';
    ctx.io.stderr.write(`${safeText(`page ${page} of ${pages}, ${res.total} call${res.total === 1 ? '' : 's'} match${res.total === 1 ? 'es' : ''}${more}`)}\n`);
  }
}
