import { getMaxListeners, setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import { getAgent, getAgentTools, listAgentsPage, AGENTS_MAX_PAGE_SIZE, type Agent } from '../api/agents.js';
import type { ApiClient } from '../api/client.js';
import { NotFoundError } from '../api/errors.js';
import { listScenarios, listSuites, type Scenario, type Suite } from '../api/evals.js';
import { listVoices } from '../api/voices.js';
import { listWebhookEndpoints, type WebhookEndpoint } from '../api/webhooks.js';
import { canonicalLanguage, fieldHashes, type AgentModel, type FieldHashes, type SuiteModel, type WebhookModel } from './model.js';
import type { Tool, Voice } from '../spec/agents.js';

/**
 * The platform side of a plan: the models of the resources a project tracks, read with
 * a bounded number of requests in flight (never one at a time, never all at once).
 */

/** Requests in flight while reading the platform. */
export const CONCURRENCY = 8;

export interface RemoteAgent {
  id: string;
  version: number;
  model: AgentModel;
  /** The model's field hashes: computed as the resource arrives, while other requests are in flight (remoteHashes). */
  hashes?: FieldHashes;
  /** Tool name → id, from the agent's tools. */
  toolIds: Record<string, string>;
  createdAt?: string;
}

export interface RemoteSuite {
  id: string;
  agentId: string;
  model: SuiteModel;
  hashes?: FieldHashes;
  runCount: number;
}

export interface RemoteWebhook {
  id: string;
  model: WebhookModel;
  hashes?: FieldHashes;
}

/** The field hashes of a resource read from the platform (kept on it once computed). */
export function remoteHashes(kind: 'agent' | 'suite' | 'webhook', remote: RemoteAgent | RemoteSuite | RemoteWebhook): FieldHashes {
  return (remote.hashes ??= fieldHashes(kind, remote.model));
}

export function agentModelOf(a: Agent, tools: Tool[]): AgentModel {
  const engine = (a.engine ?? 'realtime') as AgentModel['engine'];
  return {
    name: a.name,
    engine,
    voice: engine === 'speech-to-speech' || !a.voice ? null : { name: a.voice.name, language: canonicalLanguage(a.voice.language) },
    tools: tools.map((t) => t.name),
    variables: (a.variables ?? []).map((v) => ({ name: v.name, description: v.description ?? '' })),
    description: typeof a.description === 'string' ? a.description : '',
    tags: Array.isArray(a.tags) ? a.tags : [],
    instructions: a.instructions ?? '',
  };
}

export function suiteModelOf(s: Suite, scenarios: Scenario[]): SuiteModel {
  return {
    name: s.name,
    iterations: s.iterationsPerScenario,
    status: s.status,
    noise: s.noise ? { type: s.noise.type, level: s.noise.level } : null,
    criteria: (s.scoringCriteria ?? []).map((c) => ({ key: c.key, name: c.name, weight: c.weight })),
    scenarios: scenarios.map((x) => ({ name: x.name, persona: x.persona, goal: x.goal, category: x.category })),
  };
}

export function webhookModelOf(e: Pick<WebhookEndpoint, 'name' | 'url' | 'events'>): WebhookModel {
  return { name: e.name, url: e.url, events: [...e.events] };
}

const missing = (err: unknown) => err instanceof NotFoundError;

/** Reads from the platform with at most CONCURRENCY requests in flight; a 404 is `null`. */
export class RemoteReader {
  private readonly limit = pLimit(CONCURRENCY);
  private voicesP?: Promise<Voice[]>;
  private webhooksP?: Promise<WebhookEndpoint[]>;

  constructor(
    private readonly api: ApiClient,
    private readonly signal?: AbortSignal,
  ) {
    // Each request in flight listens to the signal (Ctrl-C); more than Node's default of 10.
    if (signal && getMaxListeners(signal) < 4 * CONCURRENCY) setMaxListeners(4 * CONCURRENCY, signal);
  }

  private run<T>(fn: () => Promise<T>): Promise<T> {
    return this.limit(fn);
  }

  private orNull<T>(fn: () => Promise<T>): Promise<T | null> {
    // One promise more than the request's, not an async function's (thousands of reads a plan).
    return this.run(fn).then(undefined, (err: unknown) => {
      if (missing(err)) return null;
      throw err;
    });
  }

  /** The agent and its tools (two requests side by side); null when it is gone. */
  async agent(id: string): Promise<RemoteAgent | null> {
    const [a, tools] = await Promise.all([this.orNull(() => getAgent(this.api, id, this.signal)), this.orNull(() => getAgentTools(this.api, id, this.signal))]);
    if (!a || !tools) return null;
    const model = agentModelOf(a, tools);
    return {
      id: a.id,
      version: a.currentVersion ?? 0,
      model,
      hashes: fieldHashes('agent', model),
      toolIds: Object.fromEntries(tools.map((t) => [t.name, t.id])),
      createdAt: a.createdAt,
    };
  }

  suites(agentId: string): Promise<Suite[] | null> {
    return this.orNull(() => listSuites(this.api, agentId, this.signal));
  }

  scenarios(agentId: string, evalId: string): Promise<Scenario[] | null> {
    return this.orNull(() => listScenarios(this.api, agentId, evalId, this.signal));
  }

  voices(): Promise<Voice[]> {
    return (this.voicesP ??= this.run(() => listVoices(this.api, {}, this.signal)));
  }

  webhooks(): Promise<WebhookEndpoint[]> {
    return (this.webhooksP ??= this.run(() => listWebhookEndpoints(this.api, this.signal)));
  }

  /**
   * Tool ids by name, learned from the tools of the organization's agents (the API has no
   * tool listing): every agent not in `skip` is read until each name in `wanted` is found.
   */
  async learnTools(wanted: Iterable<string>, skip: ReadonlySet<string>): Promise<Record<string, string>> {
    const missing = new Set(wanted);
    const learned: Record<string, string> = {};
    if (missing.size === 0) return learned;
    const agents = (await this.allAgents()).filter((a) => !skip.has(a.id));
    // In rounds of the concurrency, so that the reading stops once every name is known.
    for (let i = 0; i < agents.length && missing.size > 0; i += CONCURRENCY) {
      const lists = await Promise.all(agents.slice(i, i + CONCURRENCY).map((a) => this.orNull(() => getAgentTools(this.api, a.id, this.signal))));
      for (const tools of lists) {
        for (const t of tools ?? []) {
          if (!(t.name in learned)) learned[t.name] = t.id;
          missing.delete(t.name);
        }
      }
    }
    return learned;
  }

  /** Every agent of the organization (pages of 200). */
  async allAgents(search?: string): Promise<Agent[]> {
    const out: Agent[] = [];
    for (let page = 1; ; page++) {
      const p = await this.run(() => listAgentsPage(this.api, { page, pageSize: AGENTS_MAX_PAGE_SIZE, search }, this.signal));
      out.push(...p.items);
      if (!p.hasMore || p.items.length === 0) return out;
    }
  }
}
