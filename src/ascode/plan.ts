import type { Suite } from '../api/evals.js';
import type { Voice } from '../api/voices.js';
import { canonicalLanguage, changedFields, contentHash, sameFields, fieldHashes, scenarioHash, type AnyModel, type FieldHashes, type Kind, type ScenarioModel, type SuiteModel } from './model.js';
import type { LocalAgent, LocalFiles, LocalSuite, LocalWebhook, ProjectConfig } from './project.js';
import { ProblemList } from './problems.js';
import { type RemoteReader, remoteHashes, suiteModelOf, webhookModelOf, type RemoteAgent, type RemoteSuite, type RemoteWebhook } from './remote.js';
import { intentKey, type Entry, type Intent, type State } from './state.js';
import { lineOf } from './yaml-doc.js';

/**
 * The plan: a three-way comparison, per resource, of the files, the state last synced
 * and the platform now. Terraform's plan and kubectl diff are the models; the classes
 * follow Vapi's gitops drift classes.
 *
 * | files vs last sync | platform vs last sync | class |
 * |---|---|---|
 * | same | same | unchanged |
 * | changed | same | update (create when never synced) |
 * | same | changed | drift |
 * | changed | changed | conflict (unchanged when both made the same change) |
 * | file removed | — | delete (applied only with --prune) |
 */

export type Action = 'unchanged' | 'create' | 'update' | 'replace' | 'delete' | 'drift' | 'conflict' | 'blocked' | 'forget';

export interface PlanItem {
  kind: Kind;
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
  local?: LocalAgent | LocalSuite | LocalWebhook;
  localModel?: AnyModel;
  remote?: RemoteAgent | RemoteSuite | RemoteWebhook;
  remoteModel?: AnyModel;
  base?: Entry;
  /** The state needs the platform's hashes although nothing is sent (both sides made the same change). */
  resync?: boolean;
  /** Suites: the scenarios to add, and those the platform has that the file no longer does. */
  scenarios?: { add: ScenarioModel[]; stale: Array<{ name: string; why: 'edited' | 'removed' }> };
  /** Suites: the agent they belong to (its slug). */
  agentKey?: string;
  /** Agents: the version before this push (what `--eval` rolls back to). */
  fromVersion?: number;
  /** A replace in progress: the suite already created in place of the old one. */
  replacement?: RemoteSuite;
  /** Tracked by the state, but its id answered 404. */
  missing?: boolean;
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
  return i.action === 'create' || i.action === 'update' || i.action === 'replace' || (i.action === 'delete' && !i.needsPrune) || i.resync === true || i.action === 'forget';
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
  if (kind === 'suite' && intent.scenarios && remoteModel) {
    const have = (remoteModel as SuiteModel).scenarios.map(scenarioHash);
    if (multisetMinus(have, intent.scenarios).length === 0) fields.scenarios = remote.scenarios!;
  }
  return { ...base, fields, hash: contentHash(kind, fields) };
}

/** The class of a tracked resource whose file and platform copy both exist. */
function classify(kind: Kind, key: string, base: FieldHashes, local: FieldHashes, remote: FieldHashes, opts: PlanOptions): Pick<PlanItem, 'action' | 'changes' | 'drift' | 'reason' | 'forced' | 'resync'> {
  // Most resources of a plan are unchanged on both sides: said without building the three lists.
  if (sameFields(kind, local, remote) && sameFields(kind, base, remote)) return { action: 'unchanged', changes: [], drift: [], resync: false };
  const changes = changedFields(kind, local, remote);
  const drift = changedFields(kind, base, remote);
  const mine = changedFields(kind, base, local);
  if (changes.length === 0) return { action: 'unchanged', changes, drift: [], resync: drift.length > 0 };
  if (drift.length === 0) return { action: 'update', changes, drift };
  if (mine.length === 0) {
    if (opts.force) return { action: 'update', changes, drift, forced: true };
    return { action: 'drift', changes, drift, reason: `changed on the platform since the last sync (${drift.join(', ')}): \`${pullCommand(kind, key, opts)}\` takes the platform's version into the files, \`vap push --force${profileArg(opts)}\` puts the files' back` };
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
function suiteApplicability(item: PlanItem, local: SuiteModel, remote: SuiteModel, opts: PlanOptions): void {
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
  if (stale.length) problems.push(`${stale.length} scenario${stale.length === 1 ? '' : 's'} ${stale.length === 1 ? 'was' : 'were'} edited or removed (${stale.map((s) => `"${s.name}" ${s.why}`).join(', ')}), and the API can only add scenarios`);
  if (remote.status === 'ready' && local.status === 'draft') problems.push('the status cannot go from ready back to draft');
  if (problems.length === 0) return;
  if (opts.replaceSuite) {
    item.action = 'replace';
    item.reason = `${problems.join('; ')}: replaced by a new suite made from the file; the old one is deleted with its ${(item.remote as RemoteSuite).runCount} run${(item.remote as RemoteSuite).runCount === 1 ? '' : 's'}`;
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

/** Which resources have files (folder and file names only, nothing parsed): enough to start reading the platform. */
export interface Presence {
  agents: ReadonlySet<string>;
  webhooks: boolean;
}

export function presenceOf(files: LocalFiles): Presence {
  return { agents: new Set(files.agents.keys()), webhooks: files.webhooks.size > 0 };
}

/** What the platform has of the resources a project tracks. */
export interface RemoteSnapshot {
  agentIds: Map<string, string>;
  remoteAgents: Map<string, RemoteAgent | null>;
  suiteLists: Map<string, Suite[] | null>;
  suiteIds: Map<string, string>;
  replacements: Map<string, string>;
  remoteSuites: Map<string, RemoteSuite | null>;
  replacementSuites: Map<string, RemoteSuite | null>;
  endpoints: import('../api/webhooks.js').WebhookEndpoint[];
  voices: Voice[];
}

/**
 * Each agent and suite of a snapshot as it arrives, for whoever plans meanwhile: buildPlan
 * classifies a resource while the rest are still being read, instead of all of them once
 * the last answer is in. What arrives before a listener is told to it when it registers.
 */
export class Arrivals {
  private agentListener?: (slug: string, remote: RemoteAgent | null) => void;
  private suiteListener?: (key: string, remote: RemoteSuite | null) => void;
  private readonly agents: Array<[string, RemoteAgent | null]> = [];
  private readonly suites: Array<[string, RemoteSuite | null]> = [];

  agent(slug: string, remote: RemoteAgent | null): void {
    if (this.agentListener) this.agentListener(slug, remote);
    else this.agents.push([slug, remote]);
  }

  suite(key: string, remote: RemoteSuite | null): void {
    if (this.suiteListener) this.suiteListener(key, remote);
    else this.suites.push([key, remote]);
  }

  listen(onAgent: (slug: string, remote: RemoteAgent | null) => void, onSuite: (key: string, remote: RemoteSuite | null) => void): void {
    this.agentListener = onAgent;
    this.suiteListener = onSuite;
    for (const [slug, remote] of this.agents.splice(0)) onAgent(slug, remote);
    for (const [key, remote] of this.suites.splice(0)) onSuite(key, remote);
  }
}

/** Reads the platform: tracked agents (with their suites and the tracked suites' scenarios), webhooks, voices. */
export async function readRemote(state: State, presence: Presence, reader: RemoteReader, arrivals?: Arrivals): Promise<RemoteSnapshot> {
  const voicesP = reader.voices();
  const needWebhooks = Object.keys(state.webhooks).length > 0 || presence.webhooks || Object.values(state.intents).some((i) => i.kind === 'webhook');
  const webhooksP = needWebhooks ? reader.webhooks() : Promise.resolve([]);
  // Awaited last: when something else fails first, their failure is not an unhandled rejection.
  voicesP.catch(() => undefined);
  webhooksP.catch(() => undefined);
  const agentIds = new Map<string, string>(); // slug → id to read
  for (const [slug, e] of Object.entries(state.agents)) agentIds.set(slug, e.id);
  for (const [k, intent] of Object.entries(state.intents)) {
    if (intent.kind === 'agent' && intent.id && !agentIds.has(k.slice('agent:'.length))) agentIds.set(k.slice('agent:'.length), intent.id);
  }
  // Creates interrupted before the platform's answer was recorded: look for the agent by name.
  const trackedAgentIds = new Set(Object.values(state.agents).map((e) => e.id));
  const adoptSearch = new Map<string, Promise<string | undefined>>();
  for (const [k, intent] of Object.entries(state.intents)) {
    const slug = k.slice('agent:'.length);
    if (intent.kind !== 'agent' || intent.id || state.agents[slug] || !presence.agents.has(slug)) continue;
    adoptSearch.set(
      slug,
      (async () => {
        const candidates = (await reader.allAgents(intent.name)).filter((a) => a.name === intent.name && !trackedAgentIds.has(a.id));
        const read = await Promise.all(candidates.map((c) => reader.agent(c.id)));
        const same = read.filter((r): r is RemoteAgent => r !== null && remoteHashes('agent', r).instructions === intent.target.instructions);
        same.sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? ''));
        return same.at(-1)?.id;
      })(),
    );
  }
  const adopted = await Promise.all([...adoptSearch].map(async ([slug, p]) => [slug, await p] as const));
  for (const [slug, id] of adopted) if (id) agentIds.set(slug, id);

  const remoteAgents = new Map<string, RemoteAgent | null>();
  const suiteLists = new Map<string, Suite[] | null>();
  await Promise.all(
    [...agentIds].map(async ([slug, id]) => {
      const [a, suites] = await Promise.all([reader.agent(id), reader.suites(id)]);
      remoteAgents.set(slug, a);
      suiteLists.set(slug, a ? suites : null);
      arrivals?.agent(slug, a);
    }),
  );

  // Suites: tracked ones, and ones an interrupted push had created.
  const trackedSuiteIds = new Set(Object.values(state.suites).map((e) => e.id));
  const suiteIds = new Map<string, string>(); // key → id to read
  const replacements = new Map<string, string>(); // key → id of the new suite of a replace in progress
  for (const [key, e] of Object.entries(state.suites)) suiteIds.set(key, e.id);
  for (const [k, intent] of Object.entries(state.intents)) {
    if (intent.kind !== 'suite') continue;
    const key = k.slice('suite:'.length);
    const agentSlug = key.split('/')[0]!;
    const list = suiteLists.get(agentSlug);
    let id = intent.id;
    if (!id && list) {
      const found = list.filter((s) => s.name === intent.name && !trackedSuiteIds.has(s.id) && s.id !== intent.oldId);
      found.sort((a, b) => String(a.createdAt ?? '').localeCompare(String(b.createdAt ?? '')));
      id = found.at(-1)?.id;
    }
    if (!id) continue;
    if (intent.op === 'replace') replacements.set(key, id);
    else if (!state.suites[key]) suiteIds.set(key, id);
  }
  const remoteSuites = new Map<string, RemoteSuite | null>();
  const readSuite = async (key: string, id: string): Promise<RemoteSuite | null> => {
    const agentSlug = key.split('/')[0]!;
    const agent = remoteAgents.get(agentSlug);
    const s = suiteLists.get(agentSlug)?.find((x) => x.id === id);
    if (!agent || !s) return null;
    const scenarios = await reader.scenarios(agent.id, id);
    if (!scenarios) return null;
    const model = suiteModelOf(s, scenarios);
    return { id, agentId: agent.id, model, hashes: fieldHashes('suite', model), runCount: s.runCount ?? 0 };
  };
  const replacementSuites = new Map<string, RemoteSuite | null>();
  await Promise.all([
    ...[...suiteIds].map(async ([key, id]) => {
      const suite = await readSuite(key, id);
      remoteSuites.set(key, suite);
      arrivals?.suite(key, suite);
    }),
    ...[...replacements].map(async ([key, id]) => replacementSuites.set(key, await readSuite(key, id))),
  ]);

  return { agentIds, remoteAgents, suiteLists, suiteIds, replacements, remoteSuites, replacementSuites, endpoints: await webhooksP, voices: await voicesP };
}

/**
 * Reads the platform (bounded concurrency) and builds the plan. Names the files use are
 * resolved here: an unknown tool or voice is a problem at its line, and nothing is sent.
 */
export async function buildPlan(input: BuildPlanInput, remote?: { snapshot: Promise<RemoteSnapshot>; arrivals: Arrivals }): Promise<{ plan: Plan; problems: ProblemList }> {
  const { files, state, opts, profile } = input;
  const problems = new ProblemList();
  const settings = input.config.profiles.get(profile) ?? { vars: {}, tools: {} };
  const arrivals = remote?.arrivals ?? new Arrivals();
  const snapshot = remote?.snapshot ?? readRemote(state, presenceOf(files), input.reader, arrivals);
  // Each agent and suite is classified as it arrives (the same item the loops below would
  // make of it); what the loops find here they take as it is.
  const early = new Map<string, PlanItem>();
  arrivals.listen(
    (slug, r) => early.set(`agent:${slug}`, planAgent(slug, r)),
    (key, r) => {
      // A replace in progress is finished below, with the suite it made.
      if (state.intents[intentKey('suite', key)]?.op !== 'replace') early.set(`suite:${key}`, planSuite(key, r));
    },
  );
  const { agentIds, remoteAgents, suiteLists, suiteIds, replacements, remoteSuites, replacementSuites, endpoints, voices } = await snapshot;

  // ---- names: tools (state < what the platform shows < vap.yaml) and voices
  const tools: Record<string, string> = { ...state.tools };
  for (const a of remoteAgents.values()) if (a) Object.assign(tools, a.toolIds);
  Object.assign(tools, settings.tools);
  // Files unchanged since the last sync were resolved then; the others are checked here.
  const parsedAgents = [...files.agents.values()].filter((a) => a.parsed);
  const unknownTools = new Set(parsedAgents.flatMap((a) => a.model.tools).filter((name) => !tools[name]));
  const learned: Record<string, string> = {};
  if (unknownTools.size) {
    // Names this profile has not seen yet: the tools of the organization's other agents say their ids.
    const read = new Set([...remoteAgents.values()].filter((a): a is RemoteAgent => a !== null).map((a) => a.id));
    Object.assign(learned, await input.reader.learnTools(unknownTools, read));
    for (const [name, id] of Object.entries(learned)) tools[name] ??= id;
  }
  const stillUnknown = new Set<string>();
  for (const a of parsedAgents) {
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
  if (stillUnknown.size) {
    // One fix for them all, ready to paste: under the profile's `tools:` when vap.yaml lists
    // the profile (vap adds one with an empty `tools:`), else the profile with it.
    const key = (n: string) => (/^[A-Za-z0-9 _.-]+$/.test(n) && !/^[ .-]|[ ]$/.test(n) ? n : JSON.stringify(n));
    const lines = [...stillUnknown].sort().map((n) => `${key(n)}: <the tool's id in profile ${profile}>`);
    const listed = input.config.profiles.has(profile);
    problems.trailer.push(
      `No agent of profile "${profile}" uses ${stillUnknown.size === 1 ? 'this tool' : 'these tools'} yet, and the API has no tool listing. Add ${stillUnknown.size === 1 ? 'its id' : 'their ids'} to vap.yaml, ${listed ? `under profiles.${profile}.tools` : 'under profiles'}:`,
      ...(listed ? lines.map((l) => `      ${l}`) : [`  ${key(profile)}:`, '    tools:', ...lines.map((l) => `      ${l}`)]),
    );
  }

  // ---- classify
  const items: PlanItem[] = [];
  const untracked: Plan['untracked'] = [];

  const agentSlugs = new Set([...files.agents.keys(), ...Object.keys(state.agents)]);
  for (const slug of [...agentSlugs].sort()) {
    items.push(early.get(`agent:${slug}`) ?? planAgent(slug, agentIds.has(slug) ? (remoteAgents.get(slug) ?? null) : null));
  }

  const suiteKeys = new Set([...files.suites.keys(), ...Object.keys(state.suites)]);
  for (const key of [...suiteKeys].sort()) {
    const known = early.get(`suite:${key}`);
    if (known) {
      items.push(known);
      continue;
    }
    const item = planSuite(key, suiteIds.has(key) ? (remoteSuites.get(key) ?? null) : null);
    const local = files.suites.get(key);
    const replacement = replacementSuites.get(key);
    if (state.intents[intentKey('suite', key)]?.op === 'replace' && replacement && local) {
      // A replace was interrupted after the new suite was made: finish it.
      item.action = 'replace';
      item.replacement = replacement;
      item.reason = 'finishing the replacement an interrupted push started';
      item.scenarios = { add: diffScenarios(local.model, replacement.model), stale: [] };
      item.changes = changedFields('suite', local.hashes, remoteHashes('suite', replacement));
    }
    items.push(item);
  }
  const knownSuites = new Set([...Object.values(state.suites).map((e) => e.id), ...suiteIds.values(), ...replacements.values()]);
  for (const [agentSlug, list] of suiteLists) {
    for (const s of list ?? []) {
      if (!knownSuites.has(s.id)) untracked.push({ kind: 'suite', agentKey: agentSlug, name: s.name, id: s.id });
    }
  }

  const trackedWebhookIds = new Set(Object.values(state.webhooks).map((e) => e.id));
  const whSlugs = new Set([...files.webhooks.keys(), ...Object.keys(state.webhooks)]);
  for (const slug of [...whSlugs].sort()) {
    const local = files.webhooks.get(slug);
    const base = state.webhooks[slug];
    const intent = state.intents[intentKey('webhook', slug)];
    let id: string | undefined = base?.id ?? intent?.id;
    if (!id && intent && local) {
      const found = endpoints.filter((e) => e.name === intent.name && !trackedWebhookIds.has(e.id) && fieldHashes('webhook', webhookModelOf(e)).url === intent.target.url);
      id = found.at(-1)?.id;
    }
    const e = id ? endpoints.find((x) => x.id === id) : undefined;
    const remote: RemoteWebhook | null = e ? { id: e.id, model: webhookModelOf(e) } : null;
    items.push(planOne('webhook', slug, local, base, intent, remote, remote?.model, opts));
  }

  return { plan: { profile, items, voices, tools, learnedTools: learned, untracked }, problems };

  /** The item of an agent, given what the platform has of it (null: nothing, or not read). */
  function planAgent(slug: string, remote: RemoteAgent | null): PlanItem {
    const intent = state.intents[intentKey('agent', slug)];
    const item = planOne('agent', slug, files.agents.get(slug), state.agents[slug], intent, remote, remote?.model, opts);
    if (remote) item.fromVersion = intent?.fromVersion ?? remote.version;
    return item;
  }

  /** The item of a suite, as for an agent (a replace in progress aside). */
  function planSuite(key: string, remote: RemoteSuite | null): PlanItem {
    const local = files.suites.get(key);
    const item = planOne('suite', key, local, state.suites[key], state.intents[intentKey('suite', key)], remote, remote?.model, opts);
    item.agentKey = key.split('/')[0]!;
    if (item.action === 'update' && local && remote) suiteApplicability(item, local.model, remote.model, opts);
    return item;
  }
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

function planOne(
  kind: Kind,
  key: string,
  local: LocalAgent | LocalSuite | LocalWebhook | undefined,
  stateEntry: Entry | undefined,
  intent: Intent | undefined,
  remote: RemoteAgent | RemoteSuite | RemoteWebhook | null,
  remoteModel: AnyModel | undefined,
  opts: PlanOptions,
): PlanItem {
  const file = local?.file ?? (kind === 'agent' ? `agents/${key}/agent.md` : kind === 'suite' ? `agents/${key.split('/')[0]}/evals/${key.split('/')[1]}.yaml` : `webhooks/${key}.yaml`);
  const item = new Item({ kind, key, name: remoteModel?.name ?? key, file, action: 'unchanged', changes: [], drift: [], local, remote: remote ?? undefined, remoteModel, base: stateEntry, id: remote?.id ?? stateEntry?.id }) as unknown as PlanItem;
  const done = (extra: Partial<PlanItem>): PlanItem => {
    Object.assign(item, extra);
    if (local && (item.action !== 'unchanged' || !remoteModel)) item.name = local.model.name;
    return item;
  };

  if (!local) {
    // The file was removed: a delete, applied only with --prune.
    if (!stateEntry) return done({ action: 'forget' });
    if (!remote) return done({ action: 'forget', reason: 'already gone from the platform', missing: true });
    const drift = changedFields(kind, stateEntry.fields, remoteHashes(kind, remote));
    return done({ action: 'delete', drift, needsPrune: !opts.prune, reason: opts.prune ? undefined : `the file was removed; \`vap push --prune${profileArg(opts)}\` deletes it on the platform` });
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
    return done({ action: 'drift', drift: ['deleted'], missing: true, reason: `deleted on the platform since the last sync: \`vap push --force${profileArg(opts)}\` creates it again, \`vap pull${profileArg(opts)}\` forgets it` });
  }
  const platform = remoteHashes(kind, remote);
  const base = recoverBase(kind, stateEntry, intent, platform, remoteModel);
  const c = classify(kind, key, base.fields, localHashes, platform, opts);
  // An unchanged resource that still has an intent (announced ahead by a push killed before
  // it got there) is recorded again, which drops the intent.
  return done({ ...c, base, resync: c.resync || base.hash !== stateEntry.hash || (c.action === 'unchanged' && (stateEntry.file !== local.digest || intent !== undefined)) });
}

