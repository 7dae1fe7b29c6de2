import { Command } from 'commander';
import { FINISHED_RUN_STATUSES, getRun, getSuite, listRunResults, listRuns, type RunDetail, type RunResult } from '../../../api/evals.js';
import type { Context, GlobalOptions } from '../../../context.js';
import { baselineArg, resolvePooledBaseline } from '../../../evals/baseline.js';
import { diffRuns, renderDiff, type RunSide } from '../../../evals/diff.js';
import { machineOutput, resumeCommand, verdictSettings } from '../../../evals/follow.js';
import { checkCriterionKeys, evaluateGates, scoreOption } from '../../../evals/gates.js';
import type { RunOutcome } from '../../../evals/outcome.js';
import { checkReportTargets, preloadReports, reportNeeds, reportOption, writeReports, type ReportTarget } from '../../../evals/reports.js';
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
    .option('--max-drop <score>', 'exit 3 when B\'s overall score or any criterion is lower than A\'s by more than this', scoreOption('--max-drop'))
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
  throw new UsageError(`diff compares two runs; ${given.length === 1 ? `only ${given[0]} was given` : 'none was given'}`, 'use `diff <runA> <runB> --eval <evalId>`, or `diff <runB> --baseline previous --eval <evalId>` (see `vap evals runs list <evalId>`)');
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
  const needs = reportNeeds(reports, ctx.env);
  // Everything at once: both runs and their results (run A when named), the suite and its runs.
  const [detailB, resultsB, runs, suite, namedA] = await Promise.all([
    // Once B's answer is in, every request is out: the report builders compile while the rest arrives.
    getRun(api, agentId, evalId, b, ctx.signal).then((d) => {
      if (reports.length) preloadReports(reports, ctx.env);
      return d;
    }),
    listRunResults(api, agentId, evalId, b, ctx.signal),
    needs.history || (spec.baseline && spec.baseline.kind !== 'run') ? listRuns(api, agentId, evalId, ctx.signal) : undefined,
    needs.suite ? getSuite(api, agentId, evalId, ctx.signal).catch(() => undefined) : undefined,
    a ? Promise.all([getRun(api, agentId, evalId, a, ctx.signal), listRunResults(api, agentId, evalId, a, ctx.signal)]) : undefined,
  ]);
  let detailA: RunDetail;
  let resultsA: RunResult[];
  let pooledA: RunDetail[];
  if (namedA) {
    [detailA, resultsA] = namedA;
    pooledA = [detailA];
  } else {
    // `previous` and `version:<n>`: every completed run of that version, pooled.
    const found = await resolvePooledBaseline(api, { agentId, evalId }, spec.baseline!, detailB.run, ctx.signal, runs);
    if (found.missing !== undefined) throw new UsageError(`--baseline ${baselineArg(spec.baseline!)}: ${found.missing}`, 'name run A instead: `diff <runA> <runB>`');
    ({ newest: detailA, results: resultsA, runs: pooledA } = found);
  }
  checkCriterionKeys(spec, detailB.aggregates.criteria.map((c) => c.criterionKey));
  for (const [label, d] of [['A', detailA], ['B', detailB]] as const) {
    if (!FINISHED_RUN_STATUSES.has(d.run.status)) {
      throw new CliError(`run ${label} (${d.run.id}) is still ${d.run.status}`, 1, `wait for it first: ${resumeCommand({ agentId, evalId, runId: d.run.id }, { gates: { minCriteria: [], allowFailedIterations: 0 }, reports: [] })}`);
    }
  }
  const sideA: RunSide = { detail: detailA, results: resultsA };
  const sideB: RunSide = { detail: detailB, results: resultsB };
  const { compareSides } = await import('../../../evals/compare.js');
  const comparison = detailA.run.status === 'completed' ? compareSides({ runs: [detailB], results: resultsB }, { runs: pooledA, results: resultsA }, verdictSettings(spec)) : undefined;
  const missing = comparison ? undefined : `run A #${detailA.run.runNumber} (${detailA.run.id}) ${detailA.run.status}: it has no scores to compare with`;
  const gates = detailB.run.status === 'completed' ? evaluateGates(spec, detailB, detailA, { comparison, missing }, { results: resultsB }) : [];
  const diff = diffRuns(sideA, sideB);

  const outcome: RunOutcome = {
    agentId,
    evalId,
    detail: detailB,
    results: resultsB,
    gates,
    baseline: { spec: spec.baseline ? baselineArg(spec.baseline) : detailA.run.id, comparison, side: sideA, missing },
    suite: suite ? { name: suite.name } : undefined,
    history: needs.history ? runs : undefined,
  };
  if (reports.length) await writeReports(ctx, outcome, reports);

  let gatesPrinted = false;
  if (ctx.globals.quiet && !ctx.globals.query) {
    ctx.io.stdout.write(`${safeText(detailB.run.id)}\n`);
  } else if (machineOutput(ctx)) {
    await ctx.out.data({ ...diff, comparison: comparison ?? null, gates });
  } else {
    ctx.io.stdout.write(`${await renderDiff(diff, gates, await ctx.stdoutStyle(), comparison, ctx.tableFit())}\n`);
    gatesPrinted = true;
  }

  if (detailB.run.status === 'failed') throw new CliError(safe`run B #${detailB.run.runNumber} (${detailB.run.id}) failed${detailB.run.error ? `: ${detailB.run.error}` : ''}`);
  const failed = gates.filter((g) => !g.passed);
  if (failed.length) {
    if (!gatesPrinted) for (const g of failed) ctx.note(safe`✗ gate ${g.gate} failed: ${g.message}`);
    throw new GateError(`run B #${detailB.run.runNumber} (${detailB.run.id}) is below ${failed.length === 1 ? 'a gate' : `${failed.length} gates`}`);
  }
}
