import { Command } from 'commander';
import type { Context, GlobalOptions } from '../../../context.js';
import { renderDiff } from '../../../evals/diff.js';
import { compareRuns, comparedFailure } from '../../../evals/compare-runs.js';
import { cliReporter, machineOutput } from '../../../evals/render/run-end.js';
import { scoreOption } from '../../../evals/gates.js';
import { checkReportTargets, reportOption, writeReports, type ReportTarget } from '../../../evals/reports.js';
import { CliError, GateError, UsageError } from '../../../errors.js';
import { safe, safeText } from '../../../ui/safe-text.js';
import { action } from '../../action.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent } from '../options.js';
import { type GateOptions, gateSpec } from '../../../evals/settings.js';
import { addBaselineOptions, addGateOptions } from '../../eval-options.js';

type DiffOptions = GateOptions & { agent?: string; eval?: string; maxDrop?: number; report?: ReportTarget[] };

export function diffCommand(makeContext: ContextFactory): Command {
  const cmd = new Command('diff')
    .description('Compare two runs of a suite: per scenario and per criterion, A, B, the change and a verdict; gate CI on run B')
    .argument('<runA|evalId|runB>', 'run A (the base); the suite when it comes first; run B alone with --baseline')
    .argument('[runB|runA]', 'run B (the candidate)')
    .argument('[runB]', 'run B when the suite came first')
    .addOption(agentOption())
    .addOption(evalOption());
  addBaselineOptions(addGateOptions(cmd), 'run B')
    .option('--max-drop <score>', "exit 3 when B's overall score or any criterion is lower than A's by more than this", scoreOption('--max-drop'))
    .option('--report <kind=path>', 'write run B against A as junit=<path>, json=<path>, markdown=<path> or html=<path> (repeatable)', reportOption)
    .addHelpText(
      'after',
      `
Both runs must have ended. Run A is the baseline: give it, or give run B alone with
--baseline previous|version:<n>|<runId>. Per scenario and per criterion, a verdict
over the iterations' scores (Welch's t-test, 95% interval, minimum effect 0.05 or
--min-effect): regressed, improved, no significant change, or too few iterations.
The gates of \`vap evals run\` apply to run B, plus --max-drop (a plain threshold
on the averages) and --fail-on-regression (a significant regression only) against
A. Exit 0 passed, 3 below a gate, 1 when run B failed.

Examples:
  $ vap evals runs diff run_001 run_002 --eval ev_123 --agent ag_456
  $ vap evals runs diff ev_123 run_001 run_002 --agent ag_456 --max-drop 0.05
  $ vap evals runs diff run_002 --eval ev_123 --agent ag_456 --baseline previous --fail-on-regression
  $ vap evals runs diff run_001 run_002 --eval ev_123 --agent ag_456 --report markdown=comment.md --json`,
    )
    .action(action<DiffOptions>(makeContext, (args, opts, ctx) => run(args, opts, ctx)));
  return cmd;
}

function resolveIds(args: (string | undefined)[], opts: { eval?: string; baseline?: unknown }): { evalId: string; a?: string; b: string } {
  const given = args.filter((x): x is string => typeof x === 'string' && x.length > 0);
  if (opts.baseline) {
    // Run B alone (or the suite and run B), compared with --baseline.
    if (given.length === 2) {
      const [evalId, b] = given as [string, string];
      if (opts.eval && opts.eval !== evalId) throw new UsageError(`--eval ${opts.eval} disagrees with the suite argument ${evalId}`, 'give the suite once');
      return { evalId, b };
    }
    if (given.length === 1) {
      if (!opts.eval) throw new UsageError('missing the eval suite', 'use `diff <runB> --baseline … --eval <evalId>` or `diff <evalId> <runB> --baseline …`');
      return { evalId: opts.eval, b: given[0]! };
    }
    throw new UsageError('--baseline names run A: give run B alone', 'use `diff <runB> --baseline previous --eval <evalId>`, or two runs without --baseline');
  }
  if (given.length === 3) {
    const [evalId, a, b] = given as [string, string, string];
    if (opts.eval && opts.eval !== evalId) throw new UsageError(`--eval ${opts.eval} disagrees with the suite argument ${evalId}`, 'give the suite once');
    return { evalId, a, b };
  }
  if (given.length === 2) {
    if (!opts.eval) throw new UsageError('missing the eval suite', 'use `diff <runA> <runB> --eval <evalId>` or `diff <evalId> <runA> <runB>`');
    return { evalId: opts.eval, a: given[0]!, b: given[1]! };
  }
  throw new UsageError(
    `diff compares two runs; ${given.length === 1 ? `only ${given[0]} was given` : 'none was given'}`,
    'use `diff <runA> <runB> --eval <evalId>`, or `diff <runB> --baseline previous --eval <evalId>` (see `vap evals runs list <evalId>`)',
  );
}

export async function run(args: (string | undefined)[], opts: DiffOptions & GlobalOptions, ctx: Context): Promise<void> {
  const { evalId, a, b } = resolveIds(args, opts);
  const agentId = resolveAgent(opts, ctx);
  const spec = gateSpec(opts, { baseline: false });
  const reports = opts.report ?? [];
  // The report paths are checked (a refusal comes first) while the client is set up.
  const [checked, client] = await Promise.allSettled([checkReportTargets(reports), ctx.api()]);
  if (checked.status === 'rejected') throw checked.reason;
  if (client.status === 'rejected') throw client.reason;
  const api = client.value;
  const { diff, comparison, gates, outcome } = await compareRuns(api, { agentId, evalId, a, b }, spec, { reports, env: ctx.env, signal: ctx.signal });
  const detailB = outcome.detail;
  if (reports.length) await writeReports({ env: ctx.env, reporter: cliReporter(ctx) }, outcome, reports);

  let gatesPrinted = false;
  if (ctx.globals.quiet && !ctx.globals.query) {
    ctx.io.stdout.write(`${safeText(detailB.run.id)}\n`);
  } else if (machineOutput(ctx)) {
    await ctx.out.data({ ...diff, comparison: comparison ?? null, gates });
  } else {
    ctx.io.stdout.write(`${await renderDiff(diff, gates, await ctx.stdoutStyle(), comparison, ctx.tableFit())}\n`);
    gatesPrinted = true;
  }

  const failure = comparedFailure({ diff, comparison, gates, outcome });
  if (failure?.kind === 'failed') throw new CliError(failure.message);
  if (failure?.kind === 'gates') {
    if (!gatesPrinted) for (const g of failure.failed) ctx.note(safe`✗ gate ${g.gate} failed: ${g.message}`);
    throw new GateError(failure.message);
  }
}
