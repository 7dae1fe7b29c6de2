import { notFound, unprocessable } from '../errors.js';
import type { Collection } from '../store.js';
import type { ModuleEnv, Org } from '../types.js';
import { Catalog } from './catalog.js';
import * as v from './validate.js';
import { ENGINES, type Engine, type Variable, type Voice } from '../../spec/agents.js';

/**
 * The agent model (moto's `models`): agents per organization, each with its full
 * version history. Every change makes a numbered version holding a snapshot of the
 * agent's configuration; a rollback restores a snapshot as a new version.
 */

export const MODALITIES = ['voice'] as const;

export type ChangeType = 'created' | 'prompt_updated' | 'settings_updated' | 'voice_updated' | 'tools_updated' | 'rollback';

/** What a version captures: everything about an agent that a change can touch. */
export interface AgentConfig {
  name: string;
  instructions: string;
  engine: Engine;
  description: string;
  tags: string[];
  variables: Variable[];
  /** null for speech-to-speech: the model speaks with its own voice. */
  voiceId: string | null;
  language: string | null;
  toolIds: string[];
}

export interface VersionRecord {
  versionNumber: number;
  changeType: ChangeType;
  changedByName: string;
  changedAt: string;
  /** Fields that differ from the previous version. */
  changedFields: string[];
  reason?: string | null;
  rolledBackTo?: number;
  snapshot: AgentConfig;
}

export interface AgentRecord {
  id: string;
  modality: 'voice';
  createdAt: string;
  updatedAt: string;
  currentVersion: number;
  config: AgentConfig;
  /** State files of earlier vap versions held the history here; it moves to its own collection when read. */
  versions?: VersionRecord[];
}

/** What a speech-to-speech agent reports as its voice: the model's own (not in the voice catalog). */
export const MODEL_VOICE = { voiceId: 'model_native', name: "Model's own voice", language: 'en-US' } as const;

export const LIMITS = { name: 200, instructions: 50_000, description: 2000, reason: 1000, toolIds: 100 } as const;

const CONFIG_FIELDS: Array<keyof AgentConfig> = ['name', 'instructions', 'engine', 'description', 'tags', 'variables', 'voiceId', 'language', 'toolIds'];

const models = new WeakMap<ModuleEnv, AgentModel>();

/**
 * The agent model of an emulator, shared by every route group: evals, runs and
 * calls use `find(orgId, agentId)` and `currentVersion` to check agents and record
 * the version they were made against.
 */
export function agentModelFor(env: ModuleEnv): AgentModel {
  let m = models.get(env);
  if (!m) {
    m = new AgentModel(env, new Catalog(env.options.seed));
    models.set(env, m);
  }
  return m;
}

export class AgentModel {
  private readonly migrated = new Set<string>();
  private readonly views = new WeakMap<AgentRecord, { version: number; view: Record<string, unknown>; json?: string }>();

  constructor(
    private readonly env: ModuleEnv,
    readonly catalog: Catalog,
  ) {}

  /** The organization's agents, in creation order (each version is a record of its own: a change writes the change, not the history). */
  private agents(orgId: string): Collection<AgentRecord> {
    const agents = this.env.store.collection<AgentRecord>(orgId, 'agents');
    if (!this.migrated.has(orgId)) {
      this.migrated.add(orgId);
      for (const a of agents.values()) {
        if (!a.versions) continue;
        const versions = this.versions(orgId);
        for (const v of a.versions) versions.set(`${a.id}:${v.versionNumber}`, v);
        delete a.versions;
        agents.touch(a.id);
      }
    }
    return agents;
  }

  /** Every agent's versions, by `<agentId>:<number>` (a version is written once, as its own record). */
  private versions(orgId: string): Collection<VersionRecord> {
    return this.env.store.collection<VersionRecord>(orgId, 'agent-versions');
  }

  /** Version `n` of the agent (undefined when there is none). */
  version(orgId: string, agent: AgentRecord, n: number): VersionRecord | undefined {
    return this.versions(orgId).get(`${agent.id}:${n}`);
  }

  /** The agent's versions newest first: `limit` after skipping `offset` (numbers are 1..currentVersion, none missing). */
  versionsPage(orgId: string, agent: AgentRecord, offset: number, limit: number): VersionRecord[] {
    const out: VersionRecord[] = [];
    const versions = this.versions(orgId);
    for (let n = agent.currentVersion - offset; n >= 1 && out.length < limit; n--) {
      const v = versions.get(`${agent.id}:${n}`);
      if (v) out.push(v);
    }
    return out;
  }

  /** The agent, or a 404 (another tenant's agent is not found either). */
  get(org: Org, agentId: string): AgentRecord {
    const a = this.agents(org.id).get(agentId);
    if (!a) throw notFound('agent', agentId);
    return a;
  }

  find(orgId: string, agentId: string): AgentRecord | undefined {
    return this.agents(orgId).get(agentId);
  }

  /**
   * A page of the agents (creation order) and how many match: a page costs the page (a
   * search reads the agents once per query while none changes; see ordered-index.ts).
   */
  list(org: Org, search: string | undefined, offset: number, limit: number): { agents: AgentRecord[]; total: number } {
    const idx = this.agents(org.id).ordered();
    const q = search?.trim().toLowerCase();
    if (!q) return { agents: idx.page({}, offset, limit, false), total: idx.size };
    const { positions } = idx.scan(`search:${q}`, {}, (a) => {
      const c = a.config;
      return c.name.toLowerCase().includes(q) || c.description.toLowerCase().includes(q) || c.tags.some((t) => t.toLowerCase().includes(q));
    });
    return { agents: idx.pageOf(positions, offset, limit, false), total: positions.length };
  }

  /** The organization's oldest agent (the seeded history's campaign uses it). */
  first(orgId: string): AgentRecord | undefined {
    return this.agents(orgId).values().next().value;
  }

  create(org: Org, rawBody: unknown): AgentRecord {
    const body = v.objectBody(rawBody);
    v.onlyFields(body, ['name', 'instructions', 'engine', 'variables', 'description', 'tags', 'modality'], {
      voice: 'is set with PUT /api/v1/agents/{agentId}/voice after creation',
      toolIds: 'are set with PUT /api/v1/agents/{agentId}/tools after creation',
    });
    const name = v.text(body, 'name', { required: true, max: LIMITS.name })!;
    const instructions = v.text(body, 'instructions', { required: true, max: LIMITS.instructions })!;
    const engine = v.oneOf(body, 'engine', ENGINES, true)!;
    v.oneOf(body, 'modality', MODALITIES, false);
    const config: AgentConfig = {
      name: name.trim(),
      instructions,
      engine,
      description: v.text(body, 'description', { max: LIMITS.description, blankOk: true }) ?? '',
      tags: v.tags(body) ?? [],
      variables: v.variables(body) ?? [],
      ...this.defaultVoice(engine),
      toolIds: [],
    };
    const now = this.env.clock.iso();
    const agent: AgentRecord = {
      id: this.env.ids.next('ag'),
      modality: 'voice',
      createdAt: now,
      updatedAt: now,
      currentVersion: 1,
      config,
    };
    this.agents(org.id).set(agent.id, agent);
    this.versions(org.id).set(`${agent.id}:1`, {
      versionNumber: 1,
      changeType: 'created',
      changedByName: changedBy(org),
      changedAt: now,
      changedFields: [],
      snapshot: clone(config),
    });
    return agent;
  }

  /**
   * PATCH: any subset of the settable fields. A change to `instructions` is `prompt_updated`; any other change `settings_updated`; no change, no version.
   * `reason` (an extension, as on rollback) is kept on the version the change makes.
   */
  update(org: Org, agentId: string, rawBody: unknown): AgentRecord {
    const agent = this.get(org, agentId);
    const body = v.objectBody(rawBody);
    const reason = v.text(body, 'reason', { max: LIMITS.reason, blankOk: true });
    delete body.reason;
    v.onlyFields(body, ['name', 'instructions', 'engine', 'variables', 'description', 'tags', 'modality'], {
      id: 'is read-only',
      currentVersion: 'is read-only; use POST /api/v1/agents/{agentId}/rollback to go back to an earlier version',
      createdAt: 'is read-only',
      updatedAt: 'is read-only',
      voice: 'is changed with PUT /api/v1/agents/{agentId}/voice',
      toolIds: 'are changed with PUT /api/v1/agents/{agentId}/tools',
      tools: 'are changed with PUT /api/v1/agents/{agentId}/tools',
    });
    if (Object.keys(body).length === 0) v.fail('body', 'names no field to change (name, instructions, engine, variables, description, tags)');
    const next: AgentConfig = clone(agent.config);
    const name = v.text(body, 'name', { max: LIMITS.name });
    if (name !== undefined) next.name = name.trim();
    const instructions = v.text(body, 'instructions', { max: LIMITS.instructions });
    if (instructions !== undefined) next.instructions = instructions;
    const description = v.text(body, 'description', { max: LIMITS.description, blankOk: true });
    if (description !== undefined) next.description = description;
    next.tags = v.tags(body) ?? next.tags;
    next.variables = v.variables(body) ?? next.variables;
    v.oneOf(body, 'modality', MODALITIES, false);
    const engine = v.oneOf(body, 'engine', ENGINES, false);
    if (engine !== undefined && engine !== next.engine) {
      // Into speech-to-speech the model's voice takes over; out of it, the default voice.
      if (engine === 'speech-to-speech' || next.engine === 'speech-to-speech') Object.assign(next, this.defaultVoice(engine));
      next.engine = engine;
    }
    const changed = diff(agent.config, next);
    if (changed.length > 0)
      this.commit(org, agent, next, changed.includes('instructions') ? 'prompt_updated' : 'settings_updated', changed, reason ? { reason } : {});
    return agent;
  }

  delete(org: Org, agentId: string): void {
    const agent = this.get(org, agentId);
    this.agents(org.id).delete(agentId);
    const versions = this.versions(org.id);
    for (let n = 1; n <= agent.currentVersion; n++) versions.delete(`${agentId}:${n}`);
  }

  /** PUT tools: the whole list replaced in one step; every id must be one of the organization's tools. */
  setTools(org: Org, agentId: string, rawBody: unknown): AgentRecord {
    const agent = this.get(org, agentId);
    const body = v.objectBody(rawBody);
    v.onlyFields(body, ['toolIds']);
    const ids = body.toolIds;
    if (ids === undefined) v.fail('toolIds', 'is required (an array of tool ids; [] removes every tool)');
    if (!Array.isArray(ids)) v.fail('toolIds', 'must be an array of tool ids');
    if (ids.length > LIMITS.toolIds) v.fail('toolIds', `must have at most ${LIMITS.toolIds} ids`);
    const unique: string[] = [];
    ids.forEach((id, i) => {
      if (typeof id !== 'string' || id === '') v.fail(`toolIds[${i}]`, 'must be a non-empty string');
      if (!unique.includes(id)) unique.push(id);
    });
    const unknown = unique.filter((id) => !this.catalog.tool(org.id, id));
    if (unknown.length > 0) {
      const list = unknown.map((id) => `"${id}"`).join(', ');
      throw unprocessable(
        'tool_not_found',
        unknown.length === 1
          ? `tool ${list} does not exist or is not available to this organization`
          : `tools ${list} do not exist or are not available to this organization`,
        unknown.map((id) => ({ field: `toolIds[${ids.indexOf(id)}]`, message: `tool ${id} is not available to this organization` })),
      );
    }
    const same = unique.length === agent.config.toolIds.length && unique.every((id) => agent.config.toolIds.includes(id));
    if (!same) this.commit(org, agent, { ...clone(agent.config), toolIds: unique }, 'tools_updated', ['toolIds']);
    return agent;
  }

  tools(org: Org, agent: AgentRecord): Array<{ id: string; name: string }> {
    return this.toolsOf(org, agent.config);
  }

  private toolsOf(org: Org, c: AgentConfig): Array<{ id: string; name: string }> {
    return c.toolIds.map((id) => {
      const t = this.catalog.tool(org.id, id);
      return { id, name: t?.name ?? id };
    });
  }

  /** PUT voice: refused for speech-to-speech; the voice must be in the catalog and speak the language. */
  setVoice(org: Org, agentId: string, rawBody: unknown): AgentRecord {
    const agent = this.get(org, agentId);
    if (agent.config.engine === 'speech-to-speech') {
      throw unprocessable(
        'voice_not_supported',
        `agent ${agent.id} uses the speech-to-speech engine, which speaks with its model's own voice; its voice cannot be set`,
      );
    }
    const body = v.objectBody(rawBody);
    v.onlyFields(body, ['voiceId', 'language']);
    const voiceId = v.text(body, 'voiceId', { required: true, max: 200 })!;
    const language = v.text(body, 'language', { max: 35 });
    if (language !== undefined && !v.BCP47.test(language)) v.fail('language', `"${language}" is not a BCP 47 language tag (for example en-US or es)`);
    const voice = this.catalog.voice(voiceId);
    if (!voice)
      throw unprocessable('voice_not_found', `voice "${voiceId}" is not in the voice listing (GET /api/v1/voices)`, [
        { field: 'voiceId', message: 'unknown voice' },
      ]);
    const lang = language === undefined ? voice.language : speaks(voice, language);
    if (!lang) {
      throw unprocessable('language_not_supported', `voice ${voice.name} (${voice.id}) speaks ${voice.language}, not ${language}`, [
        { field: 'language', message: `the voice speaks ${voice.language}` },
      ]);
    }
    if (agent.config.voiceId !== voice.id || agent.config.language !== lang) {
      this.commit(org, agent, { ...clone(agent.config), voiceId: voice.id, language: lang }, 'voice_updated', ['voice']);
    }
    return agent;
  }

  /** POST rollback: `version` must name an earlier version; its snapshot becomes a new current version. */
  rollback(org: Org, agentId: string, rawBody: unknown): AgentRecord {
    const agent = this.get(org, agentId);
    const body = v.objectBody(rawBody);
    v.onlyFields(body, ['version', 'reason']);
    const version = body.version;
    if (version === undefined) v.fail('version', 'is required (the number of an earlier version)');
    if (typeof version !== 'number' || !Number.isInteger(version)) v.fail('version', 'must be an integer');
    const reason = v.text(body, 'reason', { max: LIMITS.reason, blankOk: true });
    if (version === agent.currentVersion) {
      throw unprocessable('version_is_current', `version ${version} is already the current version of agent ${agent.id}; roll back to an earlier one`);
    }
    const target = this.version(org.id, agent, version);
    if (!target || version > agent.currentVersion) {
      throw unprocessable('version_not_found', `agent ${agent.id} has no version ${version}; its versions are 1 to ${agent.currentVersion}`);
    }
    const next = clone(target.snapshot);
    this.commit(org, agent, next, 'rollback', diff(agent.config, next), { reason: reason ?? null, rolledBackTo: version });
    return agent;
  }

  /** Records `next` as a new current version. */
  private commit(org: Org, agent: AgentRecord, next: AgentConfig, changeType: ChangeType, changedFields: string[], extra: Partial<VersionRecord> = {}): void {
    const now = this.env.clock.iso();
    agent.config = next;
    agent.currentVersion += 1;
    agent.updatedAt = now;
    this.agents(org.id).touch(agent.id);
    this.versions(org.id).set(`${agent.id}:${agent.currentVersion}`, {
      versionNumber: agent.currentVersion,
      changeType,
      changedByName: changedBy(org),
      changedAt: now,
      changedFields: changedFields.map((f) => (f === 'voiceId' || f === 'language' ? 'voice' : f)).filter((f, i, a) => a.indexOf(f) === i),
      ...extra,
      snapshot: clone(next),
    });
  }

  private defaultVoice(engine: Engine): Pick<AgentConfig, 'voiceId' | 'language'> {
    if (engine === 'speech-to-speech') return { voiceId: null, language: null };
    const d = this.catalog.defaultVoice;
    return { voiceId: d.id, language: d.language };
  }

  /** The agent voice of the voice endpoints: `{ voiceId, name, language }`. */
  agentVoice(agent: AgentRecord): { voiceId: string; name: string; language: string } {
    return this.voiceOf(agent.config);
  }

  private voiceOf(c: AgentConfig): { voiceId: string; name: string; language: string } {
    if (c.engine === 'speech-to-speech' || !c.voiceId) return { ...MODEL_VOICE };
    const voice = this.catalog.voice(c.voiceId);
    return { voiceId: c.voiceId, name: voice?.name ?? c.voiceId, language: c.language ?? voice?.language ?? 'en-US' };
  }

  /**
   * The agent as Get an agent returns it. Rendered once per version (every change to an
   * agent makes a version) and kept: listings read it, never change it.
   */
  view(agent: AgentRecord): Record<string, unknown> {
    return this.cached(agent).view;
  }

  /** The same view as JSON text (kept with it): a listing page joins these instead of serializing every agent again. */
  viewJson(agent: AgentRecord): string {
    const c = this.cached(agent);
    c.json ??= JSON.stringify(c.view);
    return c.json;
  }

  private cached(agent: AgentRecord): { version: number; view: Record<string, unknown>; json?: string } {
    const hit = this.views.get(agent);
    if (hit && hit.version === agent.currentVersion) return hit;
    const entry = { version: agent.currentVersion, view: this.render(agent) };
    this.views.set(agent, entry);
    return entry;
  }

  private render(agent: AgentRecord): Record<string, unknown> {
    const c = agent.config;
    const voice = this.agentVoice(agent);
    return {
      id: agent.id,
      name: c.name,
      description: c.description,
      instructions: c.instructions,
      engine: c.engine,
      modality: agent.modality,
      voice: { name: voice.name, language: voice.language },
      currentVersion: agent.currentVersion,
      variables: c.variables,
      tags: c.tags,
      createdAt: agent.createdAt,
      updatedAt: agent.updatedAt,
    };
  }

  versionView(org: Org, agent: AgentRecord, r: VersionRecord): Record<string, unknown> {
    const out: Record<string, unknown> = {
      versionNumber: r.versionNumber,
      changeType: r.changeType,
      changedByName: r.changedByName,
      changedAt: r.changedAt,
      isCurrent: r.versionNumber === agent.currentVersion,
      changedFields: r.changedFields,
      instructions: r.snapshot.instructions,
      // What a rollback to this version would restore besides the instructions (`vap agents rollback` shows it first).
      voice: this.voiceOf(r.snapshot),
      tools: this.toolsOf(org, r.snapshot),
      // The rest of the snapshot, so that a copy of the version can be built (`vap agents bisect`).
      engine: r.snapshot.engine,
      variables: r.snapshot.variables,
    };
    if (r.changeType === 'rollback') {
      out.rolledBackTo = r.rolledBackTo;
      out.reason = r.reason ?? null;
    } else if (r.reason) {
      out.reason = r.reason;
    }
    return out;
  }
}

/** The language a voice would speak for `tag`: its own tag, matched case-insensitively, or its bare language code. */
export function speaks(voice: Voice, tag: string): string | undefined {
  const want = tag.toLowerCase();
  const own = voice.language.toLowerCase();
  if (want === own || own.split('-')[0] === want) return voice.language;
  return undefined;
}

/** "name of the person who made the change": requests carry only an API key, so the change is credited to the organization's key. */
function changedBy(org: Org): string {
  return `API key (${org.name})`;
}

function diff(a: AgentConfig, b: AgentConfig): string[] {
  return CONFIG_FIELDS.filter((f) => JSON.stringify(a[f]) !== JSON.stringify(b[f]));
}

function clone<T>(x: T): T {
  return JSON.parse(JSON.stringify(x)) as T;
}
