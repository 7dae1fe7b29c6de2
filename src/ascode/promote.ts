import { contentHash } from './model.js';
import { agentFilesHash, changedAgents, gatingSuites } from './passed.js';
import type { Plan } from './plan.js';
import type { LocalFiles } from './project.js';
import { remoteHashes, type RemoteAgent, type RemoteReader } from './remote.js';
import type { State } from './state.js';

/**
 * `vap promote --from <source> --to <target>`: the target gets only what passed in the
 * source. The target is planned as a push plans it; then each agent the plan would change
 * (its agent file or a suite of it) must have, in the source profile's state, a record
 * that its current files passed their gating suites there (a gated push or a preview),
 * and the source platform must still hold what it held then. Anything else is refused,
 * by name, and nothing is sent.
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
  /** The source platform's agents, as SourceAgents reads them. */
  sourceAgents: SourceAgents;
  allowUnevaluated: boolean;
}

const CHANGES = new Set(['create', 'update', 'replace', 'drift', 'conflict', 'blocked']);

export async function checkPromotion(input: PromotionInput): Promise<PromotionCheck> {
  const { plan, files, source, from } = input;
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
      const why = await agentVerdict(slug);
      (why.ok ? out.carried : out.refused).push({ kind: 'agent', key: slug, why: why.text });
    }),
  );
  // By code point, as the slugs were sorted above (localeCompare's first call loads ICU's collation, about 9 ms).
  const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  out.carried.sort(byKey);
  out.refused.sort(byKey);
  return out;

  async function agentVerdict(slug: string): Promise<{ ok: boolean; text: string }> {
    if (!files.agents.has(slug)) return { ok: false, text: 'has no agent.md in the files' };
    if (gatingSuites(files, slug).length === 0) {
      return input.allowUnevaluated ? { ok: true, text: 'unevaluated: it has no gating suite (--allow-unevaluated)' } : { ok: false, text: 'has no gating suite (gate: true) to pass; --allow-unevaluated carries it anyway' };
    }
    const passed = source.passed[slug];
    if (!passed) return { ok: false, text: `its files have no record of passing their gating suites in profile "${from}" (\`vap push --profile ${from} --eval\` or \`vap preview --profile ${from}\` first)` };
    if (passed.files !== agentFilesHash(files, slug)) {
      return { ok: false, text: `its files were edited since they passed in profile "${from}" (runs ${passed.runs.join(', ')} of ${passed.at}); evaluate this version there first` };
    }
    const id = source.agents[slug]?.id;
    if (passed.platform !== undefined && id) {
      const now = await input.sourceAgents.agent(id);
      if (!now) return { ok: false, text: `it is gone from profile "${from}" since it passed there` };
      if (contentHash('agent', remoteHashes('agent', now)) !== passed.platform) {
        return { ok: false, text: `it drifted in profile "${from}" since it passed there: its platform config changed (\`vap diff --profile ${from}\` shows how)` };
      }
    }
    return { ok: true, text: `passed in profile "${from}" (${passed.via === 'preview' ? 'a preview' : 'a gated push'}, runs ${passed.runs.join(', ')})` };
  }
}

/**
 * The agents of the source platform a promotion compares with what passed: each read once.
 * `readAhead` starts, while the target platform is read for the plan, the reads of the
 * agents the check will most likely ask for (those whose files differ from the target's
 * last sync and that have a record of passing in the source); the check then finds them read.
 */
export class SourceAgents {
  private readonly reads = new Map<string, Promise<RemoteAgent | null>>();

  constructor(private readonly reader: RemoteReader) {}

  agent(id: string): Promise<RemoteAgent | null> {
    let read = this.reads.get(id);
    if (!read) {
      read = this.reader.agent(id);
      // A read ahead that fails is reported when the check asks for it (or never, when it does not).
      read.catch(() => undefined);
      this.reads.set(id, read);
    }
    return read;
  }

  readAhead(files: LocalFiles, source: State): void {
    for (const slug of changedAgents(files)) {
      const id = source.agents[slug]?.id;
      if (id && source.passed[slug]?.platform !== undefined) void this.agent(id);
    }
  }
}
