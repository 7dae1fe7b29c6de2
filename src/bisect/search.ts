import type { ApiClient } from '../api/client.js';
import { listRunResults, listRuns, listScenarios, getSuite, startRun, getRun, type RunDetail, type RunResult } from '../api/evals.js';
import { CliError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { RunComparison, Verdict, VerdictSettings } from '../evals/verdict.js';
import { waitForRun } from '../evals/wait.js';
import { contentDiff, diffSummary, type ContentDiff, type VersionContent } from './content.js';
import { BuildRefused, makeCopy, removeCopy, type CopyStore, type SuiteShape } from './copies.js';
import { nextIndex, stepShare, worstSteps, type Range } from './plan.js';

/**
 * Halves the versions between a good and a bad one, testing each on a preview copy with the adaptive verdict against the good version's runs.
 * Returns a typed result and reports progress through a port, so that the verbs and the MCP tool each render it their own way.
 */

export interface BisectInput {
  /** The live agent whose suite is copied, and the suite (unused when every version carries its own suite). */
  agentId: string;
  evalId: string;
  /** The name the copies are named after. */
  agentName: string;
  /** The good version first, the bad one last, every version between in order. */
  versions: VersionContent[];
  maxCalls: number;
  verdict: VerdictSettings;
  /** How the copies' records are keyed: `bisect-<label>`, or `<slug>.bisect-<label>`. */
  keyPrefix: string;
  /** The good version's number on the live suite, to pool its completed runs (absent in the git form). */
  liveGoodVersion?: number;
  /** How the messages name a version: `version` (default) or `commit`. */
  word?: string;
}

export interface Plan {
  candidates: number;
  steps: number;
  perRun: number;
  /** Calls of the good version pooled from the live suite, and the calls to top them up on a copy. */
  pooledCalls: number;
  topUpCalls: number;
  maxCalls: number;
}

export type StepStatus = 'regressed' | 'good' | 'undecided' | 'skipped';

export interface Step {
  version: number;
  label: string;
  status: StepStatus;
  verdict?: Verdict;
  /** Calls this step placed, and runs. */
  calls: number;
  runs: number;
  /** Whether it went on past its share of the budget, being undecided. */
  retested?: boolean;
  /** Why skipped; or the verdict's reason. */
  why: string;
  comparison?: RunComparison;
}

export type BisectResult =
  | {
      kind: 'found';
      first: VersionContent;
      lastGood: VersionContent;
      diff: ContentDiff;
      diffText: string;
      comparison: RunComparison;
      steps: Step[];
      calls: number;
      maxCalls: number;
      plan: Plan;
    }
  | { kind: 'no regression'; steps: Step[]; calls: number; maxCalls: number; plan: Plan; comparison?: RunComparison }
  | {
      kind: 'undecided' | 'skipped';
      range: { lastGood: string; firstBad: string; between: string[] };
      steps: Step[];
      calls: number;
      maxCalls: number;
      plan: Plan;
      why: string;
    };

export interface BisectReporter {
  planned(p: Plan): void;
  baseline(calls: number, pooled: number): void;
  step(s: Step, callsSoFar: number, maxCalls: number): void;
}

export interface BisectDeps {
  api: ApiClient;
  signal: AbortSignal;
  store: CopyStore;
  reporter: BisectReporter;
}

/** The runs the good version's baseline is topped up to, at least. */
export const BASELINE_RUNS = 3;

/** The suite's shape and the calls a run of it places. */
async function suiteShape(api: ApiClient, agentId: string, evalId: string, signal: AbortSignal): Promise<SuiteShape & { perRun: number }> {
  const [suite, scenarios] = await Promise.all([getSuite(api, agentId, evalId, signal), listScenarios(api, agentId, evalId, signal)]);
  const enabled = scenarios.filter((s) => s.isEnabled !== false);
  if (!enabled.length)
    throw new UsageError(`suite ${evalId} has no enabled scenario to run`, `add one with \`vap evals scenarios add ${evalId} --agent ${agentId} …\``);
  return withPerRun({ suite, scenarios: enabled });
}

const withPerRun = (s: SuiteShape): SuiteShape & { perRun: number } => ({
  ...s,
  perRun: s.scenarios.length * (Number.isSafeInteger(s.suite.iterationsPerScenario) ? s.suite.iterationsPerScenario : 1),
});

/** Each version's suite: its own (the git form), else the live one; `perRun` is the most a run of any places. */
async function shapes(
  deps: BisectDeps,
  input: BisectInput,
): Promise<{ of: (v: VersionContent) => SuiteShape & { perRun: number }; perRun: number; live?: SuiteShape }> {
  const live = input.versions.every((v) => v.suite || v.refused) ? undefined : await suiteShape(deps.api, input.agentId, input.evalId, deps.signal);
  const of = (v: VersionContent) => (v.suite ? withPerRun(v.suite) : live!);
  const perRun = Math.max(1, ...input.versions.filter((v) => !v.refused).map((v) => of(v).perRun));
  return { of, perRun, live };
}

/** Results with their scenario named by name, so that runs of the live suite and of every copy pool and compare. */
function byName(results: readonly RunResult[], names: ReadonlyMap<string, string>): RunResult[] {
  return results.map((r) => ({ ...r, evalScenarioId: `scenario:${r.scenarioName || names.get(r.evalScenarioId) || r.evalScenarioId}` }));
}

interface Side {
  runs: RunDetail[];
  results: RunResult[];
}

/** One run on a suite, followed to its end. */
async function oneRun(
  deps: BisectDeps,
  agentId: string,
  evalId: string,
  names: ReadonlyMap<string, string>,
): Promise<{ detail: RunDetail; results: RunResult[] }> {
  const run = await startRun(deps.api, agentId, evalId);
  const { detail, results } = await waitForRun(deps.api, { agentId, evalId, runId: run.id, signal: deps.signal });
  if (detail.run.status !== 'completed')
    throw new CliError(`run #${detail.run.runNumber} (${run.id}) of a bisect copy failed${detail.run.error ? `: ${detail.run.error}` : ''}`, ExitCode.FAILURE);
  return { detail, results: byName(results ?? (await listRunResults(deps.api, agentId, evalId, run.id, deps.signal)), names) };
}

const information = (n: number, n0: number) => (n > 0 && n0 > 0 ? 1 / (1 / n + 1 / n0) : 0);

export async function bisect(deps: BisectDeps, input: BisectInput): Promise<BisectResult> {
  const { api, signal } = deps;
  const word = input.word ?? 'version';
  const suites = await shapes(deps, input);
  const shape = { perRun: suites.perRun };
  const names = new Map<string, string>((suites.live?.scenarios ?? []).map((s) => [s.id, s.name]));
  const good = input.versions[0]!;
  const candidates = input.versions.slice(1);
  const n = candidates.length;
  let range: Range = { lo: -1, hi: n - 1, confirmed: false };

  // The good version's completed runs on the live suite (no call), topped up on a copy.
  const baseline: Side = { runs: [], results: [] };
  if (input.liveGoodVersion !== undefined && suites.live) {
    const runs = (await listRuns(api, input.agentId, input.evalId, signal)).filter((r) => r.status === 'completed' && r.agentVersion === input.liveGoodVersion);
    for (const r of runs) {
      const [d, res] = await Promise.all([
        getRun(api, input.agentId, input.evalId, r.id, signal),
        listRunResults(api, input.agentId, input.evalId, r.id, signal),
      ]);
      baseline.runs.push(d);
      baseline.results.push(...byName(res, names));
    }
  }
  const pooled = baseline.results.length;
  const worst = worstSteps(range);
  // The baseline is shared by every step, so it gets a step's share of the budget at least.
  const baselineRuns = Math.max(BASELINE_RUNS, Math.floor(input.maxCalls / (worst + 1) / shape.perRun));
  let topUpRuns = Math.max(0, baselineRuns - Math.floor(pooled / shape.perRun));
  if (topUpRuns > 0 && (topUpRuns + worst) * shape.perRun > input.maxCalls) topUpRuns = Math.max(0, BASELINE_RUNS - Math.floor(pooled / shape.perRun));
  const plan: Plan = { candidates: n, steps: worst, perRun: shape.perRun, pooledCalls: pooled, topUpCalls: topUpRuns * shape.perRun, maxCalls: input.maxCalls };
  const least = plan.topUpCalls + plan.steps * shape.perRun;
  if (least > input.maxCalls) {
    throw new UsageError(
      `a search over ${n} ${word}${n === 1 ? '' : 's'} takes up to ${plan.steps} steps of at least one run of ${shape.perRun} calls${plan.topUpCalls ? `, after ${plan.topUpCalls} calls for the good version's baseline` : ''}: at least ${least} calls, more than --max-calls ${input.maxCalls}`,
      `raise --max-calls to at least ${least} (a few times that lets each step decide), or narrow --good and --bad`,
    );
  }
  deps.reporter.planned(plan);

  let calls = 0;
  if (topUpRuns > 0) {
    const gs = suites.of(good);
    const copy = await makeCopy(api, deps.store, `${input.keyPrefix}${good.label}`, `bisect-${good.label}`, input.agentName, good, gs).catch((err) => {
      throw err instanceof BuildRefused
        ? new CliError(
            `the good ${word} ${good.label} cannot be built as a copy (${err.message}), so there is nothing to compare with; pick another --good`,
            ExitCode.FAILURE,
          )
        : err;
    });
    try {
      for (let i = 0; i < topUpRuns; i++) {
        const r = await oneRun(deps, copy.agentId, copy.evalId, new Map(gs.scenarios.map((s) => [s.id, s.name])));
        baseline.runs.push(r.detail);
        baseline.results.push(...r.results);
        calls += gs.perRun;
      }
    } finally {
      await removeCopy(api, deps.store, copy.rec);
    }
  }
  deps.reporter.baseline(calls, pooled);

  const { compareSides } = await import('../evals/compare.js');
  const steps: Step[] = [];
  const skipped = new Set<number>();
  const tested = new Map<number, Step>();
  let decisive: RunComparison | undefined;

  /** Tests one candidate on a copy, runs added while undecided within its share. */
  const test = async (i: number): Promise<Step> => {
    const v = candidates[i]!;
    if (v.refused) return { version: v.version, label: v.label, status: 'skipped', calls: 0, runs: 0, why: `its copy could not be built: ${v.refused}` };
    const vs = suites.of(v);
    const stepsLeft = Math.max(1, worstSteps(range));
    let share = stepShare(input.maxCalls - calls, stepsLeft, vs.perRun);
    let copy;
    try {
      copy = await makeCopy(api, deps.store, `${input.keyPrefix}${v.label}`, `bisect-${v.label}`, input.agentName, v, vs);
    } catch (err) {
      if (!(err instanceof BuildRefused)) throw err;
      return { version: v.version, label: v.label, status: 'skipped', calls: 0, runs: 0, why: `its copy could not be built: ${err.message}` };
    }
    const mine: Side = { runs: [], results: [] };
    const infos: number[] = [];
    let used = 0;
    let retested = false;
    let comparison: RunComparison | undefined;
    try {
      for (;;) {
        const r = await oneRun(deps, copy.agentId, copy.evalId, new Map(vs.scenarios.map((s) => [s.id, s.name])));
        mine.runs.push(r.detail);
        mine.results.push(...r.results);
        used += vs.perRun;
        calls += vs.perRun;
        const n0 = baseline.results.length;
        infos.push(information(mine.results.length, n0));
        const most = information(mine.results.length + Math.max(0, share - used), n0);
        comparison = compareSides(mine, baseline, { ...input.verdict, looks: infos.map((x) => Math.min(1, x / most)) });
        if (comparison.verdict !== 'too few iterations') break;
        if (used + vs.perRun > share) {
          // Tested again within the budget: more runs while one run is left for each step that may follow.
          const after = Math.max(0, worstSteps(range) - 1);
          const spare = input.maxCalls - calls - after * shape.perRun;
          if (retested || spare < vs.perRun) break;
          share = used + Math.min(share, Math.floor(spare / vs.perRun) * vs.perRun);
          retested = true;
        }
      }
    } finally {
      await removeCopy(api, deps.store, copy.rec);
    }
    const c = comparison!;
    const status: StepStatus = c.verdict === 'regressed' ? 'regressed' : c.verdict === 'too few iterations' ? 'undecided' : 'good';
    return {
      version: v.version,
      label: v.label,
      status,
      verdict: c.verdict,
      calls: used,
      runs: mine.runs.length,
      retested,
      why: c.overallChange.reason,
      comparison: c,
    };
  };

  const record = (s: Step) => {
    steps.push(s);
    deps.reporter.step(s, calls, input.maxCalls);
  };
  const labels = (from: number, to: number) => candidates.slice(from, to).map((c) => c.label);

  for (;;) {
    const i = nextIndex(range, skipped) ?? (!range.confirmed && !skipped.has(range.hi) && !tested.has(range.hi) ? range.hi : undefined);
    if (i === undefined) break;
    const s = await test(i);
    record(s);
    tested.set(i, s);
    if (s.status === 'skipped') skipped.add(i);
    else if (s.status === 'regressed') {
      range = { lo: range.lo, hi: i, confirmed: true };
      decisive = s.comparison;
    } else if (s.status === 'good') {
      range = { ...range, lo: i };
      if (i === range.hi) break;
    } else {
      const lastGood = range.lo < 0 ? good.label : candidates[range.lo]!.label;
      const why = `${word} ${s.label} is still undecided after ${s.calls} calls (${s.why}); the suite is too noisy to tell a change of ${input.verdict.minEffect} within --max-calls ${input.maxCalls}${s.comparison?.toDecide?.iterationsPerScenario ? ` (about ${s.comparison.toDecide.iterationsPerScenario} iterations per scenario would decide it)` : ''}`;
      return {
        kind: 'undecided',
        range: { lastGood, firstBad: candidates[range.hi]!.label, between: labels(range.lo + 1, range.hi) },
        steps,
        calls,
        maxCalls: input.maxCalls,
        plan,
        why,
      };
    }
  }

  if (range.lo === n - 1) return { kind: 'no regression', steps, calls, maxCalls: input.maxCalls, plan, comparison: tested.get(n - 1)?.comparison };
  const lastGood = range.lo < 0 ? good : candidates[range.lo]!;
  const between = labels(range.lo + 1, range.hi);
  if (!range.confirmed) {
    return {
      kind: 'skipped',
      range: { lastGood: lastGood.label, firstBad: candidates[range.hi]!.label, between },
      steps,
      calls,
      maxCalls: input.maxCalls,
      plan,
      why: `the bad ${word} ${candidates[range.hi]!.label} could not be built as a copy to confirm it`,
    };
  }
  if (between.length) {
    return {
      kind: 'skipped',
      range: { lastGood: lastGood.label, firstBad: candidates[range.hi]!.label, between },
      steps,
      calls,
      maxCalls: input.maxCalls,
      plan,
      why: `the first bad ${word} is one of ${[...between, candidates[range.hi]!.label].join(', ')}: ${between.length === 1 ? 'it was' : 'they were'} skipped`,
    };
  }
  const first = candidates[range.hi]!;
  const diff = contentDiff(lastGood, first);
  return { kind: 'found', first, lastGood, diff, diffText: diffSummary(diff), comparison: decisive!, steps, calls, maxCalls: input.maxCalls, plan };
}
