import { Command } from 'commander';
import type { RunDetail } from '../../../api/evals.js';
import type { Context, GlobalOptions } from '../../../context.js';
import { fmtScore } from '../../../evals/gates.js';
import { progressText, summarizeCriteria } from '../../../evals/summary.js';
import { action } from '../../action.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent, resolveRunIds } from '../options.js';
import { readAndGate } from '../../../evals/run-gated.js';
import { cliReporter, renderRunEnd } from '../../../evals/render/run-end.js';
import type { WaitOptions } from '../../../evals/settings.js';
import { addBaselineOptions, addGateOptions, addWaitOptions, GATES_HELP } from '../../eval-options.js';
import { score, time } from '../../../ui/values.js';

type GetOptions = WaitOptions & { agent?: string; eval?: string };

export function getCommand(makeContext: ContextFactory): Command {
  const cmd = new Command('get')
    .description('Show a run (status, agent version, scores per criterion); with --wait, follow it and gate on it')
    .argument('[evalId]', 'the eval suite (or pass --eval)')
    .argument('[runId]', 'the run')
    .addOption(agentOption())
    .addOption(evalOption());
  addWaitOptions(addBaselineOptions(addGateOptions(cmd)))
    .addHelpText(
      'after',
      `
Without --wait: the run, its criteria's average and best scores, and the agent
version it ran against (--json: {run, aggregates}). Gates, --baseline or --report on
a run that has ended apply as with --wait; on one still going they need --wait.

${GATES_HELP}

Examples:
  $ vap evals runs get ev_123 run_789 --agent ag_456
  $ vap evals runs get run_789 --eval ev_123 --agent ag_456 --json
  $ vap evals runs get run_789 --eval ev_123 --agent ag_456 --wait --min-score 0.8 --report junit=evals.xml
  $ vap evals runs get run_789 --eval ev_123 --agent ag_456 --baseline version:3 --report markdown=comment.md`,
    )
    .action(action<GetOptions>(makeContext, (args, opts, ctx) => run(args, opts, ctx)));
  return cmd;
}

export async function run(args: (string | undefined)[], opts: GetOptions & GlobalOptions, ctx: Context): Promise<void> {
  const { evalId, runId } = resolveRunIds(args, opts);
  const agentId = resolveAgent(opts, ctx);
  const end = await readAndGate({ api: () => ctx.api(), signal: ctx.signal, env: ctx.env, reporter: cliReporter(ctx) }, { agentId, evalId, runId }, opts);
  await renderRunEnd(ctx, end, { run: (detail) => printRun(detail, ctx) });
}

/** The run as a detail view; criteria as a table under it on a terminal. */
export async function printRun(detail: RunDetail, ctx: Context): Promise<void> {
  const criteria = summarizeCriteria(detail.aggregates.criteria);
  let criteriaText = criteria.map((c) => `${c.key}=${fmtScore(c.average)}`).join(', ');
  if (ctx.out.human && criteria.length) {
    const [{ renderTable }, chalk] = await Promise.all([import('../../../ui/table.js'), ctx.stdoutStyle()]);
    // Indented by two under its label in the detail view.
    const fit = ctx.tableFit();
    criteriaText = renderTable(
      criteria,
      [
        { header: 'criterion', value: (c) => c.key },
        { header: 'average', value: (c) => fmtScore(c.average) },
        { header: 'max', value: (c) => fmtScore(c.max) },
        { header: 'weight', value: (c) => (c.weight === null ? '' : c.weight.toFixed(2)) },
      ],
      chalk,
      ctx.present,
      { ...fit, width: fit.width === undefined ? undefined : fit.width - 2 },
    );
  }
  await ctx.out.item(detail, {
    id: (d) => d.run.id,
    fields: [
      { header: 'id', value: (d) => d.run.id },
      { header: 'run', value: (d) => d.run.runNumber },
      { header: 'status', value: (d) => d.run.status },
      { header: 'agent version', value: (d) => d.run.agentVersion ?? '' },
      { header: 'overall score', value: (d) => score(d.run.overallScore) },
      { header: 'iterations', value: (d) => progressText(d.run) },
      ...(detail.run.error ? [{ header: 'error', value: (d: RunDetail) => d.run.error }] : []),
      { header: 'created', value: (d) => time(d.run.createdAt) },
      { header: 'started', value: (d) => time(d.run.startedAt) },
      { header: 'completed', value: (d) => time(d.run.completedAt) },
      { header: 'criteria', value: () => criteriaText },
    ],
  });
}
