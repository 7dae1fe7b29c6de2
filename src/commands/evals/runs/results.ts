import { Command } from 'commander';
import { FINISHED_RUN_STATUSES, getRun, getSuite, listRunResults, type RunResult } from '../../../api/evals.js';
import type { Context } from '../../../context.js';
import { renderResult } from '../../../evals/render/results.js';
import { terminalWidth } from '../../../ui/width.js';
import { withPolicy } from '../../../ui/columns.js';
import type { Column } from '../../../ui/format.js';
import { action } from '../../action.js';
import { wideOption } from '../../listing.js';
import { safeText } from '../../../ui/safe-text.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent, resolveRunIds } from '../options.js';
import { duration, score } from '../../../ui/values.js';

export const RESULT_COLUMNS: Column<RunResult>[] = withPolicy<RunResult>(
  [
    { header: 'id', value: (r) => r.id },
    { header: 'scenario', value: (r) => r.scenarioName ?? r.evalScenarioId },
    { header: 'iteration', value: (r) => r.iterationNumber },
    { header: 'status', value: (r) => r.status },
    { header: 'score', value: (r) => score(r.overallScore) },
    { header: 'duration', value: (r) => duration(r.durationSeconds) },
    { header: 'error', value: (r) => r.error },
  ],
  { keep: ['id', 'scenario', 'status', 'score'] },
);

interface ResultsOptions {
  agent?: string;
  eval?: string;
  scenario?: string;
  failed?: boolean;
}

export function resultsCommand(makeContext: ContextFactory): Command {
  return new Command('results')
    .description('Each call of a run: the transcript as a chat, the score on each criterion with the reason, the error of a failed iteration')
    .argument('[evalId]', 'the eval suite (or pass --eval)')
    .argument('[runId]', 'the run')
    .addOption(agentOption())
    .addOption(evalOption())
    .option('--scenario <idOrName>', 'only the results of this scenario (its id, or its name)')
    .option('--failed', 'only failed iterations')
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
On a terminal each result is drawn as a chat (agent and caller labelled, wrapped to
the terminal width) followed by its scores. --json prints the raw results; piped
output is one TSV line per result (id, scenario, iteration, status, score, duration,
error). A run still going shows the results of the calls that have ended.

Examples:
  $ vap evals runs results ev_123 run_789 --agent ag_456
  $ vap evals runs results run_789 --eval ev_123 --agent ag_456 --scenario "Reschedule" | less -R
  $ vap evals runs results ev_123 run_789 --agent ag_456 --json --query "[?status=='failed'].error"`,
    )
    .action(action<ResultsOptions>(makeContext, (args, opts, ctx) => run(args, opts, ctx)));
}

export async function run(args: (string | undefined)[], opts: ResultsOptions, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  const { evalId, runId } = resolveRunIds(args, opts);
  const api = await ctx.api();
  const human = ctx.out.human;
  // For people, the suite gives the criteria's names; a failure to read it costs only the names.
  const [all, suite] = await Promise.all([
    listRunResults(api, agentId, evalId, runId, ctx.signal),
    human ? getSuite(api, agentId, evalId, ctx.signal).catch(() => undefined) : undefined,
  ]);
  const wanted = opts.scenario?.trim().toLowerCase();
  const results = all.filter(
    (r) => (!wanted || r.evalScenarioId.toLowerCase() === wanted || (r.scenarioName ?? '').toLowerCase() === wanted) && (!opts.failed || r.status === 'failed'),
  );
  // No result at all: a run that ended (failed at once, say) has none to come; one still going will.
  const ended =
    all.length === 0 && human
      ? await getRun(api, agentId, evalId, runId, ctx.signal).then(
          (d) => d.run,
          () => undefined,
        )
      : undefined;
  const empty =
    all.length === 0
      ? ended && FINISHED_RUN_STATUSES.has(ended.status)
        ? `Run ${runId} ended ${ended.status} with no results${ended.error ? `: ${ended.error}` : ''}.`
        : `No results in run ${runId} yet; a result appears when its call ends (see \`vap evals runs get ${evalId} ${runId} --agent ${agentId}\`).`
      : `No results match${opts.scenario ? `; the scenarios in this run are: ${[...new Set(all.map((r) => r.scenarioName ?? r.evalScenarioId))].join(', ')}` : ''}.`;
  if (!human) {
    await ctx.out.list(results, { columns: RESULT_COLUMNS, empty });
    return;
  }
  if (results.length === 0) {
    ctx.io.stderr.write(`${safeText(empty)}\n`);
    return;
  }
  const chalk = await ctx.stdoutStyle();
  const width = terminalWidth(ctx.io.stdout, ctx.env);
  const criterionNames = Object.fromEntries((suite?.scoringCriteria ?? []).map((c) => [c.key, c.name]));
  const blocks = results.map((r) => renderResult(r, { width, chalk, criterionNames }).join('\n'));
  ctx.io.stdout.write(`${blocks.join('\n\n')}\n`);
}
