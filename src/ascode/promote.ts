import type { ApiClient } from '../api/client.js';
import { NotFoundError } from '../api/errors.js';
import { getRun, listRuns, type Run, type RunDetail } from '../api/evals.js';
import type { Env } from '../context.js';
import { gatherOutcome } from '../evals/follow.js';
import type { GateSpec } from '../evals/gates.js';
import { contentHash, fieldHashes, type FieldHashes } from './model.js';
import { agentFilesHash, changedAgents, gatingSuites } from './passed.js';
import type { Plan } from './plan.js';
import type { LocalFiles } from './project.js';
import { remoteHashes, RemoteReader, suiteModelOf, type RemoteAgent } from './remote.js';
import type { State } from './state.js';

/**
 * `vap promote --from <source> --to <target>`: the target gets only what passed in the source, as its platform shows it now.
 * The state only names the runs, so every claim is checked there: same content, each run of a gating suite, completed, on the
 * agent's current version, passing gates from the flags or vap.yaml, never the state. Else it is refused and nothing is sent.
 */

export interface PromotionCheck {
  /** Agents (and webhooks) the promotion may carry, with why. */
  carried: Array<{ kind: 'agent' | 'webhook'; key: string; why: string }>;
  /** What it refuses, with why: nothing is sent when this is not empty. */
  refused: Array<{ kind: 'agent' | 'webhook'; key: string; why: string }>;
}

export interface PromotionInput {
  plan: Plan;
  files: LocalFiles;
  source: State;
  from: string;
  /** The target profile (its state's records are what the files were read against). */
  to: string;
  /** The source platform's evidence, as SourceEvidence reads it. */
  evidence: SourceEvidence;
  /** The gates every run must pass. */
  gates: GateSpec;
  allowUnevaluated: boolean;
}

const CHANGES = new Set(['create', 'update', 'replace', 'drift', 'conflict', 'blocked']);

type Verdict = { ok: boolean; text: string };
const refuse = (text: string): Verdict => ({ ok: false, text });

export async function checkPromotion(input: PromotionInput): Promise<PromotionCheck> {
  const { plan } = input;
  const out: PromotionCheck = { carried: [], refused: [] };
  // The agents whose own file or whose suites the target plan would change (a delete is not a promotion of content).
  const agents = new Set<string>();
  for (const i of plan.items) {
    if (!CHANGES.has(i.action)) continue;
    if (i.kind === 'agent') agents.add(i.key);
    else if (i.kind === 'suite') agents.add(i.agentKey ?? i.key.split('/')[0]!);
    else if (input.allowUnevaluated) out.carried.push({ kind: 'webhook', key: i.key, why: 'unevaluated (--allow-unevaluated)' });
    else out.refused.push({ kind: 'webhook', key: i.key, why: 'a webhook endpoint has no evals to pass; --allow-unevaluated carries it' });
  }
  await Promise.all(
    [...agents].sort().map(async (slug) => {
      const v = await agentVerdict(input, slug);
      (v.ok ? out.carried : out.refused).push({ kind: 'agent', key: slug, why: v.text });
    }),
  );
  // By code point, as the slugs were sorted above (localeCompare's first call loads ICU's collation).
  const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  out.carried.sort(byKey);
  out.refused.sort(byKey);
  return out;
}

async function agentVerdict(input: PromotionInput, slug: string): Promise<Verdict> {
  const { files, source, from } = input;
  const agent = files.agents.get(slug);
  if (!agent) return refuse('has no agent.md in the files');
  const suiteKeys = gatingSuites(files, slug);
  if (suiteKeys.length === 0) {
    return input.allowUnevaluated
      ? { ok: true, text: 'unevaluated: it has no gating suite (--allow-unevaluated)' }
      : refuse('has no gating suite (gate: true) to pass; --allow-unevaluated carries it anyway');
  }
  const stale = staleRecord(input, slug, suiteKeys);
  if (stale) return refuse(stale);
  const passed = source.passed[slug];
  const push = `\`vap push --profile ${from} --eval\``;
  if (!passed) return refuse(`its files have no record of passing their gating suites in profile "${from}" (${push} first)`);
  if (passed.via === 'preview') {
    return refuse(
      `it passed a preview in profile "${from}" (runs ${passed.runs.join(', ')}), whose copies are gone: a preview does not qualify a promotion; ${push} runs its gating suites on the agent there`,
    );
  }
  const agentId = source.agents[slug]?.id;
  if (!agentId) return refuse(`profile "${from}" has no agent ${slug} in its state: ${push} first`);
  const live = await input.evidence.agent(agentId);
  if (!live) return refuse(`it is gone from profile "${from}" since it passed there`);
  const filesHash = agentFilesHash(files, slug);
  if (contentHash('agent', remoteHashes('agent', live)) !== contentHash('agent', freshHashes('agent', agent))) {
    // The decision is the platform's; the state only chooses the words (the files are the
    // ones that passed, and the platform is not what the last sync of the source saw).
    const drifted = passed.files === filesHash && source.agents[slug]?.hash !== contentHash('agent', remoteHashes('agent', live));
    return refuse(
      drifted
        ? `it drifted in profile "${from}" since it passed there: its platform config changed (\`vap diff --profile ${from}\` shows how)`
        : `its files were edited since they passed in profile "${from}" (runs ${passed.runs.join(', ')} of ${passed.at}); evaluate this version there first`,
    );
  }
  const suites = await input.evidence.suites(agentId);
  const suiteIds = new Map<string, string>();
  for (const key of suiteKeys) {
    const id = source.suites[key]?.id;
    const remote = id ? suites?.find((s) => s.id === id) : undefined;
    if (!id || !remote) return refuse(`its gating suite ${key} is not on profile "${from}": ${push} first`);
    const scenarios = await input.evidence.scenarios(agentId, id);
    if (!scenarios) return refuse(`its gating suite ${key} is not on profile "${from}": ${push} first`);
    const there = contentHash('suite', fieldHashes('suite', suiteModelOf(remote, scenarios)));
    if (there !== contentHash('suite', freshHashes('suite', files.suites.get(key)!))) {
      return refuse(
        `its gating suite ${key} on profile "${from}" is not what the file holds (edited since it passed, or changed there): evaluate this version there first`,
      );
    }
    suiteIds.set(id, key);
  }
  const verified = new Set<string>();
  for (const runId of passed.runs) {
    const v = await verifyRun(input, agentId, live.version, suiteIds, runId);
    if (!v.ok) return v;
    verified.add(v.text);
  }
  const unproven = suiteKeys.filter((k) => !verified.has(k));
  if (unproven.length) return refuse(`its gating suite ${unproven[0]} has no recorded run of version ${live.version} on profile "${from}": ${push} first`);
  return { ok: true, text: `passed in profile "${from}" (a gated push, runs ${passed.runs.join(', ')}, verified there on version ${live.version})` };
}

/**
 * A run the state names, checked on the source platform: a run of one of the agent's gating
 * suites there, completed, made on the agent's current version, passing the gates. When it
 * is, the text is the suite's key.
 */
async function verifyRun(input: PromotionInput, agentId: string, version: number, suiteIds: Map<string, string>, runId: string): Promise<Verdict> {
  const { from } = input;
  let found: { suiteId: string; run: Run } | undefined;
  for (const suiteId of suiteIds.keys()) {
    const run = (await input.evidence.runs(agentId, suiteId))?.find((r) => r.id === runId);
    if (run) found = { suiteId, run };
  }
  if (!found) return refuse(`run ${runId} is not a run of its gating suites on profile "${from}"`);
  const { suiteId, run } = found;
  if (run.status !== 'completed') return refuse(`run ${runId} is ${run.status} on profile "${from}", not completed`);
  if (run.agentVersion !== version)
    return refuse(
      `run ${runId} was made on version ${run.agentVersion ?? '?'}; the agent is at version ${version} on profile "${from}" now: evaluate this version there first`,
    );
  const failed = await input.evidence.failedGates({ agentId, evalId: suiteId, runId }, input.gates);
  if (failed === null) return refuse(`run ${runId} is gone from profile "${from}"`);
  if (failed.length) return refuse(`run ${runId} does not pass ${failed[0]}`);
  return { ok: true, text: suiteIds.get(suiteId)! };
}

/**
 * The target state's record of a carried file must be what the file holds: a file whose
 * text the state says was synced is not parsed for the plan, and a hand-edited record
 * would let the plan see other content than the text that is sent.
 */
function staleRecord(input: PromotionInput, slug: string, suiteKeys: string[]): string | undefined {
  const { files, to } = input;
  const checks: Array<[string, 'agent' | 'suite', { parsed: boolean; file: string; hashes: FieldHashes; model: object }]> = [
    [slug, 'agent', files.agents.get(slug)!],
  ];
  for (const k of suiteKeys) checks.push([k, 'suite', files.suites.get(k)!]);
  for (const [, kind, f] of checks) {
    if (f.parsed) continue;
    if (contentHash(kind, freshHashes(kind, f)) !== contentHash(kind, f.hashes)) {
      return `the state of profile "${to}" records ${f.file} with other content than the file holds: restore .vap/state.${to}.json from git, or run \`vap pull --profile ${to}\``;
    }
  }
  return undefined;
}

/** A file's field hashes from its text (a synced file's come from the state until it is parsed). */
function freshHashes(kind: 'agent' | 'suite', f: { parsed: boolean; hashes: FieldHashes; model: object }): FieldHashes {
  return f.parsed ? f.hashes : fieldHashes(kind, f.model as never);
}

/**
 * What the source platform holds for a promotion, each read once: agents, suites, scenarios, a suite's runs, a run's gates.
 * `readAhead` starts, while the target is read for the plan, the reads the check will most likely ask for (agents whose files
 * changed since the target's last sync and that have a record in the source).
 */
export class SourceEvidence {
  private readonly reads = new Map<string, Promise<unknown>>();
  private readonly reader: RemoteReader;

  constructor(
    private readonly api: ApiClient,
    private readonly ctx: { signal: AbortSignal; env: Env; warn(message: string): void | Promise<void> },
  ) {
    this.reader = new RemoteReader(api, ctx.signal);
  }

  private once<T>(key: string, read: () => Promise<T>): Promise<T> {
    let p = this.reads.get(key) as Promise<T> | undefined;
    if (!p) {
      p = read();
      // A read ahead that fails is reported when the check asks for it (or never, when it does not).
      p.catch(() => undefined);
      this.reads.set(key, p);
    }
    return p;
  }

  agent(id: string): Promise<RemoteAgent | null> {
    return this.once(`agent ${id}`, () => this.reader.agent(id));
  }

  suites(agentId: string) {
    return this.once(`suites ${agentId}`, () => this.reader.suites(agentId));
  }

  scenarios(agentId: string, suiteId: string) {
    return this.once(`scenarios ${agentId} ${suiteId}`, () => this.reader.scenarios(agentId, suiteId));
  }

  runs(agentId: string, suiteId: string): Promise<Run[] | null> {
    return this.once(`runs ${agentId} ${suiteId}`, () => orNull(listRuns(this.api, agentId, suiteId, this.ctx.signal)));
  }

  /** The gates a run fails, as `--min-score 0.8: overall score 0.71 < 0.8`; null when the run is gone. */
  failedGates(ref: { agentId: string; evalId: string; runId: string }, gates: GateSpec): Promise<string[] | null> {
    return this.once(`gates ${ref.runId}`, async () => {
      const detail: RunDetail | null = await orNull(getRun(this.api, ref.agentId, ref.evalId, ref.runId, this.ctx.signal));
      if (!detail) return null;
      const outcome = await gatherOutcome({ api: this.api, signal: this.ctx.signal, env: this.ctx.env, reporter: this.ctx }, ref, detail, {
        gates,
        reports: [],
      });
      return outcome.gates.filter((g) => !g.passed).map((g) => `${g.gate}: ${g.message}`);
    });
  }

  readAhead(files: LocalFiles, source: State): void {
    for (const slug of changedAgents(files)) {
      const id = source.agents[slug]?.id;
      if (!id || source.passed[slug]?.via !== 'push') continue;
      void this.agent(id);
      void this.suites(id);
      for (const key of gatingSuites(files, slug)) {
        const suiteId = source.suites[key]?.id;
        if (suiteId) void this.runs(id, suiteId);
      }
    }
  }
}

function orNull<T>(p: Promise<T>): Promise<T | null> {
  return p.then(undefined, (err: unknown) => {
    if (err instanceof NotFoundError) return null;
    throw err;
  });
}
