import { chmod, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createAgent, deleteAgent, getAgent, listAgentsPage, setAgentTools, setAgentVoice } from '../api/agents.js';
import type { ApiClient } from '../api/client.js';
import { ApiError, NotFoundError } from '../api/errors.js';
import { addScenario, createSuite, deleteSuite, updateSuite, type Scenario, type Suite } from '../api/evals.js';
import { PREVIEW_TAG } from '../ascode/model.js';
import { stateDir, stateTarget } from '../contacts/state.js';
import { writeFileAtomic } from '../write-atomic.js';
import type { VersionContent } from './content.js';

/**
 * Each preview copy (a vap-preview agent per tested version, with a copy of the suite) is recorded before it is made, so that a search killed
 * at any point is cleaned up by `--clean` or the next search. The record is a hint, never an authority: an agent is deleted only when it
 * carries the tag and the recorded name, and suites only under it.
 */

export interface CopyRecord {
  /** Key of the record (a slug: `bisect-7`, `<agent-slug>.bisect-3f2a1c0`). */
  key: string;
  label: string;
  name: string;
  agentId?: string;
  suites: Array<{ key: string; name: string; id?: string }>;
  at: string;
}

/** Where the records live: vap's state folder per profile, or a project's state (its previews section). */
export interface CopyStore {
  all(): Promise<CopyRecord[]>;
  put(rec: CopyRecord): Promise<void>;
  forget(key: string): Promise<void>;
  /** Where to say the record is. */
  where: string;
}

export const copyName = (name: string, label: string) => `${name} · preview ${label}`;

/** The copies of a profile outside a project: `bisect-copies/<profile>.json` beside `recent-ids/`, for one server and key. */
export class ProfileCopyStore implements CopyStore {
  readonly where: string;
  private readonly target: { baseUrl: string; org: string };
  constructor(env: Record<string, string | undefined>, profile: string, owner: { baseUrl: string; apiKey?: string }) {
    this.where = join(dirname(stateDir(env)), 'bisect-copies', `${profile.replace(/[^\w.-]/g, '_').slice(0, 64) || 'default'}.json`);
    this.target = stateTarget({ baseUrl: owner.baseUrl, apiKey: owner.apiKey ?? '' });
  }

  async all(): Promise<CopyRecord[]> {
    let data: unknown;
    try {
      data = JSON.parse(await readFile(this.where, 'utf8'));
    } catch {
      return [];
    }
    const d = data as { version?: unknown; baseUrl?: unknown; org?: unknown; copies?: unknown };
    if (d?.version !== 1 || d.baseUrl !== this.target.baseUrl || d.org !== this.target.org || !Array.isArray(d.copies)) return [];
    return d.copies.filter(isRecord);
  }

  async put(rec: CopyRecord): Promise<void> {
    const rest = (await this.all()).filter((r) => r.key !== rec.key);
    await this.write([...rest, rec]);
  }

  async forget(key: string): Promise<void> {
    await this.write((await this.all()).filter((r) => r.key !== key));
  }

  private async write(copies: CopyRecord[]): Promise<void> {
    await mkdir(dirname(this.where), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.where, `${JSON.stringify({ version: 1, ...this.target, copies })}\n`);
    await chmod(this.where, 0o600);
  }
}

function isRecord(r: unknown): r is CopyRecord {
  const x = r as CopyRecord;
  return (
    !!x &&
    typeof x.key === 'string' &&
    typeof x.label === 'string' &&
    typeof x.name === 'string' &&
    (x.agentId === undefined || typeof x.agentId === 'string') &&
    Array.isArray(x.suites)
  );
}

/** The live suite as a copy needs it: its settings and enabled scenarios. */
export interface SuiteShape {
  suite: Suite;
  scenarios: Scenario[];
}

/** Why a copy could not be built from a version's content (a tool gone, a voice gone): the version is skipped. */
export class BuildRefused extends Error {}

/**
 * Makes the copy of one version with the suite, recording each resource before and after it
 * is made. A 4xx of the platform while giving the copy its voice or tools, or a tool with no
 * id, is a BuildRefused (the copy is removed first).
 */
export async function makeCopy(
  api: ApiClient,
  store: CopyStore,
  key: string,
  label: string,
  baseName: string,
  v: VersionContent,
  shape: SuiteShape,
): Promise<{ agentId: string; evalId: string; rec: CopyRecord }> {
  if (v.refused) throw new BuildRefused(v.refused);
  const name = copyName(baseName, label);
  const rec: CopyRecord = { key, label, name, suites: [], at: new Date().toISOString() };
  await store.put(rec);
  const created = await createAgent(api, { name, instructions: v.instructions, engine: v.engine, variables: v.variables, tags: [PREVIEW_TAG] });
  rec.agentId = created.id;
  await store.put(rec);
  try {
    const missing = v.tools.filter((t) => !t.id).map((t) => t.name);
    if (missing.length) throw new BuildRefused(`no tool named ${missing.map((m) => `"${m}"`).join(', ')} is known in this profile`);
    if (v.voice && v.engine !== 'speech-to-speech' && v.voice.voiceId)
      await setAgentVoice(api, created.id, { voiceId: v.voice.voiceId, language: v.voice.language });
    if (v.tools.length)
      await setAgentTools(
        api,
        created.id,
        v.tools.map((t) => t.id!),
      );
  } catch (err) {
    if (err instanceof BuildRefused || (err instanceof ApiError && err.status >= 400 && err.status < 500)) {
      await removeCopy(api, store, rec);
      throw err instanceof BuildRefused ? err : new BuildRefused(err.message);
    }
    throw err;
  }
  const s = shape.suite;
  const entry: CopyRecord['suites'][number] = { key: 'suite', name: s.name };
  rec.suites.push(entry);
  await store.put(rec);
  const made = await createSuite(api, created.id, {
    name: s.name,
    iterationsPerScenario: s.iterationsPerScenario,
    scoringCriteria: s.scoringCriteria,
    ...(s.noise ? { noise: s.noise } : {}),
  });
  entry.id = made.id;
  await store.put(rec);
  for (const x of shape.scenarios) await addScenario(api, created.id, made.id, { name: x.name, persona: x.persona, goal: x.goal, category: x.category });
  await updateSuite(api, created.id, made.id, { status: 'ready' });
  return { agentId: created.id, evalId: made.id, rec };
}

/** Why an agent is not the copy a record names; undefined when it is. */
function notACopy(agent: { name: string; tags?: unknown }, rec: CopyRecord): string | undefined {
  if (!Array.isArray(agent.tags) || !agent.tags.includes(PREVIEW_TAG)) return `it has no ${PREVIEW_TAG} tag`;
  if (agent.name !== rec.name) return `its name is not the recorded "${rec.name}"`;
  if (!rec.name.endsWith(` · preview ${rec.label}`)) return `"${rec.name}" is not a preview name`;
  return undefined;
}

const gone = (err: unknown) => err instanceof NotFoundError;

/** Removes one recorded copy (its suites, then the agent) if the platform says it is one, and forgets the record; a reason when it was left. */
export async function removeCopy(api: ApiClient, store: CopyStore, rec: CopyRecord): Promise<string | undefined> {
  let agentId = rec.agentId;
  // Killed before the platform's answer was recorded: found by its name and tag.
  if (!agentId && rec.name.endsWith(` · preview ${rec.label}`)) {
    const page = await listAgentsPage(api, { page: 1, pageSize: 200, search: rec.name });
    agentId = page.items.find((a) => a.name === rec.name && Array.isArray(a.tags) && a.tags.includes(PREVIEW_TAG))?.id;
  }
  if (agentId) {
    const agent = await getAgent(api, agentId).catch((err) => (gone(err) ? null : Promise.reject(err)));
    if (agent) {
      const why = notACopy(agent, rec);
      if (why) return `agent ${agentId} that ${store.where} names: ${why}, so it is not a copy vap made (remove that entry by hand)`;
      for (const s of rec.suites) if (s.id) await deleteSuite(api, agentId, s.id).catch((err) => (gone(err) ? undefined : Promise.reject(err)));
      await deleteAgent(api, agentId).catch((err) => (gone(err) ? undefined : Promise.reject(err)));
    }
  }
  await store.forget(rec.key);
  return undefined;
}

/** Removes every recorded copy; what was left, and why. */
export async function cleanCopies(api: ApiClient, store: CopyStore): Promise<{ removed: number; left: string[] }> {
  const out = { removed: 0, left: [] as string[] };
  for (const rec of await store.all()) {
    try {
      const why = await removeCopy(api, store, rec);
      if (why) out.left.push(why);
      else out.removed++;
    } catch (err) {
      out.left.push(`${rec.name} (${(err as Error).message})`);
    }
  }
  return out;
}
