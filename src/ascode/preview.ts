import { createAgent, deleteAgent, getAgent, setAgentTools, setAgentVoice } from '../api/agents.js';
import type { ApiClient } from '../api/client.js';
import { NotFoundError } from '../api/errors.js';
import { addScenario, createSuite, deleteSuite, listRuns, updateSuite } from '../api/evals.js';
import type { Context } from '../context.js';
import type { BaselineSpec } from '../evals/baseline.js';
import { safe, safeText } from '../ui/safe-text.js';
import type { EvalTarget } from './eval-gate.js';
import { contentHash, fieldHashes, PREVIEW_TAG, type AgentModel, type SuiteModel } from './model.js';
import type { OpenProject } from './open.js';
import { agentFilesHash, gatingSuites, recordPassed } from './passed.js';
import { findVoice, type AgentItem, type Plan } from './plan.js';
import type { LocalSuite } from './project.js';
import { RemoteReader } from './remote.js';
import { saveState, stateFile, type PreviewRecord, type State } from './state.js';

/**
 * `vap preview`: evaluates a branch's files without writing to a live agent or suite: each changed agent is copied (tagged
 * vap-preview) with its gating suites, the copies' runs gated and compared with the live agent's newest, then deleted unless
 * --keep. Each is recorded in the state before it is made, so a killed preview is cleaned up by `--clean` or the next one.
 */

export { PREVIEW_TAG };

export function previewName(name: string, label: string): string {
  return `${name} · preview ${label}`;
}

/** An agent of the files to preview, with the gating suites to copy. */
export interface PreviewSubject {
  slug: string;
  model: AgentModel;
  suites: LocalSuite[];
  /** The live agent (when the platform has it): its id and content hash now. */
  live?: { id: string; hash: string };
}

/** The agents whose files differ from the platform (their own file, or one of their gating suites). */
export function previewSubjects(project: OpenProject, plan: Plan, all = false): { subjects: PreviewSubject[]; ungated: string[] } {
  const differs = (action: string, changes: readonly string[]) =>
    all || action === 'create' || changes.length > 0 || action === 'replace' || action === 'blocked';
  const slugs = new Set<string>();
  for (const i of plan.items) {
    if (i.kind === 'agent' && i.local && differs(i.action, i.changes)) slugs.add(i.key);
    if (i.kind === 'suite' && i.local?.gate && differs(i.action, i.changes)) slugs.add(i.agentKey);
  }
  const subjects: PreviewSubject[] = [];
  const ungated: string[] = [];
  for (const slug of [...slugs].sort()) {
    const agent = project.files.agents.get(slug);
    if (!agent) continue;
    const keys = gatingSuites(project.files, slug);
    if (!keys.length) {
      if (!all || plan.items.some((i) => i.kind === 'agent' && i.key === slug && i.changes.length)) ungated.push(slug);
      continue;
    }
    const item = plan.items.find((i): i is AgentItem => i.kind === 'agent' && i.key === slug);
    const live = item?.remote && item.remoteModel ? { id: item.remote.id, hash: hashOf(item.remoteModel) } : undefined;
    subjects.push({ slug, model: agent.model, suites: keys.map((k) => project.files.suites.get(k)!), live });
  }
  return { subjects, ungated };
}

const hashOf = (m: AgentModel) => contentHash('agent', fieldHashes('agent', m));

/** Calls the runs will place: scenarios × iterations, per suite. */
export function callsToPlace(subjects: PreviewSubject[]): number {
  return subjects.reduce((n, s) => n + s.suites.reduce((k, x) => k + x.model.scenarios.length * x.model.iterations, 0), 0);
}

export interface Made {
  /** The targets to run: one per copied suite. */
  targets: EvalTarget[];
}

/** Writes the state with the record of what is about to be made (before the platform is asked). */
async function remember(project: OpenProject, slug: string, rec: PreviewRecord): Promise<void> {
  project.state.previews[slug] = rec;
  await saveState(project.fs, project.state);
}

/** Makes the preview agent of each subject and copies its gating suites, recording each resource before and after it is made. */
export async function makePreviews(ctx: Context, api: ApiClient, project: OpenProject, plan: Plan, subjects: PreviewSubject[], label: string): Promise<Made> {
  const targets: EvalTarget[] = [];
  for (const s of subjects) {
    const m = s.model;
    const name = previewName(m.name, label);
    const rec: PreviewRecord = { label, name, suites: [], at: new Date().toISOString() };
    await remember(project, s.slug, rec);
    const created = await createAgent(api, {
      name,
      instructions: m.instructions,
      engine: m.engine,
      variables: m.variables,
      ...(m.description ? { description: m.description } : {}),
      tags: [...m.tags.filter((t) => t !== PREVIEW_TAG), PREVIEW_TAG],
    });
    rec.agentId = created.id;
    await remember(project, s.slug, rec);
    if (m.voice) {
      const v = findVoice(plan.voices, m.voice.name, m.voice.language);
      if (v) await setAgentVoice(api, created.id, { voiceId: v.id, language: m.voice.language });
    }
    if (m.tools.length)
      await setAgentTools(
        api,
        created.id,
        m.tools.map((n) => plan.tools[n]!),
      );
    for (const suite of s.suites) {
      const sm: SuiteModel = suite.model;
      const entry: PreviewRecord['suites'][number] = { key: suite.slug, name: sm.name };
      rec.suites.push(entry);
      await remember(project, s.slug, rec);
      const made = await createSuite(api, created.id, {
        name: sm.name,
        iterationsPerScenario: sm.iterations,
        scoringCriteria: sm.criteria,
        ...(sm.noise ? { noise: sm.noise } : {}),
      });
      entry.id = made.id;
      await remember(project, s.slug, rec);
      for (const x of sm.scenarios) await addScenario(api, created.id, made.id, { name: x.name, persona: x.persona, goal: x.goal, category: x.category });
      await updateSuite(api, created.id, made.id, { status: 'ready' });
      // The pull-request comment of the suite is one from preview to preview: its marker names the live suite.
      const marker = project.state.suites[suite.key]?.id ?? `preview.${suite.key.replace('/', '.')}`;
      targets.push({ agentKey: s.slug, agentId: created.id, suiteKey: suite.key, suiteId: made.id, suiteName: sm.name, marker });
    }
    ctx.info(safe`Made ${name} (${created.id}) with ${s.suites.length} suite${s.suites.length === 1 ? '' : 's'}`);
  }
  return { targets };
}

/**
 * The baseline of a preview's run: the live agent's run of the same suite, picked as
 * `--baseline` says (live and previous: its newest completed run; version:n: the newest
 * completed one on version n; a run id: that run), its scenarios matched by name.
 */
export async function liveBaseline(api: ApiClient, state: State, t: EvalTarget, spec: BaselineSpec, signal?: AbortSignal): Promise<BaselineSpec> {
  const agentId = state.agents[t.agentKey]?.id;
  const evalId = state.suites[t.suiteKey]?.id;
  if (!agentId || !evalId) return { kind: 'live', missing: `the live agent ${t.agentKey} has no suite ${t.suiteKey} on the platform yet` };
  let runs;
  try {
    runs = await listRuns(api, agentId, evalId, signal);
  } catch (err) {
    if (err instanceof NotFoundError) return { kind: 'live', missing: `the live suite ${t.suiteKey} is gone from the platform` };
    throw err;
  }
  const done = runs.filter((r) => r.status === 'completed').sort((a, b) => b.runNumber - a.runNumber);
  const pick =
    spec.kind === 'version' ? done.find((r) => r.agentVersion === spec.version) : spec.kind === 'run' ? done.find((r) => r.id === spec.runId) : done[0];
  if (!pick) {
    const what = spec.kind === 'version' ? `on agent version ${spec.version}` : spec.kind === 'run' ? `with id ${spec.runId}` : 'yet';
    return { kind: 'live', missing: `the live suite ${t.suiteKey} has no completed run ${what} to compare with` };
  }
  return { kind: 'live', suite: { agentId, evalId }, runId: pick.id, pool: spec.kind !== 'run' };
}

/**
 * Deletes what a preview made (suites, then the agent) and forgets it; what could not be deleted stays recorded. The record
 * is in a file a pull request can edit, so the platform decides: only an agent with the vap-preview tag and the recorded
 * preview name, and suites under it, are deleted; anything else is left and named, with the entry to remove by hand.
 */
export async function cleanPreviews(
  ctx: Context,
  api: ApiClient,
  project: OpenProject,
  only?: Set<string>,
): Promise<{ agents: number; suites: number; left: string[] }> {
  const out = { agents: 0, suites: 0, left: [] as string[] };
  const reader = new RemoteReader(api);
  for (const [slug, rec] of Object.entries(project.state.previews)) {
    if (only && !only.has(slug)) continue;
    try {
      let agentId = rec.agentId;
      // Killed before the platform's answer was recorded: find it by its name and tag.
      if (!agentId && isPreviewName(rec))
        agentId = (await reader.allAgents(rec.name)).find((a) => a.name === rec.name && Array.isArray(a.tags) && a.tags.includes(PREVIEW_TAG))?.id;
      if (agentId) {
        const agent = await orNull(() => getAgent(api, agentId!));
        const notCopy = agent ? notAPreviewCopy(agent, rec) : undefined;
        if (notCopy) {
          await ctx.warn(
            safe`left agent ${agentId} that previews["${slug}"] of ${stateFile(project.profile)} names: ${notCopy}, so it is not a preview copy; vap deletes only its own copies (remove that entry by hand)`,
          );
          out.left.push(`${slug} (not a preview copy)`);
          continue;
        }
        if (agent) {
          for (const s of rec.suites) {
            if (!s.id) continue;
            // Under the preview agent's path: a suite of any other agent is not found there.
            await ignoreMissing(() => deleteSuite(api, agentId!, s.id!));
            out.suites++;
          }
          await ignoreMissing(() => deleteAgent(api, agentId!));
          out.agents++;
        }
      }
      delete project.state.previews[slug];
      await saveState(project.fs, project.state);
    } catch (err) {
      out.left.push(`${slug} (${(err as Error).message})`);
    }
  }
  const failed = out.left.filter((l) => !l.endsWith('(not a preview copy)'));
  if (failed.length) await ctx.warn(`could not remove every preview (${safeText(failed.join('; '))}); \`vap preview --clean\` tries again`);
  return out;
}

/** A recorded preview name is one vap makes: `<name> · preview <label>`, with the recorded label. */
function isPreviewName(rec: PreviewRecord): boolean {
  return rec.name.endsWith(` · preview ${rec.label}`);
}

/** Why an agent is not the copy a preview record says it made; undefined when it is. */
function notAPreviewCopy(agent: { name: string; tags?: unknown }, rec: PreviewRecord): string | undefined {
  if (!Array.isArray(agent.tags) || !agent.tags.includes(PREVIEW_TAG)) return `it has no ${PREVIEW_TAG} tag`;
  if (agent.name !== rec.name) return `its name is not the recorded "${rec.name}"`;
  if (!isPreviewName(rec)) return `"${rec.name}" is not a preview name`;
  return undefined;
}

async function orNull<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

async function ignoreMissing(fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
}

/** Records the agents whose every copied suite passed: their files passed in this profile. */
export function recordPreviewPasses(project: OpenProject, subjects: PreviewSubject[], passed: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const s of subjects) {
    const runs = passed.get(s.slug);
    const files = agentFilesHash(project.files, s.slug);
    if (!runs || !files) continue;
    recordPassed(project.state, s.slug, { files, runs, via: 'preview' });
    out.push(s.slug);
  }
  return out;
}
