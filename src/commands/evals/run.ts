import { Command } from 'commander';
import type { Run } from '../../api/evals.js';
import { UsageError } from '../../errors.js';
import type { Context, GlobalOptions } from '../../context.js';
import type { WaitOptions } from '../../evals/settings.js';
import { action } from '../action.js';
import { addBaselineOptions, addBudgetOptions, addGateOptions, addWaitOptions, GATES_HELP, gateFlagsGiven } from '../eval-options.js';
import type { ContextFactory } from '../types.js';
import { agentOption, resolveAgent } from './options.js';
import { startAndGate } from '../../evals/run-gated.js';
import { cliReporter, renderRunEnd } from '../../evals/render/run-end.js';

export function runCommand(makeContext: ContextFactory): Command {
  const cmd = new Command('run')
    .description('Start a run of a suite; with --wait, follow it and gate CI on its scores')
    .argument('<evalId>', 'the eval suite to run')
    .addOption(agentOption());
  addBudgetOptions(addWaitOptions(addBaselineOptions(addGateOptions(cmd))))
    .addHelpText(
      'after',
      `
Without --wait the run id is printed (only the id with -q), with the command that
waits for it; the gates and --report need --wait. With --wait, progress goes to stderr and, when the run ends, a table
of scores per scenario and per criterion to stdout (--json: {run, aggregates,
results, gates}).

${GATES_HELP}

Examples:
  $ vap evals run ev_123 --agent ag_456
  $ vap evals run ev_123 --agent ag_456 --wait --min-score 0.8
  $ vap evals run ev_123 --agent ag_456 --wait --timeout 20m --min-score 0.75 \\
      --min-criterion goal_completion=0.8 --allow-failed-iterations 1 \\
      --report junit=reports/evals.xml --report json=reports/evals.json
  $ vap evals run ev_123 --agent ag_456 --wait --baseline previous --fail-on-regression \\
      --report markdown=reports/evals.md --report html=reports/evals.html
  $ vap evals run ev_123 --agent ag_456 --wait --baseline previous --fail-on-regression \\
      --until-decided --max-calls 300
  $ RUN=$(vap evals run ev_123 --agent ag_456 -q) && vap evals runs get $RUN --eval ev_123 --agent ag_456 --wait`,
    )
    .action(action<WaitOptions & { agent?: string }>(makeContext, ([evalId], opts, ctx) => run(evalId!, opts, ctx)));
  return cmd;
}

export async function run(evalId: string, opts: WaitOptions & { agent?: string } & GlobalOptions, ctx: Context): Promise<void> {
  const agentId = resolveAgent(opts, ctx);
  if (!opts.wait) {
    // Without --wait nothing is gated or reported: a CI job would pass without its gate.
    const needWait = gateFlagsGiven(opts).filter((f) => f !== '--min-effect' && f !== '--alpha');
    if (needWait.length)
      throw new UsageError(
        `${needWait.join(', ')} ${needWait.length === 1 ? 'needs' : 'need'} --wait (without it the run is only started, nothing is gated or written)`,
        'add --wait, or gate later with `vap evals runs get <runId> --eval <evalId> --wait ...`',
      );
  }
  const end = await startAndGate(
    { api: () => ctx.api(), signal: ctx.signal, env: ctx.env, reporter: cliReporter(ctx, { quietIds: true }) },
    { agentId, evalId },
    opts,
  );
  await renderRunEnd(ctx, end, { started: (r) => printStarted(r, ctx) }, { idPrinted: Boolean(ctx.globals.quiet) });
}

async function printStarted(r: Run, ctx: Context): Promise<void> {
  await ctx.out.item(r, {
    fields: [
      { header: 'id', value: (x) => x.id },
      { header: 'run', value: (x) => x.runNumber },
      { header: 'status', value: (x) => x.status },
      { header: 'iterations', value: (x) => x.totalIterations },
    ],
  });
}
