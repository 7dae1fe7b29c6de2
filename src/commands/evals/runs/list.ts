import { Command } from 'commander';
import { listRuns, type Run } from '../../../api/evals.js';
import type { Context } from '../../../context.js';
import { fmtScore } from '../../../evals/render/score.js';
import { sparkline } from '../../../ui/sparkline.js';
import { withPolicy } from '../../../ui/columns.js';
import type { Column } from '../../../ui/format.js';
import { action } from '../../action.js';
import { positiveInt, wideOption } from '../../listing.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent, resolveEvalId } from '../options.js';
import { score, time } from '../../../ui/values.js';

export const RUN_COLUMNS: Column<Run>[] = withPolicy<Run>(
  [
    { header: 'id', value: (r) => r.id },
    { header: 'run', value: (r) => (typeof r.runNumber === 'number' ? `#${r.runNumber}` : '') },
    { header: 'status', value: (r) => r.status },
    { header: 'score', value: (r) => score(r.overallScore) },
    { header: 'iterations', value: (r) => iterationsText(r) },
    { header: 'agent version', value: (r) => r.agentVersion },
    { header: 'created', value: (r) => time(r.createdAt) },
  ],
  { keep: ['id', 'run', 'status', 'score'] },
);

/** "6/6", "4/6 (1 failed)": iterations done out of the run's total. */
export function iterationsText(r: Run): string {
  const done = (r.completedIterations ?? 0) + (r.failedIterations ?? 0);
  const failed = r.failedIterations ? ` (${r.failedIterations} failed)` : '';
  return r.completedIterations === undefined && r.failedIterations === undefined ? String(r.totalIterations ?? '') : `${done}/${r.totalIterations}${failed}`;
}

/**
 * The line under the runs table: the overall score of the listed runs that have one,
 * oldest to newest, as a sparkline, with the first and last score. Empty when no run
 * has a score.
 */
export function scoreTrendLine(newestFirst: readonly Run[]): string {
  const scored = [...newestFirst].reverse().filter((r) => typeof r.overallScore === 'number' && Number.isFinite(r.overallScore));
  if (scored.length === 0) return '';
  const scores = scored.map((r) => r.overallScore as number);
  const first = scores[0]!;
  const last = scores[scores.length - 1]!;
  const range =
    scores.length > 1 ? `${fmtScore(first)} → ${fmtScore(last)}, low ${fmtScore(Math.min(...scores))}, high ${fmtScore(Math.max(...scores))}` : fmtScore(last);
  return `${sparkline(scores)}  ${range} over ${scores.length} scored run${scores.length === 1 ? '' : 's'} (oldest → newest)`;
}

interface ListOptions {
  agent?: string;
  eval?: string;
  limit?: number;
}

export function listCommand(makeContext: ContextFactory): Command {
  return new Command('list')
    .alias('ls')
    .description("List a suite's runs, newest first; on a terminal a sparkline of the overall score ends the table")
    .argument('[evalId]', 'the eval suite (or pass --eval)')
    .addOption(agentOption())
    .addOption(evalOption())
    .option('--limit <n>', 'only the newest n runs', positiveInt('--limit'))
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
The sparkline (▁ low … █ high, scaled to the listed scores) runs oldest → newest over
the runs that have a score; it is not printed when the output is piped or with --json.

Examples:
  $ vap evals runs list ev_123 --agent ag_456
  $ vap evals runs list --eval ev_123 --agent ag_456 --limit 10
  $ vap evals runs list ev_123 --agent ag_456 --json --query "[?status=='completed'].overallScore"`,
    )
    .action(action<ListOptions>(makeContext, (args, opts, ctx) => run(args[0], opts, ctx)));
}

export async function run(arg: string | undefined, opts: ListOptions, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const evalId = resolveEvalId(arg, opts);
  const api = await ctx.api();
  // The API answers newest first; sorting again keeps that true of any service.
  const runs = (await listRuns(api, agentId, evalId, ctx.signal)).slice().sort(newestFirst);
  const shown = opts.limit ? runs.slice(0, opts.limit) : runs;
  const count = await ctx.out.list(shown, {
    columns: RUN_COLUMNS,
    empty: `No runs of suite ${evalId} yet. Start one with \`vap evals run ${evalId} --agent ${agentId} --wait\`.`,
  });
  if (count > 0 && ctx.out.human && ctx.io.stdoutIsTTY) {
    const line = scoreTrendLine(shown);
    if (line) {
      const [chalk, { messageText }] = await Promise.all([ctx.stdoutStyle(), import('../../../ui/fit.js')]);
      ctx.io.stdout.write(`\n${messageText(line, ctx.tableFit().width, `${chalk.bold('SCORE')}  `)}\n`);
    }
  }
}

function newestFirst(a: Run, b: Run): number {
  if (typeof a.runNumber === 'number' && typeof b.runNumber === 'number' && a.runNumber !== b.runNumber) return b.runNumber - a.runNumber;
  return String(b.createdAt ?? '').localeCompare(String(a.createdAt ?? ''));
}
