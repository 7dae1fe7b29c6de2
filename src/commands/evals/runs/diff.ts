import { Command } from 'commander';
import { FINISHED_RUN_STATUSES, getRun, listRunResults } from '../../../api/evals.js';
import type { Context, GlobalOptions } from '../../../context.js';
import { diffRuns, renderDiff, type RunSide } from '../../../evals/diff.js';
import { machineOutput, resumeCommand } from '../../../evals/follow.js';
import { checkCriterionKeys, evaluateGates, scoreOption } from '../../../evals/gates.js';
import { CliError, GateError, UsageError } from '../../../errors.js';
import { action } from '../../action.js';
import { safeText } from '../../../ui/safe-text.js';
import type { ContextFactory } from '../../types.js';
import { agentOption, evalOption, resolveAgent } from '../options.js';
import { addGateOptions, gateSpec, type GateOptions } from '../run.js';

type DiffOptions = GateOptions & { agent?: string; eval?: string; maxDrop?: number };

export function diffCommand(makeContext: ContextFactory): Command {
  const cmd = new Command('diff')
    .description('Compare two runs of a suite: per scenario and per criterion, A, B and the change; gate CI on run B')
    .argument('<runA|evalId>', 'run A (the base), or the suite when three ids are given')
    .argument('[runB|runA]', 'run B (the candidate)')
    .argument('[runB]', 'run B when the suite came first')
    .addOption(agentOption())
    .addOption(evalOption());
  addGateOptions(cmd)
    .option('--max-drop <score>', 'exit 3 when B\'s overall score or any criterion is lower than A\'s by more than this', scoreOption('--max-drop'))
    .addHelpText(
      'after',
      `
Both runs must have ended. The gates of \`vap evals run\` apply to run B, plus
--max-drop against A. Exit 0 passed, 3 below a gate, 1 when run B failed.

Examples:
  $ vap evals runs diff run_001 run_002 --eval ev_123 --agent ag_456
  $ vap evals runs diff ev_123 run_001 run_002 --agent ag_456 --max-drop 0.05
  $ vap evals runs diff run_001 run_002 --eval ev_123 --agent ag_456 --json`,
    )
    .action(action<DiffOptions>(makeContext, (args, opts, ctx) => run(args, opts, ctx)));
  return cmd;
}

function resolveIds(args: (string | undefined)[], opts: { eval?: string }): { evalId: string; a: string; b: string } {
  const given = args.filter((x): x is string => typeof x === 'string' && x.length > 0);
  if (given.length === 3) {
    const [evalId, a, b] = given as [string, string, string];
    if (opts.eval && opts.eval !== evalId) throw new UsageError(`--eval ${opts.eval} disagrees with the suite argument ${evalId}`, 'give the suite once');
    return { evalId, a, b };
  }
  if (given.length === 2) {
    if (!opts.eval) throw new UsageError('missing the eval suite', 'use `diff <runA> <runB> --eval <evalId>` or `diff <evalId> <runA> <runB>`');
    return { evalId: opts.eval, a: given[0]!, b: given[1]! };
  }
  throw new UsageError(`diff compares two runs; ${given.length === 1 ? `only ${given[0]} was given` : 'none was given'}`, 'use `diff <runA> <runB> --eval <evalId>` (see `vap evals runs list <evalId>`)');
}

export async function run(args: (string | undefined)[], opts: DiffOptions & GlobalOptions, ctx: Context): Promise<void> {
  const { evalId, a, b } = resolveIds(args, opts);
  const agentId = resolveAgent(opts, ctx);
  const spec = gateSpec(opts);
  const api = await ctx.api();
  const [detailA, detailB, resultsA, resultsB] = await Promise.all([
    getRun(api, agentId, evalId, a, ctx.signal),
    getRun(api, agentId, evalId, b, ctx.signal),
    listRunResults(api, agentId, evalId, a, ctx.signal),
    listRunResults(api, agentId, evalId, b, ctx.signal),
  ]);
  checkCriterionKeys(spec, detailB.aggregates.criteria.map((c) => c.criterionKey));
  for (const [label, d] of [['A', detailA], ['B', detailB]] as const) {
    if (!FINISHED_RUN_STATUSES.has(d.run.status)) {
      throw new CliError(`run ${label} (${d.run.id}) is still ${d.run.status}`, 1, `wait for it first: ${resumeCommand({ agentId, evalId, runId: d.run.id }, { gates: { minCriteria: [], allowFailedIterations: 0 }, reports: [] })}`);
    }
  }
  const sideA: RunSide = { detail: detailA, results: resultsA };
  const sideB: RunSide = { detail: detailB, results: resultsB };
  const gates = detailB.run.status === 'completed' ? evaluateGates(spec, detailB, detailA) : [];
  const diff = diffRuns(sideA, sideB);

  if (ctx.globals.quiet && !ctx.globals.query) {
    ctx.io.stdout.write(`${safeText(detailB.run.id)}\n`);
  } else if (machineOutput(ctx)) {
    await ctx.out.data({ ...diff, gates });
  } else {
    ctx.io.stdout.write(`${await renderDiff(diff, gates, await ctx.stdoutStyle())}\n`);
  }

  if (detailB.run.status === 'failed') throw new CliError(`run B #${detailB.run.runNumber} (${detailB.run.id}) failed${detailB.run.error ? `: ${detailB.run.error}` : ''}`);
  const failed = gates.filter((g) => !g.passed);
  if (failed.length) {
    for (const g of failed) ctx.io.stderr.write(`✗ ${safeText(`gate ${g.gate} failed: ${g.message}`)}\n`);
    throw new GateError(`run B #${detailB.run.runNumber} (${detailB.run.id}) is below ${failed.length === 1 ? 'a gate' : `${failed.length} gates`}`);
  }
}
