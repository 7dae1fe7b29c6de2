import {
  canonicalLanguage,
  changedFields,
  contentHash,
  sameFields,
  fieldHashes,
  scenarioHash,
  type AgentModel,
  type AnyModel,
  type FieldHashes,
  type Kind,
  type ScenarioModel,
  type SuiteModel,
  type WebhookModel,
} from './model.js';
import type { LocalAgent, LocalFiles, LocalSuite, LocalWebhook, ProjectConfig } from './project.js';
import { ProblemList } from './problems.js';
import { type RemoteReader, remoteHashes, webhookModelOf, type RemoteAgent, type RemoteSuite, type RemoteWebhook } from './remote.js';
import { Arrivals, presenceOf, readRemote, type RemoteSnapshot } from './remote-read.js';
import { intentKey, type Entry, type Intent, type State } from './state.js';
import { lineOf } from './yaml-doc.js';
import type { Voice } from '../spec/agents.js';

/**
 * Per resource, the plan compares the files and the platform now with the state last synced: a change in the files alone is an
 * update (a create when never synced), in the platform alone drift, in both a conflict (unchanged when it is the same change),
 * and a removed file a delete (applied only with --prune). The classes follow Vapi's gitops drift classes.
 */

export type Action = 'unchanged' | 'create' | 'update' | 'replace' | 'delete' | 'drift' | 'conflict' | 'blocked' | 'forget';

/** What every item has, whatever its kind: L, R and M are the kind's file, platform copy and model. */
interface ItemBase<K extends Kind, L, R extends { id: string; model: M }, M> {
  kind: K;
  /** The slug (`<agent>/<suite>` for a suite). */
  key: string;
  name: string;
  file: string;
  action: Action;
  /** The platform id, when the resource exists there. */
  id?: string;
  /** Fields whose values differ between the files and the platform. */
  changes: string[];
  /** Fields changed on the platform since the last sync. */
  drift: string[];
  /** Why it is not applied as it stands (drift, conflict, blocked, delete without --prune). */
  reason?: string;
  /** What a forced push would do instead. */
  forced?: boolean;
  /** A delete shown but not applied (no --prune). */
  needsPrune?: boolean;
  /** Found on the platform from the intent of an interrupted push. */
  adopted?: boolean;
  local?: L;
  readonly localModel?: M;
  remote?: R;
  remoteModel?: M;
  base?: Entry;
  /** The state needs the platform's hashes although nothing is sent (both sides made the same change). */
  resync?: boolean;
  /** Tracked by the state, but its id answered 404. */
  missing?: boolean;
}

export interface AgentItem extends ItemBase<'agent', LocalAgent, RemoteAgent, AgentModel> {
  /** The version before this push (what `--eval` rolls back to). */
  fromVersion?: number;
}

export interface SuiteItem extends ItemBase<'suite', LocalSuite, RemoteSuite, SuiteModel> {
  /** The agent the suite belongs to (its slug). */
  agentKey: string;
  /** The scenarios to add, and those the platform has that the file no longer does. */
  scenarios?: { add: ScenarioModel[]; stale: Array<{ name: string; why: 'edited' | 'removed' }> };
  /** A replace in progress: the suite already created in place of the old one. */
  replacement?: RemoteSuite;
}

export type WebhookItem = ItemBase<'webhook', LocalWebhook, RemoteWebhook, WebhookModel>;

/** One resource of the plan; its kind says which file, platform copy and model it carries. */
export type PlanItem = AgentItem | SuiteItem | WebhookItem;

/** The types of one kind of item, by kind. */
interface ItemOf {
  agent: { item: AgentItem; local: LocalAgent; remote: RemoteAgent };
  suite: { item: SuiteItem; local: LocalSuite; remote: RemoteSuite };
  webhook: { item: WebhookItem; local: LocalWebhook; remote: RemoteWebhook };
}

export interface Plan {
  profile: string;
  items: PlanItem[];
  voices: Voice[];
  /** Tool name → id, for this profile. */
  tools: Record<string, string>;
  /** Tool ids learned from the organization's other agents for names no tracked agent had (kept in the state by a push). */
  learnedTools: Record<string, string>;
  /** Suites on the platform under tracked agents that no file describes (a pull brings them). */
  untracked: Array<{ kind: Kind; agentKey: string; name: string; id: string }>;
}

export interface PlanOptions {
  force?: boolean;
  prune?: boolean;
  replaceSuite?: boolean;
  /** The profile, named in the commands a reason gives (none for the default profile). */
  profile?: string;
}

/** ` --profile p` for a profile other than the default one, as the commands of a reason type it. */
function profileArg(opts: PlanOptions): string {
  return opts.profile && opts.profile !== 'default' ? ` --profile ${opts.profile}` : '';
}

/** The pull that takes the platform's version of a resource. */
export function pullCommand(kind: Kind, key: string, opts: PlanOptions, force = false): string {
  const what = kind === 'webhook' ? '--webhooks' : `--agent ${key.split('/')[0]}`;
  return `vap pull ${what}${force ? ' --force' : ''}${profileArg(opts)}`;
}

const CHANGE_ACTIONS: ReadonlySet<Action> = new Set(['create', 'update', 'replace', 'delete', 'drift', 'conflict', 'blocked']);

/** Whether the plan has anything to apply, or drift to report (`vap diff --exit-code` exits 3). */
export function hasChanges(plan: Plan): boolean {
  return plan.items.some((i) => CHANGE_ACTIONS.has(i.action));
}

/** The tracked resources whose ids answered 404 (`<kind> <key>`). */
export function missingTracked(plan: Plan): string[] {
  return plan.items.filter((i) => i.missing).map((i) => `${i.kind} ${i.key}`);
}

/** How many resources the state tracks. */
export function trackedCount(state: State): number {
  return Object.keys(state.agents).length + Object.keys(state.suites).length + Object.keys(state.webhooks).length;
}

/** What `vap push` will send for this item. */
export function willApply(i: PlanItem): boolean {
  return (
    i.action === 'create' ||
    i.action === 'update' ||
    i.action === 'replace' ||
    (i.action === 'delete' && !i.needsPrune) ||
    i.resync === true ||
    i.action === 'forget'
  );
}

function multisetMinus(a: string[], b: string[]): string[] {
  const counts = new Map<string, number>();
  for (const x of b) counts.set(x, (counts.get(x) ?? 0) + 1);
  const out: string[] = [];
  for (const x of a) {
    const n = counts.get(x) ?? 0;
    if (n > 0) counts.set(x, n - 1);
    else out.push(x);
  }
  return out;
}

/** Where an interrupted push left a tracked resource: the fields it had already changed count as synced. */
function recoverBase(kind: Kind, base: Entry, intent: Intent | undefined, remote: FieldHashes, remoteModel: AnyModel | undefined): Entry {
  if (!intent || (intent.op !== 'update' && intent.op !== 'create')) return base;
  const fields = { ...base.fields };
  for (const [f, h] of Object.entries(intent.target)) if (remote[f] === h) fields[f] = h;
  if (kind === 'suite' && intent.scenarios && remoteModel && 'scenarios' in remoteModel) {
    const have = remoteModel.scenarios.map(scenarioHash);
    if (multisetMinus(have, intent.scenarios).length === 0) fields.scenarios = remote.scenarios!;
  }
  return { ...base, fields, hash: contentHash(kind, fields) };
}

/** The class of a tracked resource whose file and platform copy both exist. */
function classify(
  kind: Kind,
  key: string,
  base: FieldHashes,
  local: FieldHashes,
  remote: FieldHashes,
  opts: PlanOptions,
): Pick<PlanItem, 'action' | 'changes' | 'drift' | 'reason' | 'forced' | 'resync'> {
  // Most resources of a plan are unchanged on both sides: said without building the three lists.
  if (sameFields(kind, local, remote) && sameFields(kind, base, remote)) return { action: 'unchanged', changes: [], drift: [], resync: false };
  const changes = changedFields(kind, local, remote);
  const drift = changedFields(kind, base, remote);
  const mine = changedFields(kind, base, local);
  if (changes.length === 0) return { action: 'unchanged', changes, drift: [], resync: drift.length > 0 };
  if (drift.length === 0) return { action: 'update', changes, drift };
  if (mine.length === 0) {
    if (opts.force) return { action: 'update', changes, drift, forced: true };
    return {
      action: 'drift',
      changes,
      drift,
      reason: `changed on the platform since the last sync (${drift.join(', ')}): \`${pullCommand(kind, key, opts)}\` takes the platform's version into the files, \`vap push --force${profileArg(opts)}\` puts the files' back`,
    };
  }
  if (opts.force) return { action: 'update', changes, drift, forced: true };
  const both = drift.filter((f) => mine.includes(f));
  return {
    action: 'conflict',
    changes,
    drift,
    reason: `changed in the files and on the platform since the last sync (platform: ${drift.join(', ')}; files: ${mine.join(', ')}${both.length ? `; both: ${both.join(', ')}` : ''}): keep the files' with \`vap push --force${profileArg(opts)}\`, or the platform's with \`${pullCommand(kind, key, opts, true)}\` (your edit is overwritten)`,
  };
}

/** For a suite to be updated: the scenarios to add, and what the API cannot apply. */
function suiteApplicability(item: SuiteItem, local: SuiteModel, remoteSuite: RemoteSuite, opts: PlanOptions): void {
  const remote = remoteSuite.model;
  const lh = local.scenarios.map(scenarioHash);
  const rh = remote.scenarios.map(scenarioHash);
  const addHashes = multisetMinus(lh, rh);
  const staleHashes = multisetMinus(rh, lh);
  const add = addHashes.map((h) => local.scenarios[lh.indexOf(h)]!);
  const localNames = new Set(local.scenarios.map((s) => s.name));
  const stale = staleHashes.map((h) => {
    const s = remote.scenarios[rh.indexOf(h)]!;
    return { name: s.name, why: localNames.has(s.name) ? ('edited' as const) : ('removed' as const) };
  });
  item.scenarios = { add, stale };
  const problems: string[] = [];
  if (stale.length)
    problems.push(
      `${stale.length} scenario${stale.length === 1 ? '' : 's'} ${stale.length === 1 ? 'was' : 'were'} edited or removed (${stale.map((s) => `"${s.name}" ${s.why}`).join(', ')}), and the API can only add scenarios`,
    );
  if (remote.status === 'ready' && local.status === 'draft') problems.push('the status cannot go from ready back to draft');
  if (problems.length === 0) return;
  if (opts.replaceSuite) {
    item.action = 'replace';
    item.reason = `${problems.join('; ')}: replaced by a new suite made from the file; the old one is deleted with its ${remoteSuite.runCount} run${remoteSuite.runCount === 1 ? '' : 's'}`;
  } else {
    item.action = 'blocked';
    item.reason = `${problems.join('; ')}: not applicable through the API; \`vap push --replace-suite${profileArg(opts)}\` creates a new suite from the file and deletes this one after confirmation, losing its run history`;
  }
}

export interface BuildPlanInput {
  config: ProjectConfig;
  profile: string;
  files: LocalFiles;
  state: State;
  reader: RemoteReader;
  opts: PlanOptions;
}

/**
 * Reads the platform (bounded concurrency) and builds the plan. Names the files use are
 * resolved here: an unknown tool or voice is a problem at its line, and nothing is sent.
 */
export async function buildPlan(
  input: BuildPlanInput,
  remote?: { snapshot: Promise<RemoteSnapshot>; arrivals: Arrivals },
): Promise<{ plan: Plan; problems: ProblemList }> {
  const { files, state, profile } = input;
  const problems = new ProblemList();
  const arrivals = remote?.arrivals ?? new Arrivals();
  const snapshot = remote?.snapshot ?? readRemote(state, presenceOf(files), input.reader, arrivals);
  const scope: PlanScope = { files, state, opts: input.opts };
  // Each agent and suite is classified as it arrives (the same item the loops below would
  // make of it); what the loops find here they take as it is.
  const early = new Map<string, PlanItem>();
  arrivals.listen(
    (slug, r) => early.set(`agent:${slug}`, planAgent(scope, slug, r)),
    (key, r) => {
      // A replace in progress is finished below, with the suite it made.
      if (state.intents[intentKey('suite', key)]?.op !== 'replace') early.set(`suite:${key}`, planSuite(scope, key, r));
    },
  );
  const read = await snapshot;
  const { tools, learned } = await resolveNames(input, read, problems);
  const items: PlanItem[] = [];
  const agentSlugs = new Set([...files.agents.keys(), ...Object.keys(state.agents)]);
  for (const slug of [...agentSlugs].sort()) {
    items.push(early.get(`agent:${slug}`) ?? planAgent(scope, slug, read.agentIds.has(slug) ? (read.remoteAgents.get(slug) ?? null) : null));
  }
  const suiteKeys = new Set([...files.suites.keys(), ...Object.keys(state.suites)]);
  for (const key of [...suiteKeys].sort()) items.push(early.get(`suite:${key}`) ?? planSuiteAfterRead(scope, key, read));
  items.push(...planWebhooks(scope, read.endpoints));
  return { plan: { profile, items, voices: read.voices, tools, learnedTools: learned, untracked: untrackedSuites(state, read) }, problems };
}

/** What planning one resource needs besides the platform's copy of it. */
interface PlanScope {
  files: LocalFiles;
  state: State;
  opts: PlanOptions;
}

/**
 * The tools and voices the files name, resolved: tools by the state, then what the platform
 * shows, then vap.yaml, then the organization's other agents. What is still unknown is a problem.
 */
async function resolveNames(
  input: BuildPlanInput,
  read: RemoteSnapshot,
  problems: ProblemList,
): Promise<{ tools: Record<string, string>; learned: Record<string, string> }> {
  const { files, state, profile } = input;
  const settings = input.config.profiles.get(profile) ?? { vars: {}, tools: {} };
  const tools: Record<string, string> = { ...state.tools };
  for (const a of read.remoteAgents.values()) if (a) Object.assign(tools, a.toolIds);
  Object.assign(tools, settings.tools);
  // Files unchanged since the last sync were resolved then; the others are checked here.
  const parsedAgents = [...files.agents.values()].filter((a) => a.parsed);
  const unknownTools = new Set(parsedAgents.flatMap((a) => a.model.tools).filter((name) => !tools[name]));
  const learned: Record<string, string> = {};
  if (unknownTools.size) {
    // Names this profile has not seen yet: the tools of the organization's other agents say their ids.
    const readIds = new Set([...read.remoteAgents.values()].filter((a): a is RemoteAgent => a !== null).map((a) => a.id));
    Object.assign(learned, await input.reader.learnTools(unknownTools, readIds));
    for (const [name, id] of Object.entries(learned)) tools[name] ??= id;
  }
  const stillUnknown = new Set<string>();
  for (const a of parsedAgents) checkAgentNames(a, tools, read.voices, profile, problems, stillUnknown);
  if (stillUnknown.size) problems.trailer.push(...unknownToolsFix(stillUnknown, profile, input.config.profiles.has(profile)));
  return { tools, learned };
}

/** An agent's tools and voice, each unknown one a problem at its line. */
function checkAgentNames(
  a: LocalAgent,
  tools: Record<string, string>,
  voices: Voice[],
  profile: string,
  problems: ProblemList,
  stillUnknown: Set<string>,
): void {
  a.model.tools.forEach((name, i) => {
    if (!tools[name]) {
      stillUnknown.add(name);
      problems.add({ file: a.file, line: lineOf(a.src, ['tools', i]), message: `tools: no tool named "${name}" is known in profile "${profile}"` });
    }
  });
  const v = a.model.voice;
  if (v && !findVoice(voices, v.name, v.language)) {
    const sameName = voices.filter((x) => x.name === v.name).map((x) => x.language);
    problems.add({
      file: a.file,
      line: lineOf(a.src, ['voice', 'name']),
      message: sameName.length
        ? `voice: ${v.name} does not speak ${v.language} (it speaks ${sameName.join(', ')}); see \`vap voices list --language ${v.language}\``
        : `voice: no voice named "${v.name}" in profile "${profile}"; see \`vap voices list --language ${v.language}\``,
    });
  }
}

/**
 * One fix for every unknown tool, ready to paste: under the profile's `tools:` when vap.yaml
 * lists the profile (vap adds one with an empty `tools:`), else the profile with it.
 */
function unknownToolsFix(stillUnknown: Set<string>, profile: string, listed: boolean): string[] {
  const key = (n: string) => (/^[A-Za-z0-9 _.-]+$/.test(n) && !/^[ .-]|[ ]$/.test(n) ? n : JSON.stringify(n));
  const lines = [...stillUnknown].sort().map((n) => `${key(n)}: <the tool's id in profile ${profile}>`);
  return [
    `No agent of profile "${profile}" uses ${stillUnknown.size === 1 ? 'this tool' : 'these tools'} yet, and the API has no tool listing. Add ${stillUnknown.size === 1 ? 'its id' : 'their ids'} to vap.yaml, ${listed ? `under profiles.${profile}.tools` : 'under profiles'}:`,
    ...(listed ? lines.map((l) => `      ${l}`) : [`  ${key(profile)}:`, '    tools:', ...lines.map((l) => `      ${l}`)]),
  ];
}

/** The item of an agent, given what the platform has of it (null: nothing, or not read). */
function planAgent({ files, state, opts }: PlanScope, slug: string, remote: RemoteAgent | null): AgentItem {
  const intent = state.intents[intentKey('agent', slug)];
  const item = planOne('agent', slug, files.agents.get(slug), state.agents[slug], intent, remote, opts);
  if (remote) item.fromVersion = intent?.fromVersion ?? remote.version;
  return item;
}

/** The item of a suite, as for an agent (a replace in progress aside). */
function planSuite({ files, state, opts }: PlanScope, key: string, remote: RemoteSuite | null): SuiteItem {
  const local = files.suites.get(key);
  const item = planOne('suite', key, local, state.suites[key], state.intents[intentKey('suite', key)], remote, opts);
  item.agentKey = key.split('/')[0]!;
  if (item.action === 'update' && local && remote) suiteApplicability(item, local.model, remote, opts);
  return item;
}

/** A suite not planned as it arrived: not read, or a replace an interrupted push left to finish. */
function planSuiteAfterRead(scope: PlanScope, key: string, read: RemoteSnapshot): SuiteItem {
  const item = planSuite(scope, key, read.suiteIds.has(key) ? (read.remoteSuites.get(key) ?? null) : null);
  const local = scope.files.suites.get(key);
  const replacement = read.replacementSuites.get(key);
  if (scope.state.intents[intentKey('suite', key)]?.op === 'replace' && replacement && local) {
    // A replace was interrupted after the new suite was made: finish it.
    item.action = 'replace';
    item.replacement = replacement;
    item.reason = 'finishing the replacement an interrupted push started';
    item.scenarios = { add: diffScenarios(local.model, replacement.model), stale: [] };
    item.changes = changedFields('suite', local.hashes, remoteHashes('suite', replacement));
  }
  return item;
}

/** Suites on the platform under tracked agents that neither the state nor an intent knows. */
function untrackedSuites(state: State, read: RemoteSnapshot): Plan['untracked'] {
  const untracked: Plan['untracked'] = [];
  const knownSuites = new Set([...Object.values(state.suites).map((e) => e.id), ...read.suiteIds.values(), ...read.replacements.values()]);
  for (const [agentSlug, list] of read.suiteLists) {
    for (const s of list ?? []) {
      if (!knownSuites.has(s.id)) untracked.push({ kind: 'suite', agentKey: agentSlug, name: s.name, id: s.id });
    }
  }
  return untracked;
}

/** The webhooks' items: each endpoint found by its tracked id, or by the intent of an interrupted create. */
function planWebhooks({ files, state, opts }: PlanScope, endpoints: RemoteSnapshot['endpoints']): WebhookItem[] {
  const items: WebhookItem[] = [];
  const trackedWebhookIds = new Set(Object.values(state.webhooks).map((e) => e.id));
  const whSlugs = new Set([...files.webhooks.keys(), ...Object.keys(state.webhooks)]);
  for (const slug of [...whSlugs].sort()) {
    const local = files.webhooks.get(slug);
    const base = state.webhooks[slug];
    const intent = state.intents[intentKey('webhook', slug)];
    let id: string | undefined = base?.id ?? intent?.id;
    if (!id && intent && local) {
      const found = endpoints.filter(
        (e) => e.name === intent.name && !trackedWebhookIds.has(e.id) && fieldHashes('webhook', webhookModelOf(e)).url === intent.target.url,
      );
      id = found.at(-1)?.id;
    }
    const e = id ? endpoints.find((x) => x.id === id) : undefined;
    const remote: RemoteWebhook | null = e ? { id: e.id, model: webhookModelOf(e) } : null;
    items.push(planOne('webhook', slug, local, base, intent, remote, opts));
  }
  return items;
}

function diffScenarios(local: SuiteModel, remote: SuiteModel): ScenarioModel[] {
  const lh = local.scenarios.map(scenarioHash);
  const add = multisetMinus(lh, remote.scenarios.map(scenarioHash));
  return add.map((h) => local.scenarios[lh.indexOf(h)]!);
}

export function findVoice(voices: Voice[], name: string, language: string): Voice | undefined {
  const want = canonicalLanguage(language);
  return voices.find((v) => v.name === name && canonicalLanguage(v.language) === want);
}

/** A plan item: the file's model is read (and a file unchanged since the last sync parsed) only when needed. */
class Item {
  declare local?: PlanItem['local'];
  constructor(init: Omit<PlanItem, 'localModel'>) {
    Object.assign(this, init);
  }

  get localModel(): AnyModel | undefined {
    return this.local?.model;
  }
}

function planOne<K extends Kind>(
  kind: K,
  key: string,
  local: ItemOf[K]['local'] | undefined,
  stateEntry: Entry | undefined,
  intent: Intent | undefined,
  remote: ItemOf[K]['remote'] | null,
  opts: PlanOptions,
): ItemOf[K]['item'] {
  const remoteModel = remote?.model;
  const file =
    local?.file ??
    (kind === 'agent' ? `agents/${key}/agent.md` : kind === 'suite' ? `agents/${key.split('/')[0]}/evals/${key.split('/')[1]}.yaml` : `webhooks/${key}.yaml`);
  // The class's getter is what the item's type calls localModel; its other fields are those given here.
  const item = new Item({
    kind,
    key,
    name: remoteModel?.name ?? key,
    file,
    action: 'unchanged',
    changes: [],
    drift: [],
    local,
    remote: remote ?? undefined,
    remoteModel,
    base: stateEntry,
    id: remote?.id ?? stateEntry?.id,
  } as Omit<PlanItem, 'localModel'>) as unknown as ItemOf[K]['item'];
  const done = (extra: Partial<PlanItem>): ItemOf[K]['item'] => {
    Object.assign(item, extra);
    if (local && (item.action !== 'unchanged' || !remoteModel)) item.name = local.model.name;
    return item;
  };

  if (!local) {
    // The file was removed: a delete, applied only with --prune.
    if (!stateEntry) return done({ action: 'forget' });
    if (!remote) return done({ action: 'forget', reason: 'already gone from the platform', missing: true });
    const drift = changedFields(kind, stateEntry.fields, remoteHashes(kind, remote));
    return done({
      action: 'delete',
      drift,
      needsPrune: !opts.prune,
      reason: opts.prune ? undefined : `the file was removed; \`vap push --prune${profileArg(opts)}\` deletes it on the platform`,
    });
  }
  const localHashes = local.hashes;
  if (!stateEntry) {
    if (remote) {
      // Created by a push that was interrupted before it could record it: adopt it.
      const base: Entry = { id: remote.id, fields: remoteHashes(kind, remote), hash: '' };
      const c = classify(kind, key, base.fields, localHashes, base.fields, opts);
      return done({ ...c, action: c.action === 'unchanged' ? 'unchanged' : 'update', resync: true, adopted: true, base });
    }
    return done({ action: 'create', changes: [] });
  }
  if (!remote) {
    if (opts.force) return done({ action: 'create', forced: true, id: undefined, missing: true });
    return done({
      action: 'drift',
      drift: ['deleted'],
      missing: true,
      reason: `deleted on the platform since the last sync: \`vap push --force${profileArg(opts)}\` creates it again, \`vap pull${profileArg(opts)}\` forgets it`,
    });
  }
  const platform = remoteHashes(kind, remote);
  const base = recoverBase(kind, stateEntry, intent, platform, remoteModel);
  const c = classify(kind, key, base.fields, localHashes, platform, opts);
  // An unchanged resource that still has an intent (announced ahead by a push killed before
  // it got there) is recorded again, which drops the intent.
  return done({
    ...c,
    base,
    resync: c.resync || base.hash !== stateEntry.hash || (c.action === 'unchanged' && (stateEntry.file !== local.digest || intent !== undefined)),
  });
}
