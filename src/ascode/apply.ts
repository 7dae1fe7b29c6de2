import { createAgent, deleteAgent, setAgentTools, setAgentVoice, updateAgent, type AgentChange } from '../api/agents.js';
import type { ApiClient } from '../api/client.js';
import { ApiError, BadRequestError, NotFoundError } from '../api/errors.js';
import { addScenario, createSuite, deleteSuite, updateSuite, type SuiteChange } from '../api/evals.js';
import { createWebhookEndpoint, deleteWebhookEndpoint, updateWebhookEndpoint, type WebhookEndpointChange } from '../api/webhooks.js';
import {
  changedFields,
  contentHash,
  fieldHashes,
  fieldOf,
  scenarioHash,
  type AgentModel,
  type AnyModel,
  type FieldHashes,
  type Kind,
  type SuiteModel,
} from './model.js';
import { findVoice, type AgentItem, type Plan, type PlanItem, type SuiteItem, type WebhookItem } from './plan.js';
import type { ProjectFs } from './paths.js';
import type { LocalFiles } from './project.js';
import { RemoteReader, remoteHashes, type RemoteAgent } from './remote.js';
import { intentKey, SECTION, type Entry, type Intent, type State } from './state.js';
import type { StateJournal } from './state-journal.js';

/**
 * Applies a plan resource by resource, journalled: a create's or update's intent is durable before its request, and the
 * resource is read back and compared with its file after it, so a push killed at any point (SIGKILL included) and run
 * again adopts what it had created: nothing is created twice.
 */

export interface Reporter {
  /** A resource was applied. */
  done(item: PlanItem, message: string): void;
  /** Something to say about an applied resource (a field the platform did not keep). */
  warn(message: string): void;
  /** A resource could not be applied. */
  failed(item: PlanItem, message: string): void;
  /** A new webhook endpoint's secret, shown once. */
  secret(item: PlanItem, id: string, secret: string): Promise<void>;
  /**
   * A webhook endpoint an interrupted push created, adopted by this one, whose secret was
   * never shown: say so (with the rotate-secret command) or rotate it.
   */
  adoptedSecret(item: PlanItem, id: string): Promise<void>;
}

export interface ChangedAgent {
  slug: string;
  id: string;
  name: string;
  /** Created by this push (nothing to roll back to). */
  created: boolean;
  /** The version before the push, and what it had (voice and tools are restored after a rollback). */
  fromVersion?: number;
  before?: RemoteAgent;
  /** The version after the push. */
  version?: number;
}

export interface ApplyResult {
  applied: PlanItem[];
  failed: Array<{ item: PlanItem; message: string }>;
  /** Not attempted: drift, conflict, not applicable, deletes without --prune, suites of agents that failed. */
  skipped: Array<{ item: PlanItem; message: string }>;
  changedAgents: ChangedAgent[];
  /** Suites created, updated or replaced, by key. */
  changedSuites: Set<string>;
}

export interface ApplyInput {
  api: ApiClient;
  fs: ProjectFs;
  /** Where each step's changes to the state go (the state file is written once, by the caller's checkpoint). */
  journal: StateJournal;
  /** The project's files (what passed its evals is compared with them). */
  files: LocalFiles;
  plan: Plan;
  state: State;
  pushId: string;
  /** Kept on the version an agent change makes. */
  reason: string;
  report: Reporter;
  signal?: AbortSignal;
}

const AGENT_PATCH_FIELDS = ['name', 'engine', 'variables', 'description', 'tags', 'instructions'] as const;

/** Intents written to disk at once, ahead of the resources they announce (one flush each). */
const ANNOUNCE_BATCH = 64;

export function describeError(err: unknown): string {
  if (err instanceof ApiError) return `${err.message} (HTTP ${err.status}${err.requestId ? `, request id ${err.requestId}` : ''})`;
  return (err as Error)?.message ?? String(err);
}

function isAbort(err: unknown): boolean {
  return (err as Error)?.name === 'AbortError';
}

export class Applier {
  private readonly reader: RemoteReader;
  private reasonAccepted = true;
  readonly result: ApplyResult = { applied: [], failed: [], skipped: [], changedAgents: [], changedSuites: new Set() };

  constructor(private readonly input: ApplyInput) {
    this.reader = new RemoteReader(input.api, input.signal);
  }

  private get state(): State {
    return this.input.state;
  }

  /** The intent of a resource, as it is now, written with the next durable commit. */
  private noteIntent(kind: Kind, key: string): void {
    this.input.journal.note(['intents', intentKey(kind, key)]);
  }

  /** The upserts in the order they are applied (intents are announced ahead, a batch at a time). */
  private order: PlanItem[] = [];
  private announced = new Set<PlanItem>();

  /** The intent an item's apply writes before its first request (from the plan, and the intent an interrupted push left). */
  private intentFor(item: PlanItem): Omit<Intent, 'push' | 'at' | 'kind'> {
    const local = item.localModel!;
    const target = fieldHashes(item.kind, local);
    const previous = this.state.intents[intentKey(item.kind, item.key)];
    const name = local.name;
    if (item.kind === 'agent') {
      if (item.action === 'create') return { op: 'create', name, target };
      const created = previous?.op === 'create' || Boolean(item.adopted);
      return { op: previous?.op === 'create' ? 'create' : 'update', name, id: item.id!, target, ...(created ? {} : { fromVersion: item.fromVersion }) };
    }
    if (item.kind === 'suite') {
      const scenarios = item.localModel!.scenarios.map(scenarioHash);
      if (item.action === 'create') return { op: 'create', name, target, scenarios };
      if (item.action === 'replace')
        return { op: 'replace', name, target, scenarios, oldId: item.id!, ...(item.replacement ? { id: item.replacement.id } : {}) };
      return { op: previous?.op === 'create' ? 'create' : 'update', name, id: item.id!, target, scenarios };
    }
    return item.action === 'create' ? { op: 'create', name, target } : { op: 'update', name, id: item.id!, target };
  }

  /**
   * The intent of an item, on disk before the request it announces is sent. The intents of
   * the next items are written with it (one flush for a batch): an intent whose resource was
   * never made is harmless (a re-run looks for it and, finding nothing, creates it).
   */
  private async writeIntent(item: PlanItem): Promise<Intent> {
    const k = intentKey(item.kind, item.key);
    if (!this.announced.has(item)) {
      const at = this.order.indexOf(item);
      const batch = at < 0 ? [item] : this.order.slice(at, at + ANNOUNCE_BATCH).filter((x) => !this.announced.has(x));
      for (const x of batch) {
        this.keepRecoveredBase(x);
        this.state.intents[intentKey(x.kind, x.key)] = { ...this.intentFor(x), kind: x.kind, push: this.input.pushId, at: new Date().toISOString() };
        this.noteIntent(x.kind, x.key);
        this.announced.add(x);
      }
      await this.input.journal.durable();
    }
    return this.state.intents[k]!;
  }

  /**
   * An interrupted push's intent names fields it already changed, which the plan counted as synced (recoverBase). They go
   * into the entry in the same durable commit as the intent replacing it, or a push stopped before sending would leave the
   * next a base the platform no longer matches. The digest goes: the file is not the text those fields were synced from.
   */
  private keepRecoveredBase(item: PlanItem): void {
    const section = this.state[SECTION[item.kind]];
    const entry = section[item.key];
    if (!entry || !item.base || item.base.hash === entry.hash) return;
    const { file: _file, ...recovered } = item.base;
    section[item.key] = recovered;
    this.input.journal.note([SECTION[item.kind], item.key]);
  }

  /**
   * Records a synced resource (or forgets one) and drops its intent. Not waited for: it is
   * written with the next intent, or by the checkpoint at the end; if it is lost, the intent
   * leads the next run to adopt the resource.
   */
  private async record(kind: Kind, key: string, entry: Entry | undefined): Promise<void> {
    const section = this.state[SECTION[kind]];
    if (entry) section[key] = entry;
    else delete section[key];
    delete this.state.intents[intentKey(kind, key)];
    this.input.journal.note([SECTION[kind], key], ['intents', intentKey(kind, key)]);
  }

  /** The state entry of a synced resource; the file's digest is kept when the file says what the platform has. */
  private entryFor(kind: Kind, id: string, fields: FieldHashes, version?: number, item?: PlanItem): Entry {
    const matches = item?.local && changedFields(kind, item.local.hashes, fields).length === 0;
    return { id, fields, hash: contentHash(kind, fields), ...(version !== undefined ? { version } : {}), ...(matches ? { file: item.local!.digest } : {}) };
  }

  /** Compares what the platform kept with the file; reports each field it did not keep. */
  private checkKept(item: PlanItem, kept: FieldHashes, keptModel: AnyModel): void {
    const local = item.local!.hashes;
    const lost = changedFields(item.kind, local, kept);
    for (const f of lost) {
      const sent = show(fieldOf(item.localModel, f));
      const has = show(fieldOf(keptModel, f));
      this.input.report.warn(`${item.kind} ${item.key}: the platform did not keep ${f} (sent ${sent}, it has ${has})`);
    }
  }

  async run(): Promise<ApplyResult> {
    const { plan } = this.input;
    const items = plan.items;
    const by = <K extends Kind>(kind: K, f: (i: PlanItem) => boolean) => items.filter((i): i is Extract<PlanItem, { kind: K }> => i.kind === kind && f(i));
    const upserts = (i: PlanItem) => i.action === 'create' || i.action === 'update' || i.action === 'replace';

    for (const i of items) {
      if (i.action === 'drift' || i.action === 'conflict' || i.action === 'blocked') this.skip(i, i.reason ?? i.action);
      if (i.action === 'delete' && i.needsPrune) this.skip(i, i.reason ?? 'the file was removed; `vap push --prune` deletes it on the platform');
    }

    // The order the upserts go in: webhooks, then each agent and its suites.
    // The suites to apply, by agent (one pass: a plan holds thousands of items).
    const suitesOf = new Map<string, SuiteItem[]>();
    for (const x of by('suite', upserts)) suitesOf.set(x.agentKey, [...(suitesOf.get(x.agentKey) ?? []), x]);
    this.order = [...by('webhook', upserts), ...by('agent', () => true).flatMap((a) => [...(upserts(a) ? [a] : []), ...(suitesOf.get(a.key) ?? [])])];
    for (const i of by('webhook', (x) => Boolean(x.adopted))) await this.noticeAdoptedSecret(i);
    for (const i of by('webhook', upserts)) await this.guard(i, () => this.applyWebhook(i));
    for (const a of by('agent', () => true)) {
      if (upserts(a)) await this.guard(a, () => this.applyAgent(a));
      else if (a.action === 'unchanged' && a.resync) await this.resync(a);
      for (const s of suitesOf.get(a.key) ?? []) {
        const agentId = this.state.agents[a.key]?.id;
        if (!agentId) {
          this.skip(s, `its agent ${a.key} is not on the platform${a.action === 'create' ? ' (its create failed)' : ''}`);
          continue;
        }
        await this.guard(s, () => this.applySuite(s, agentId));
      }
    }
    for (const i of items) if (i.action === 'unchanged' && i.resync && i.kind !== 'agent') await this.resync(i);
    // Deletes last: suites, then agents, then webhooks.
    for (const kind of ['suite', 'agent', 'webhook'] as const) {
      for (const i of by(kind, (x) => x.action === 'delete' && !x.needsPrune)) await this.guard(i, () => this.applyDelete(i));
    }
    for (const i of items) if (i.action === 'forget') await this.record(i.kind, i.key, undefined);
    return this.result;
  }

  /** An adopted endpoint whose create was answered but whose secret was never shown. */
  private async noticeAdoptedSecret(item: PlanItem): Promise<void> {
    const intent = this.state.intents[intentKey('webhook', item.key)];
    if (!item.id || intent?.secretShown) return;
    await this.input.report.adoptedSecret(item, item.id);
  }

  private skip(item: PlanItem, message: string): void {
    this.result.skipped.push({ item, message });
  }

  private async guard(item: PlanItem, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
      this.result.applied.push(item);
    } catch (err) {
      if (isAbort(err) || this.input.signal?.aborted) throw err;
      const message = describeError(err);
      this.result.failed.push({ item, message });
      this.input.report.failed(item, message);
    }
  }

  private async resync(item: PlanItem): Promise<void> {
    const remote = item.remote;
    if (!remote) return;
    const fields = remoteHashes(item.kind, remote);
    const agent = item.kind === 'agent' ? item.remote : undefined;
    await this.record(item.kind, item.key, this.entryFor(item.kind, remote.id, fields, agent?.version, item));
    if (agent) Object.assign(this.state.tools, agent.toolIds);
  }

  // ------------------------------------------------------------------ agents

  private voiceId(model: AgentModel): string | undefined {
    if (!model.voice) return undefined;
    const v = findVoice(this.input.plan.voices, model.voice.name, model.voice.language);
    if (!v) throw new Error(`no voice ${model.voice.name} (${model.voice.language})`);
    return v.id;
  }

  private toolIds(model: AgentModel): string[] {
    return model.tools.map((n) => {
      const id = this.input.plan.tools[n];
      if (!id) throw new Error(`no tool named ${n}`);
      return id;
    });
  }

  private async patchAgent(id: string, body: AgentChange): Promise<void> {
    const withReason = this.reasonAccepted && this.input.reason ? { ...body, reason: this.input.reason } : body;
    try {
      await updateAgent(this.input.api, id, withReason);
    } catch (err) {
      // A platform that does not take a reason with a change: send it without, and say so once.
      if (err instanceof BadRequestError && 'reason' in withReason && /\breason\b/.test(`${err.message} ${JSON.stringify(err.details ?? '')}`)) {
        this.reasonAccepted = false;
        this.input.report.warn('the platform does not keep a reason with a change; the push goes on without one');
        await updateAgent(this.input.api, id, body);
        return;
      }
      throw err;
    }
  }

  private async applyAgent(item: AgentItem): Promise<void> {
    const local = item.localModel!;
    const api = this.input.api;
    let id: string;
    let created = false;
    let before: RemoteAgent | undefined;
    let fields: readonly string[];
    if (item.action === 'create') {
      const intent = await this.writeIntent(item);
      const res = await createAgent(api, {
        name: local.name,
        instructions: local.instructions,
        engine: local.engine,
        variables: local.variables,
        ...(local.description ? { description: local.description } : {}),
        ...(local.tags.length ? { tags: local.tags } : {}),
      });
      id = res.id;
      intent.id = id;
      this.noteIntent('agent', item.key);
      created = true;
      fields = ['voice', 'tools'];
    } else {
      id = item.id!;
      before = item.remote;
      const intent = await this.writeIntent(item);
      created = intent.op === 'create' || Boolean(item.adopted);
      fields = item.changes;
      const patch: AgentChange = {};
      for (const f of AGENT_PATCH_FIELDS) if (fields.includes(f)) Object.assign(patch, { [f]: local[f] });
      if (Object.keys(patch).length) await this.patchAgent(id, patch);
    }
    if (fields.includes('voice') && local.voice) {
      const voiceId = this.voiceId(local);
      await setAgentVoice(api, id, { voiceId: voiceId!, language: local.voice.language });
    }
    if (fields.includes('tools') && (item.action !== 'create' || local.tools.length)) await setAgentTools(api, id, this.toolIds(local));

    const back = await this.reader.agent(id);
    if (!back) throw new Error(`agent ${id} is gone from the platform right after the push`);
    const kept = remoteHashes('agent', back);
    this.checkKept(item, kept, back.model);
    Object.assign(this.state.tools, back.toolIds);
    const entry = this.entryFor('agent', id, kept, back.version, item);
    await this.record('agent', item.key, entry);
    this.result.changedAgents.push({
      slug: item.key,
      id,
      name: local.name,
      created,
      fromVersion: created ? undefined : item.fromVersion,
      before: created ? undefined : before,
      version: back.version,
    });
    const what = created
      ? `created (${id}, version ${back.version})`
      : `updated ${item.changes.join(', ')} (${id}, version ${item.fromVersion ?? '?'} → ${back.version})`;
    this.input.report.done(item, `agent ${item.key}: ${what}`);
  }

  // ------------------------------------------------------------------ suites

  private async readSuiteBack(agentId: string, id: string): Promise<SuiteModel> {
    const suites = await this.reader.suites(agentId);
    const s = suites?.find((x) => x.id === id);
    const scenarios = s ? await this.reader.scenarios(agentId, id) : null;
    if (!s || !scenarios) throw new Error(`suite ${id} is gone from the platform right after the push`);
    const { suiteModelOf } = await import('./remote.js');
    return suiteModelOf(s, scenarios);
  }

  private async addScenarios(agentId: string, suiteId: string, want: SuiteModel, have: SuiteModel | undefined): Promise<number> {
    // Only what the platform does not have yet (a push resumed after a kill adds the rest).
    const haveHashes = (have?.scenarios ?? []).map(scenarioHash);
    let added = 0;
    for (const s of want.scenarios) {
      const h = scenarioHash(s);
      const at = haveHashes.indexOf(h);
      if (at >= 0) {
        haveHashes.splice(at, 1);
        continue;
      }
      await addScenario(this.input.api, agentId, suiteId, { name: s.name, persona: s.persona, goal: s.goal, category: s.category });
      added++;
    }
    return added;
  }

  private async createSuiteFrom(item: SuiteItem, agentId: string, local: SuiteModel, intent: Intent): Promise<string> {
    const res = await createSuite(this.input.api, agentId, {
      name: local.name,
      iterationsPerScenario: local.iterations,
      scoringCriteria: local.criteria,
      ...(local.noise ? { noise: local.noise } : {}),
    });
    intent.id = res.id;
    this.noteIntent('suite', item.key);
    return res.id;
  }

  private async applySuite(item: SuiteItem, agentId: string): Promise<void> {
    const local = item.localModel!;
    const api = this.input.api;
    let id: string;
    let added: number;
    let verb: string;
    if (item.action === 'create') {
      const intent = await this.writeIntent(item);
      id = await this.createSuiteFrom(item, agentId, local, intent);
      added = await this.addScenarios(agentId, id, local, undefined);
      if (local.status === 'ready') await updateSuite(api, agentId, id, { status: 'ready' });
      verb = `created (${id}, ${added} scenario${added === 1 ? '' : 's'})`;
    } else if (item.action === 'replace') {
      const oldId = item.id!;
      const intent = await this.writeIntent(item);
      id = item.replacement?.id ?? (await this.createSuiteFrom(item, agentId, local, intent));
      added = await this.addScenarios(agentId, id, local, item.replacement?.model);
      if (local.status === 'ready') await updateSuite(api, agentId, id, { status: 'ready' });
      if (oldId !== id) {
        try {
          await deleteSuite(api, agentId, oldId);
        } catch (err) {
          if (!(err instanceof NotFoundError)) throw err;
        }
      }
      verb = `replaced (${oldId} deleted with its run history; new suite ${id}, ${added} scenario${added === 1 ? '' : 's'})`;
    } else {
      id = item.id!;
      await this.writeIntent(item);
      const patch: SuiteChange = {};
      if (item.changes.includes('name')) patch.name = local.name;
      if (item.changes.includes('iterations')) patch.iterationsPerScenario = local.iterations;
      if (item.changes.includes('criteria')) patch.scoringCriteria = local.criteria;
      if (item.changes.includes('noise')) patch.noise = local.noise;
      if (Object.keys(patch).length) await updateSuite(api, agentId, id, patch);
      added = await this.addScenarios(agentId, id, local, item.remote?.model);
      if (item.changes.includes('status') && local.status === 'ready') await updateSuite(api, agentId, id, { status: 'ready' });
      verb = `updated ${item.changes.join(', ')} (${id}${added ? `, ${added} scenario${added === 1 ? '' : 's'} added` : ''})`;
    }
    const back = await this.readSuiteBack(agentId, id);
    const kept = fieldHashes('suite', back);
    this.checkKept(item, kept, back);
    await this.record('suite', item.key, this.entryFor('suite', id, kept, undefined, item));
    this.result.changedSuites.add(item.key);
    this.input.report.done(item, `suite ${item.key}: ${verb}`);
  }

  // ------------------------------------------------------------------ webhooks

  private async applyWebhook(item: WebhookItem): Promise<void> {
    const local = item.localModel!;
    const api = this.input.api;
    let id: string;
    let verb: string;
    if (item.action === 'create') {
      const intent = await this.writeIntent(item);
      const res = await createWebhookEndpoint(api, { name: local.name, url: local.url, events: local.events });
      id = res.id;
      intent.id = id;
      this.noteIntent('webhook', item.key);
      await this.input.report.secret(item, id, res.secret);
      // Durable: a re-run must not say that nobody has the secret.
      intent.secretShown = true;
      this.noteIntent('webhook', item.key);
      await this.input.journal.durable();
      verb = `created (${id})`;
    } else {
      id = item.id!;
      await this.writeIntent(item);
      const patch: WebhookEndpointChange = {};
      if (item.changes.includes('name')) patch.name = local.name;
      if (item.changes.includes('url')) patch.url = local.url;
      if (item.changes.includes('events')) patch.events = local.events;
      if (Object.keys(patch).length) await updateWebhookEndpoint(api, id, patch);
      verb = `updated ${item.changes.join(', ')} (${id})`;
    }
    const { getWebhookEndpoint } = await import('../api/webhooks.js');
    const back = await getWebhookEndpoint(api, id, this.input.signal);
    const { webhookModelOf } = await import('./remote.js');
    const model = webhookModelOf(back);
    const kept = fieldHashes('webhook', model);
    this.checkKept(item, kept, model);
    await this.record('webhook', item.key, this.entryFor('webhook', id, kept, undefined, item));
    this.input.report.done(item, `webhook ${item.key}: ${verb}`);
  }

  // ------------------------------------------------------------------ deletes

  private async applyDelete(item: PlanItem): Promise<void> {
    const id = item.id!;
    const api = this.input.api;
    try {
      if (item.kind === 'agent') await deleteAgent(api, id);
      else if (item.kind === 'webhook') await deleteWebhookEndpoint(api, id);
      else {
        const agentId = this.state.agents[item.agentKey]?.id ?? item.remote?.agentId;
        if (agentId) await deleteSuite(api, agentId, id);
      }
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
    await this.record(item.kind, item.key, undefined);
    this.input.report.done(item, `${item.kind} ${item.key}: deleted (${id})`);
  }
}

function show(v: unknown): string {
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  const one = (text ?? '').replace(/\s+/g, ' ');
  return one.length > 60 ? `${JSON.stringify(one.slice(0, 57))}…` : JSON.stringify(one);
}
