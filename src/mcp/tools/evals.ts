import { z } from 'zod';
import { getRun, getSuite, listRunResults, listRuns, listScenarios, listSuites } from '../../api/evals.js';
import { InterruptedError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { safe, safeText } from '../../ui/safe-text.js';
import type { BaselineSpec } from '../../evals/baseline.js';
import type { ReadEnd } from '../../evals/run-gated.js';
import type { RunReporter } from '../../evals/run-reporter.js';
import type { ToolOutput } from '../result.js';
import { limitOf, listInput, listOutput, openCursor } from '../paging.js';
import { Refusal } from '../safety.js';
import * as S from '../schemas.js';
import { defineTool, type ToolEnv } from '../tool.js';

const agentId = z.string().min(1).describe('The agent the suite belongs to (from vap_agents_list).');
const evalId = z.string().min(1).describe('The eval suite id (from vap_evals_list).');
const runId = z.string().min(1).describe('The run id (from vap_evals_runs_list).');

/** The gates and baseline of `vap evals run`, as arguments. */
const gateInput = {
  minScore: z.number().min(0).max(1).optional().describe('Gate: the overall score must be at least this (0..1).'),
  minCriteria: z
    .array(z.object({ key: z.string().min(1), score: z.number().min(0).max(1) }))
    .optional()
    .describe('Gates: each criterion, by key, must average at least its score.'),
  minPassRate: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe(
      "Gate: each scenario's share of iterations that passed the score gate, and across pooled runs the estimate that all k of k calls pass (pass^k), must be at least this.",
    ),
  allowFailedIterations: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Failed iterations that do not fail the gates. Default: fewer than 20% of the calls, and with a baseline not significantly more than its share.'),
  baseline: z
    .string()
    .optional()
    .describe(
      'Compare with: previous or version:<n> (every completed run of that version, pooled: no call spent) or a run id (that run alone); a verdict overall, per scenario and per criterion, family-wise at alpha.',
    ),
  failOnRegression: z.boolean().optional().describe('Gate: no significant regression against the baseline (default baseline: previous).'),
  minEffect: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe('The smallest change a verdict counts, and the equivalence margin of "no significant change" (default 0.05).'),
  alpha: z.number().gt(0).lt(0.5).optional().describe('The family-wise rate of a false "regressed" over every row the gate tests (default 0.01).'),
};

type GateArgs = {
  minScore?: number;
  minCriteria?: Array<{ key: string; score: number }>;
  minPassRate?: number;
  allowFailedIterations?: number;
  baseline?: string;
  failOnRegression?: boolean;
  minEffect?: number;
  alpha?: number;
};

const gated = (a: GateArgs) =>
  a.minScore !== undefined ||
  Boolean(a.minCriteria?.length) ||
  a.minPassRate !== undefined ||
  a.allowFailedIterations !== undefined ||
  a.baseline !== undefined ||
  Boolean(a.failOnRegression);

/** The arguments as the verbs' options (the CLI's --min-score, --min-criterion, …), the baseline read by the CLI's own parser. */
async function gateOptions(a: GateArgs): Promise<{
  minScore?: number;
  minCriterion?: Array<{ key: string; min: number }>;
  minPassRate?: number;
  allowFailedIterations?: number;
  baseline?: BaselineSpec;
  failOnRegression?: boolean;
  minEffect?: number;
  alpha?: number;
}> {
  let baseline: BaselineSpec | undefined;
  if (a.baseline !== undefined) {
    const { baselineOption } = await import('../../evals/baseline.js');
    try {
      baseline = baselineOption(a.baseline);
    } catch (err) {
      throw new Refusal(`baseline: ${(err as Error).message.replace(/--baseline/g, 'baseline')}`);
    }
  }
  return {
    minScore: a.minScore,
    minCriterion: a.minCriteria?.map((c) => ({ key: c.key, min: c.score })),
    minPassRate: a.minPassRate,
    allowFailedIterations: a.allowFailedIterations,
    baseline,
    failOnRegression: a.failOnRegression,
    minEffect: a.minEffect,
    alpha: a.alpha,
  };
}

const outcome = z.looseObject({
  run: S.run.nullish(),
  aggregates: S.aggregates.nullish(),
  results: z.array(S.runResult).nullish(),
  gates: z.array(S.gate).nullish(),
  baseline: z.looseObject({}).nullish(),
});

const gatedOutput = z.object({
  outcome: outcome
    .nullish()
    .describe("The run, its aggregates, its results (without transcripts: vap_evals_runs_results has them), the gates and the baseline's verdicts"),
  started: S.run.nullish(),
  verdict: S.verdict.optional(),
  log: z.array(z.string()).describe('What the command said on its way (progress, warnings)'),
});

/** Results without their transcripts (a run's can be large): vap_evals_runs_results gives them. */
function lean(json: unknown): unknown {
  const o = json as { results?: Array<Record<string, unknown>> } | null;
  if (!o || typeof o !== 'object' || !Array.isArray(o.results)) return json;
  return { ...o, results: o.results.map(({ transcript: _t, ...r }) => r) };
}

/** JSON as the CLI's --json prints it (what is not JSON dropped). */
const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

/** The run's reporter of a tool: each line, made safe, kept for the result's log and told to the client as it comes. */
function toolReporter(env: ToolEnv, log: string[]): { reporter: RunReporter; say(line: string): void } {
  const say = (line: string) => {
    log.push(line);
    env.progress(line);
  };
  return {
    say,
    reporter: {
      info: (l) => say(safeText(l)),
      warn: (l) => say(`! ${safeText(l)}`),
      started: (_run, l) => say(safeText(l)),
      look: (l) => say(safeText(l)),
      progress: async () => {
        const { LineProgress } = await import('../../evals/progress.js');
        return new LineProgress((l) => say(safeText(l)));
      },
    },
  };
}

/** What a gated run's end gives the tool as its command's exit would: 0 passed, 3 below a gate, 1 the run failed or is still going, 124 the wait ran out. */
async function gatedResult(end: ReadEnd, say: (line: string) => void, log: string[]): Promise<ToolOutput> {
  const notes: string[] = [];
  let outcome: unknown = null;
  let verdict: { passed: boolean; exitCodeInTheCli: number; message?: string } = { passed: true, exitCodeInTheCli: 0 };
  switch (end.kind) {
    case 'read':
      outcome = asJson(end.detail);
      break;
    case 'running':
      await end.writeReports();
      outcome = asJson(end.detail);
      verdict = { passed: false, exitCodeInTheCli: ExitCode.FAILURE, message: `run ${end.runId} is still ${end.detail.run.status}` };
      break;
    case 'stopped': {
      const { waitStopText } = await import('../../evals/outcome.js');
      if (end.stop.kind === 'interrupted') throw new InterruptedError(waitStopText(end.stop));
      verdict = { passed: false, exitCodeInTheCli: ExitCode.TIMEOUT, message: waitStopText(end.stop) };
      notes.push('The wait ran out; the run goes on. Read it later with vap_evals_runs_get (with the same gates to gate it).');
      break;
    }
    case 'ended': {
      const { outcomeJson, outcomeVerdict } = await import('../../evals/outcome.js');
      outcome = asJson(outcomeJson(end.outcome));
      const v = outcomeVerdict(end.outcome);
      if (v.kind === 'gates') for (const g of v.failed) say(safeText(safe`✗ gate ${g.gate} failed: ${g.message}`));
      if (v.kind === 'passed') say(`✓ ${safeText(v.message)}`);
      else verdict = { passed: false, exitCodeInTheCli: v.kind === 'gates' ? ExitCode.GATE : ExitCode.FAILURE, message: v.message };
    }
  }
  return { data: { outcome: outcome === null ? null : lean(outcome), verdict, log }, notes, rest: 'read the results with vap_evals_runs_results' };
}

/** The domain's dependencies for a tool: the server's client and environment, the call's signal, a reporter into `log`. */
function runDeps(env: ToolEnv, log: string[]) {
  const { reporter, say } = toolReporter(env, log);
  return { deps: { api: async () => env.api, signal: env.signal, env: env.env, reporter }, say };
}

export const evalTools = [
  defineTool({
    name: 'vap_evals_list',
    title: "List an agent's eval suites",
    description:
      "The eval suites of an agent: name, status (draft or ready), iterations per scenario, scoring criteria, number of runs and the latest run's score.",
    input: { agentId, ...listInput },
    output: z.object({ suites: z.array(S.suite), total: S.num }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const { pos, filters } = openCursor(env.tool, a.cursor, { agentId: a.agentId });
      const offset = pos.o ?? 0;
      const all = await listSuites(env.api, filters.agentId as string, env.signal);
      const items = all.slice(offset, offset + limitOf(a.limit));
      return listOutput({ tool: env.tool, key: 'suites', filters }, items, offset + items.length < all.length, (n) => ({ o: offset + n }), all.length);
    },
  }),

  defineTool({
    name: 'vap_evals_get',
    title: 'Get an eval suite',
    description: 'One eval suite (criteria and their weights, noise, latest score) and its scenarios (persona, goal, category, enabled).',
    input: { agentId, evalId },
    output: z.object({ suite: S.suite, scenarios: z.array(S.scenario) }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const [suite, scenarios] = await Promise.all([
        getSuite(env.api, a.agentId, a.evalId, env.signal),
        listScenarios(env.api, a.agentId, a.evalId, env.signal),
      ]);
      return { data: { suite, scenarios } };
    },
  }),

  defineTool({
    name: 'vap_evals_runs_list',
    title: 'List the runs of a suite',
    description: 'The runs of an eval suite, newest first: number, status, agent version, overall score, iterations completed and failed.',
    input: { agentId, evalId, ...listInput },
    output: z.object({ runs: z.array(S.run), total: S.num }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const { pos, filters } = openCursor(env.tool, a.cursor, { agentId: a.agentId, evalId: a.evalId });
      const offset = pos.o ?? 0;
      const all = await listRuns(env.api, filters.agentId as string, filters.evalId as string, env.signal);
      const items = all.slice(offset, offset + limitOf(a.limit));
      return listOutput({ tool: env.tool, key: 'runs', filters }, items, offset + items.length < all.length, (n) => ({ o: offset + n }), all.length);
    },
  }),

  defineTool({
    name: 'vap_evals_runs_get',
    title: 'Get a run',
    description:
      "One eval run: status, agent version, overall score, and each criterion's average and best score. With gates (minScore, minCriteria, allowFailedIterations, baseline, failOnRegression) on a run that has ended, the gates and the baseline's verdicts as `vap evals runs get` gives them.",
    input: { agentId, evalId, runId, ...gateInput },
    output: z.object({ run: S.run.optional(), aggregates: S.aggregates.optional() }).extend(gatedOutput.partial().shape),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      if (!gated(a)) {
        const d = await getRun(env.api, a.agentId, a.evalId, a.runId, env.signal);
        return { data: { run: d.run, aggregates: d.aggregates } };
      }
      const opts = { ...(await gateOptions(a)), timeout: 0 };
      const { readAndGate } = await import('../../evals/run-gated.js');
      const ref = { agentId: a.agentId.trim(), evalId: a.evalId, runId: a.runId };
      const log: string[] = [];
      const { deps, say } = runDeps(env, log);
      return gatedResult(await readAndGate(deps, ref, opts), say, log);
    },
  }),

  defineTool({
    name: 'vap_evals_runs_results',
    title: 'Read the results of a run',
    description:
      'The results of an eval run, one per scenario and iteration: status, overall score, the score and reason for each criterion, and the transcript of the call.',
    input: { agentId, evalId, runId, ...listInput },
    output: z.object({ results: z.array(S.runResult), total: S.num }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const { pos, filters } = openCursor(env.tool, a.cursor, { agentId: a.agentId, evalId: a.evalId, runId: a.runId });
      const offset = pos.o ?? 0;
      const all = await listRunResults(env.api, filters.agentId as string, filters.evalId as string, filters.runId as string, env.signal);
      const items = all.slice(offset, offset + limitOf(a.limit));
      return listOutput({ tool: env.tool, key: 'results', filters }, items, offset + items.length < all.length, (n) => ({ o: offset + n }), all.length);
    },
  }),

  defineTool({
    name: 'vap_evals_runs_diff',
    title: 'Compare two runs',
    description:
      'Compares run B of a suite with run A (runA), or with a baseline (previous, version:<n>, a run id): per scenario and criterion, A, B, the change and a verdict (regressed, improved, no significant change, too few iterations; Welch t-test, 95%), and the gates of `vap evals runs diff` on run B (minScore, minCriteria, maxDrop, failOnRegression). Both runs must have ended.',
    input: {
      agentId,
      evalId,
      runB: runId.describe('Run B, the candidate.'),
      runA: z.string().min(1).optional().describe('Run A, the base (or give baseline instead).'),
      ...gateInput,
      maxDrop: z.number().min(0).max(1).optional().describe("Gate: B's overall score and each criterion may be lower than A's by at most this."),
    },
    output: z.object({
      diff: z
        .looseObject({
          a: z.looseObject({}).nullish(),
          b: z.looseObject({}).nullish(),
          overall: z.looseObject({}).nullish(),
          scenarios: z.array(z.looseObject({})).nullish(),
          criteria: z.array(z.looseObject({})).nullish(),
          comparison: z.looseObject({}).nullish(),
          gates: z.array(S.gate).nullish(),
        })
        .nullish(),
      verdict: S.verdict,
      log: z.array(z.string()),
    }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      if (!a.runA && a.baseline === undefined)
        throw new Refusal('vap_evals_runs_diff compares two runs: give runA (the base), or baseline (previous, version:<n> or a run id) to compare runB with.');
      if (a.runA && a.baseline !== undefined) throw new Refusal('vap_evals_runs_diff: give runA or baseline, not both (baseline names run A).');
      const opts = await gateOptions(a);
      const [{ gateSpec }, { compareRuns, comparedFailure }] = await Promise.all([import('../../evals/settings.js'), import('../../evals/compare-runs.js')]);
      const spec = gateSpec({ ...opts, maxDrop: a.maxDrop }, { baseline: false });
      // No report and no GitHub step summary: a tool writes nothing beside its result.
      const compared = await compareRuns(env.api, { agentId: a.agentId, evalId: a.evalId, a: a.runA, b: a.runB }, spec, {
        reports: [],
        env: {},
        signal: env.signal,
      });
      const failure = comparedFailure(compared);
      const verdict = {
        passed: !failure,
        exitCodeInTheCli: failure ? (failure.kind === 'gates' ? ExitCode.GATE : ExitCode.FAILURE) : 0,
        ...(failure ? { message: failure.message } : {}),
      };
      const log = failure?.kind === 'gates' ? failure.failed.map((g) => safeText(safe`✗ gate ${g.gate} failed: ${g.message}`)) : [];
      const diff = JSON.parse(JSON.stringify({ ...compared.diff, comparison: compared.comparison ?? null, gates: compared.gates }));
      return { data: { diff: lean(diff), verdict, log }, notes: [], rest: 'read the results with vap_evals_runs_results' };
    },
  }),

  defineTool({
    name: 'vap_evals_run',
    title: 'Run an eval suite',
    description:
      'Starts a run of an eval suite: one real call per scenario per iteration, each scored against the criteria. With wait (the default) it follows the run until it ends or timeoutSeconds pass, then gives the scores, the gates and, with a baseline, the verdicts per scenario and criterion, exactly as `vap evals run --wait` does.',
    input: {
      agentId,
      evalId,
      wait: z.boolean().optional().describe('Follow the run until it ends (default true); false only starts it.'),
      timeoutSeconds: z.number().int().min(1).max(3600).optional().describe('Give up waiting after this long (default 50); the run goes on.'),
      ...gateInput,
      untilDecided: z
        .boolean()
        .optional()
        .describe(
          'While the verdict against the baseline is undecided, start another run of the same version and pool them, within maxCalls (needs maxCalls and wait).',
        ),
      maxCalls: z.number().int().min(1).optional().describe('The most calls this may place: a run that would pass it is refused before it starts.'),
    },
    output: gatedOutput,
    idempotent: false,
    openWorld: true,
    write: {
      changes: 'starts an eval run, which places real test calls to the agent (they take minutes, and cost what calls cost)',
      undo: 'a run cannot be undone; it only adds a run and its results (delete them with `vap evals runs delete` in a terminal)',
      destructive: false,
    },
    async run(a, env) {
      const wait = a.wait ?? true;
      if (!wait && (gated(a) || a.untilDecided))
        throw new Refusal(
          'vap_evals_run: the gates and the baseline need wait (without it the run is only started); leave wait out, or gate later with vap_evals_runs_get.',
        );
      const opts = {
        ...(await gateOptions(a)),
        wait,
        timeout: (a.timeoutSeconds ?? 50) * 1000,
        report: [],
        poll: false,
        untilDecided: a.untilDecided,
        maxCalls: a.maxCalls,
      };
      const { startAndGate } = await import('../../evals/run-gated.js');
      const ref = { agentId: a.agentId.trim(), evalId: a.evalId };
      const log: string[] = [];
      const { deps, say } = runDeps(env, log);
      const end = await startAndGate(deps, ref, opts);
      if (end.kind === 'started') {
        say(safeText(`Wait for it (and gate on it) with: ${end.resume}`));
        return {
          data: { outcome: null, started: asJson(end.run), log },
          notes: ['Started, not waited for: read it with vap_evals_runs_get, with gates to gate it.'],
        };
      }
      return gatedResult(end, say, log);
    },
  }),
];
