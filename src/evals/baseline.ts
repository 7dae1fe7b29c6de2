import { InvalidArgumentError } from 'commander';
import type { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { getRun, listRunResults, listRuns, type Run, type RunDetail, type RunResult } from '../api/evals.js';
import { UsageError } from '../errors.js';

/**
 * `--baseline <runId>|previous|version:<n>|live`: the run a run is compared with (always a completed run).
 * `live` is `previous` for a run of the live agent itself; a preview's copy of the suite is another suite, so there it
 * resolves to the live suite's run (`suite`, `runId`), scenarios matched by name.
 */
export type BaselineSpec =
  | { kind: 'previous' }
  | { kind: 'version'; version: number }
  | { kind: 'run'; runId: string }
  | {
      kind: 'live';
      suite?: SuiteRef;
      runId?: string;
      missing?: string /** Pool the live suite's other completed runs of the picked run's version (a preview's live, previous, version:n). */;
      pool?: boolean;
    };

/** Commander parser for --baseline. */
export function baselineOption(v: string): BaselineSpec {
  const s = v.trim();
  if (s === 'previous') return { kind: 'previous' };
  if (s === 'live') return { kind: 'live' };
  const m = /^version:(\d+)$/.exec(s);
  if (m) {
    const version = Number(m[1]);
    if (!Number.isSafeInteger(version) || version < 1) throw new InvalidArgumentError('--baseline version:<n> takes an agent version ≥ 1 (e.g. version:3).');
    return { kind: 'version', version };
  }
  if (/^version:/.test(s)) throw new InvalidArgumentError('--baseline version:<n> takes a whole agent version (e.g. version:3).');
  if (s === '' || /[\s/\\?#]/.test(s) || s === '.' || s === '..') throw new InvalidArgumentError('--baseline takes a run id, previous, live, or version:<n>.');
  return { kind: 'run', runId: s };
}

/** The flag as typed, to repeat it in a resume command. */
export function baselineArg(spec: BaselineSpec): string {
  return spec.kind === 'previous' ? 'previous' : spec.kind === 'live' ? 'live' : spec.kind === 'version' ? `version:${spec.version}` : spec.runId;
}

export interface SuiteRef {
  agentId: string;
  evalId: string;
}

/** A baseline found, with its results; or why there is none. */
export type ResolvedBaseline = { detail: RunDetail; results: RunResult[]; missing?: undefined } | { missing: string; detail?: undefined; results?: undefined };

/** A baseline named by id, being read beside the run: the run (404: a usage error) and its results. */
export interface BaselineReads {
  run: Promise<RunDetail>;
  results: Promise<RunResult[]>;
}

/** Reads the run `--baseline <runId>` names: a usage error when it is not a run of the suite. */
export async function readBaselineRun(api: ApiClient, ref: SuiteRef, runId: string, signal?: AbortSignal): Promise<RunDetail> {
  try {
    return await getRun(api, ref.agentId, ref.evalId, runId, signal);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      throw new UsageError(`--baseline ${runId} is not a run of suite ${ref.evalId}`, `see \`vap evals runs list ${ref.evalId} --agent ${ref.agentId}\``);
    }
    throw err;
  }
}

function checkUsable(detail: RunDetail, ref: SuiteRef): void {
  const r = detail.run;
  if (r.status === 'completed') return;
  const why = r.status === 'failed' ? `failed${r.error ? ` (${r.error})` : ''}: it has no scores to compare with` : `is still ${r.status}`;
  throw new UsageError(
    `--baseline run #${r.runNumber} (${r.id}) ${why}`,
    `pick a completed run (\`vap evals runs list ${ref.evalId} --agent ${ref.agentId}\`)`,
  );
}

/**
 * Before a run is started or followed: a baseline named by id must be a completed run of
 * the suite, and one named by version must exist. `previous` is looked up at the end (a
 * first run has none; that is said, not refused). Usage errors (exit 2) otherwise.
 */
export async function checkBaseline(
  api: ApiClient,
  ref: SuiteRef,
  spec: BaselineSpec,
  current?: { id: string },
  signal?: AbortSignal,
  known: { runs?: Promise<Run[]>; baseline?: BaselineReads } = {},
): Promise<void> {
  if (spec.kind === 'run') {
    if (current && spec.runId === current.id)
      throw new UsageError(`--baseline ${spec.runId} is the run itself`, 'compare with another run, previous, or version:<n>');
    checkUsable(await (known.baseline?.run ?? readBaselineRun(api, ref, spec.runId, signal)), ref);
  } else if (spec.kind === 'version') {
    const runs = await (known.runs ?? listRuns(api, ref.agentId, ref.evalId, signal));
    if (!pickVersion(runs, spec.version, current?.id)) throw noVersion(runs, spec.version, ref, current?.id);
  }
}

function pickVersion(runs: readonly Run[], version: number, exclude?: string): Run | undefined {
  return [...runs].filter((r) => r.status === 'completed' && r.agentVersion === version && r.id !== exclude).sort((a, b) => b.runNumber - a.runNumber)[0];
}

function noVersion(runs: readonly Run[], version: number, ref: SuiteRef, exclude?: string): UsageError {
  const versions = [
    ...new Set(runs.filter((r) => r.status === 'completed' && r.id !== exclude && typeof r.agentVersion === 'number').map((r) => r.agentVersion as number)),
  ].sort((a, b) => a - b);
  return new UsageError(
    `--baseline version:${version}: suite ${ref.evalId} has no completed run made against agent version ${version}`,
    versions.length ? `versions with a completed run: ${versions.join(', ')}` : 'the suite has no completed run yet; run it first, or leave --baseline out',
  );
}

/**
 * The results of a run of another suite, their scenarios renamed to the ids of the
 * current run's scenarios of the same name (a preview's copy of a suite against the live
 * suite); a scenario with no namesake keeps an id of its own.
 */
export function matchScenariosByName(baseline: readonly RunResult[], current: readonly RunResult[]): RunResult[] {
  const idOf = new Map<string, string>();
  for (const r of current) if (r.scenarioName && !idOf.has(r.scenarioName)) idOf.set(r.scenarioName, r.evalScenarioId);
  return baseline.map((r) => ({ ...r, evalScenarioId: (r.scenarioName && idOf.get(r.scenarioName)) || `baseline:${r.evalScenarioId}` }));
}

/** Finds the baseline of `current` and reads its results (a baseline named by id: `known`, when it is being read already). */
export async function resolveBaseline(
  api: ApiClient,
  ref: SuiteRef,
  spec: BaselineSpec,
  current: Run,
  signal?: AbortSignal,
  runs?: readonly Run[],
  known?: BaselineReads,
  currentResults?: readonly RunResult[],
): Promise<ResolvedBaseline> {
  if (spec.kind === 'live') {
    if (spec.missing) return { missing: spec.missing };
    // The live suite is the run's own: the newest completed run before it.
    if (!spec.suite || !spec.runId) return resolveBaseline(api, ref, { kind: 'previous' }, current, signal, runs, known);
    const [detail, results] = await Promise.all([
      getRun(api, spec.suite.agentId, spec.suite.evalId, spec.runId, signal),
      listRunResults(api, spec.suite.agentId, spec.suite.evalId, spec.runId, signal),
    ]);
    return { detail, results: matchScenariosByName(results, currentResults ?? []) };
  }
  let detail: RunDetail;
  if (spec.kind === 'run') {
    if (spec.runId === current.id) throw new UsageError(`--baseline ${spec.runId} is the run itself`, 'compare with another run, previous, or version:<n>');
    detail = await (known?.run ?? readBaselineRun(api, ref, spec.runId, signal));
    checkUsable(detail, ref);
    if (known) return { detail, results: await known.results };
  } else {
    const list = runs ?? (await listRuns(api, ref.agentId, ref.evalId, signal));
    const pick =
      spec.kind === 'previous'
        ? [...list]
            .filter((r) => r.status === 'completed' && r.runNumber < current.runNumber && r.id !== current.id)
            .sort((a, b) => b.runNumber - a.runNumber)[0]
        : pickVersion(list, spec.version, current.id);
    if (!pick) {
      return {
        missing:
          spec.kind === 'previous'
            ? `no completed run of suite ${ref.evalId} before run #${current.runNumber} to compare with`
            : `no completed run of suite ${ref.evalId} made against agent version ${spec.version} to compare with`,
      };
    }
    const [d, results] = await Promise.all([
      getRun(api, ref.agentId, ref.evalId, pick.id, signal),
      listRunResults(api, ref.agentId, ref.evalId, pick.id, signal),
    ]);
    return { detail: d, results };
  }
  const results = await listRunResults(api, ref.agentId, ref.evalId, detail.run.id, signal);
  return { detail, results };
}

/**
 * `previous` and `version:<n>` pool every completed run of the suite on the same agent version (scenarios matched by id),
 * which costs no call; a run id and `live` take the run alone. `exclude` names current-side runs, never pooled here.
 */
export type PooledBaseline =
  | { newest: RunDetail; runs: RunDetail[]; results: RunResult[]; missing?: undefined }
  | { missing: string; newest?: undefined; runs?: undefined; results?: undefined };

export async function resolvePooledBaseline(
  api: ApiClient,
  ref: SuiteRef,
  spec: BaselineSpec,
  current: Run,
  signal?: AbortSignal,
  runs?: readonly Run[],
  known?: BaselineReads,
  currentResults?: readonly RunResult[],
  exclude: ReadonlySet<string> = new Set(),
): Promise<PooledBaseline> {
  const found = await resolveBaseline(api, ref, spec, current, signal, runs, known, currentResults);
  if (found.missing !== undefined) return { missing: found.missing };
  const version = found.detail.run.agentVersion;
  if (spec.kind === 'live' && spec.suite && spec.pool && typeof version === 'number')
    return poolLive(api, spec.suite, found, version, currentResults ?? [], signal);
  const poolable = spec.kind === 'previous' || spec.kind === 'version' || (spec.kind === 'live' && !spec.suite);
  if (!poolable || typeof version !== 'number') return { newest: found.detail, runs: [found.detail], results: found.results };
  const list = runs ?? (await listRuns(api, ref.agentId, ref.evalId, signal));
  const others = list.filter(
    (r) =>
      r.status === 'completed' &&
      r.agentVersion === version &&
      r.id !== found.detail.run.id &&
      r.id !== current.id &&
      !exclude.has(r.id) &&
      (spec.kind !== 'previous' || r.runNumber < current.runNumber),
  );
  const more = await Promise.all(
    others.map((r) => Promise.all([getRun(api, ref.agentId, ref.evalId, r.id, signal), listRunResults(api, ref.agentId, ref.evalId, r.id, signal)])),
  );
  return { newest: found.detail, runs: [found.detail, ...more.map(([d]) => d)], results: [...found.results, ...more.flatMap(([, res]) => res)] };
}

/** The live suite's completed runs of `version` besides the one found, pooled with it, scenarios matched by name (a preview's copy). */
async function poolLive(
  api: ApiClient,
  suite: SuiteRef,
  found: { detail: RunDetail; results: RunResult[] },
  version: number,
  currentResults: readonly RunResult[],
  signal?: AbortSignal,
): Promise<PooledBaseline> {
  const list = await listRuns(api, suite.agentId, suite.evalId, signal);
  const others = list.filter((r) => r.status === 'completed' && r.agentVersion === version && r.id !== found.detail.run.id);
  const more = await Promise.all(
    others.map((r) => Promise.all([getRun(api, suite.agentId, suite.evalId, r.id, signal), listRunResults(api, suite.agentId, suite.evalId, r.id, signal)])),
  );
  const results = [...found.results, ...more.flatMap(([, res]) => matchScenariosByName(res, currentResults))];
  return { newest: found.detail, runs: [found.detail, ...more.map(([d]) => d)], results };
}
