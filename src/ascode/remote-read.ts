import type { Suite } from '../api/evals.js';
import type { WebhookEndpoint } from '../api/webhooks.js';
import { fieldHashes } from './model.js';
import type { LocalFiles } from './project.js';
import { type RemoteAgent, type RemoteReader, type RemoteSuite, remoteHashes, suiteModelOf } from './remote.js';
import type { State } from './state.js';
import type { Voice } from '../spec/agents.js';

/**
 * The platform read of a plan: what the platform has of the resources a project tracks,
 * and of those an interrupted push had created without recording them.
 */

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
  endpoints: WebhookEndpoint[];
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
  const agentIds = await agentIdsToRead(state, presence, reader);
  const { remoteAgents, suiteLists } = await readAgents(agentIds, reader, arrivals);
  const { suiteIds, replacements } = suiteIdsToRead(state, suiteLists);
  const readSuite = suiteReader(remoteAgents, suiteLists, reader);
  const remoteSuites = new Map<string, RemoteSuite | null>();
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

/** Slug → id of each agent to read: tracked ones, and those an interrupted push created. */
async function agentIdsToRead(state: State, presence: Presence, reader: RemoteReader): Promise<Map<string, string>> {
  const agentIds = new Map<string, string>();
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
    adoptSearch.set(slug, findCreatedAgent(reader, intent.name, intent.target.instructions, trackedAgentIds));
  }
  const adopted = await Promise.all([...adoptSearch].map(async ([slug, p]) => [slug, await p] as const));
  for (const [slug, id] of adopted) if (id) agentIds.set(slug, id);
  return agentIds;
}

/** The newest untracked agent of that name whose instructions are those the push sent. */
async function findCreatedAgent(
  reader: RemoteReader,
  name: string,
  instructions: string | undefined,
  tracked: ReadonlySet<string>,
): Promise<string | undefined> {
  const candidates = (await reader.allAgents(name)).filter((a) => a.name === name && !tracked.has(a.id));
  const read = await Promise.all(candidates.map((c) => reader.agent(c.id)));
  const same = read.filter((r): r is RemoteAgent => r !== null && remoteHashes('agent', r).instructions === instructions);
  same.sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? ''));
  return same.at(-1)?.id;
}

async function readAgents(
  agentIds: Map<string, string>,
  reader: RemoteReader,
  arrivals: Arrivals | undefined,
): Promise<Pick<RemoteSnapshot, 'remoteAgents' | 'suiteLists'>> {
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
  return { remoteAgents, suiteLists };
}

/** Suites to read: tracked ones, and ones an interrupted push had created (a replace's new suite apart). */
function suiteIdsToRead(state: State, suiteLists: Map<string, Suite[] | null>): Pick<RemoteSnapshot, 'suiteIds' | 'replacements'> {
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
  return { suiteIds, replacements };
}

/** Reads one suite with its scenarios, under an agent read before; null when either is gone. */
function suiteReader(remoteAgents: Map<string, RemoteAgent | null>, suiteLists: Map<string, Suite[] | null>, reader: RemoteReader) {
  return async (key: string, id: string): Promise<RemoteSuite | null> => {
    const agentSlug = key.split('/')[0]!;
    const agent = remoteAgents.get(agentSlug);
    const s = suiteLists.get(agentSlug)?.find((x) => x.id === id);
    if (!agent || !s) return null;
    const scenarios = await reader.scenarios(agent.id, id);
    if (!scenarios) return null;
    const model = suiteModelOf(s, scenarios);
    return { id, agentId: agent.id, model, hashes: fieldHashes('suite', model), runCount: s.runCount ?? 0 };
  };
}
