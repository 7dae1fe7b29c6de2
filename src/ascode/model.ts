import * as crypto from 'node:crypto';
import type { Engine } from '../spec/agents.js';
import type { Criterion } from '../spec/evals.js';

/**
 * The canonical models of agents, eval suites and webhook endpoints, with names instead of ids so that the same files
 * describe the same thing in every organization. Files, the last synced state and the platform are each read into these
 * models; the plan compares them field by field through their hashes.
 */

export interface VoiceRef {
  name: string;
  language: string;
}

export interface AgentModel {
  name: string;
  engine: Engine;
  /** null: a speech-to-speech agent speaks with its model's own voice. */
  voice: VoiceRef | null;
  /** Tool names, a set (the platform replaces the whole list). */
  tools: string[];
  variables: Array<{ name: string; description: string }>;
  description: string;
  tags: string[];
  instructions: string;
}

export interface ScenarioModel {
  name: string;
  persona: string;
  goal: string;
  category: string;
}

export interface SuiteModel {
  name: string;
  iterations: number;
  status: string;
  noise: { type: string; level: string } | null;
  criteria: Criterion[];
  /** A multiset: the platform lists scenarios in creation order and has no way to reorder them. */
  scenarios: ScenarioModel[];
}

export interface WebhookModel {
  name: string;
  url: string;
  /** A set of event types. */
  events: string[];
}

export type Kind = 'agent' | 'suite' | 'webhook';

/** The tag of the agents `vap preview` makes (never pulled as agents of a project). */
export const PREVIEW_TAG = 'vap-preview';
export type AnyModel = AgentModel | SuiteModel | WebhookModel;

/** The fields of each kind, in the order a plan shows them. */
export const FIELDS = {
  agent: ['name', 'engine', 'voice', 'tools', 'variables', 'description', 'tags', 'instructions'],
  suite: ['name', 'iterations', 'status', 'noise', 'criteria', 'scenarios'],
  webhook: ['name', 'url', 'events'],
} as const satisfies Record<Kind, readonly string[]>;

export type FieldHashes = Record<string, string>;

/** A BCP 47 tag in its canonical case (`es-mx` → `es-MX`); left as is when it is not one. */
const canonicalTags = new Map<string, string>();
export function canonicalLanguage(tag: string): string {
  let c = canonicalTags.get(tag);
  if (c === undefined) {
    try {
      c = Intl.getCanonicalLocales(tag)[0] ?? tag;
    } catch {
      c = tag;
    }
    canonicalTags.set(tag, c);
  }
  return c;
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/** Weights relative to their sum (the platform may store them normalised), rounded to 6 decimals. */
export function normaliseWeights(criteria: Criterion[]): Criterion[] {
  const sum = criteria.reduce((s, c) => s + c.weight, 0);
  return criteria.map((c) => ({ key: c.key, name: c.name, weight: sum > 0 ? round6(c.weight / sum) : c.weight }));
}

/** JSON with sorted keys: one text per value, whatever order its keys were built in. */
export function canonicalJson(v: unknown): string {
  // Built in one pass (no intermediate arrays: thousands of resources are hashed in a plan).
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      const item = canonicalJson(v[i]) as string | undefined;
      out += i === 0 ? (item ?? '') : `,${item ?? ''}`;
    }
    return `${out}]`;
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = sortedKeys(o);
    let out = '{';
    let first = true;
    for (const k of keys) {
      const x = o[k];
      if (x === undefined) continue;
      out += `${first ? '' : ','}${quotedKey(k)}:${canonicalJson(x)}`;
      first = false;
    }
    return `${out}}`;
  }
  return JSON.stringify(v);
}

/** An object's keys in code unit order (Array.prototype.sort's): sorted in place by insertion, for the few keys of a model's objects. */
function sortedKeys(o: Record<string, unknown>): string[] {
  const keys = Object.keys(o);
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

/** A key as JSON: the few keys of the models, quoted once a process. */
const quotedKeys = new Map<string, string>();

function quotedKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (quotedKeys.size < 256) quotedKeys.set(k, q);
  }
  return q;
}

/** One field of a model, by the name the field hashes give it. */
export function fieldOf(model: AnyModel | undefined, field: string): unknown {
  return model ? Reflect.get(model, field) : undefined;
}

/** The value of a field as it is compared: sets sorted, weights normalised, languages in canonical case. */
export function comparable(kind: Kind, field: string, value: unknown): unknown {
  if (kind === 'agent') {
    if (field === 'tools') return [...new Set(value as string[])].sort();
    if (field === 'voice') return value ? { name: (value as VoiceRef).name, language: canonicalLanguage((value as VoiceRef).language) } : null;
  }
  if (kind === 'suite') {
    if (field === 'criteria') return [...normaliseWeights(value as Criterion[])].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    if (field === 'scenarios') return (value as ScenarioModel[]).map(canonicalJson).sort();
  }
  if (kind === 'webhook' && field === 'events') return [...new Set(value as string[])].sort();
  return value;
}

/** SHA-256 of a text, 16 hex digits: Node's one-shot hash where it has one (20.12 and later: half the cost of a Hash object). */
const sha256hex: (text: string) => string =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (text) => (crypto as unknown as { hash(a: string, d: string, e: string): string }).hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

export function shortHash(text: string): string {
  return sha256hex(text).slice(0, 16);
}

/**
 * The short hashes of short canonical texts already hashed in this process. Most fields of
 * a project's resources repeat from one resource to the next (an engine, a voice, no tags,
 * the same criteria): a plan over thousands of them hashes each such text once.
 */
const shortTextHashes = new Map<string, string>();
const MEMO_TEXT_MAX = 256;
const MEMO_ENTRIES_MAX = 4096;

function fieldHash(text: string): string {
  if (text.length > MEMO_TEXT_MAX) return shortHash(text);
  let h = shortTextHashes.get(text);
  if (h === undefined) {
    if (shortTextHashes.size >= MEMO_ENTRIES_MAX) shortTextHashes.clear();
    h = shortHash(text);
    shortTextHashes.set(text, h);
  }
  return h;
}

/**
 * One short hash per field: of each field's comparable value as canonical JSON. Written out kind by kind (a test holds
 * them to FIELDS): a plan hashes thousands of resources, and V8 kept recompiling one loop over every kind's fields.
 */
export function fieldHashes(kind: Kind, model: AnyModel): FieldHashes {
  if (kind === 'agent') return agentFieldHashes(model as AgentModel);
  if (kind === 'suite') return suiteFieldHashes(model as SuiteModel);
  return webhookFieldHashes(model as WebhookModel);
}

function agentFieldHashes(m: AgentModel): FieldHashes {
  // An agent's name and instructions are its own: hashed as they are, never kept in the
  // memo, which they would fill (and empty again) for nothing in a project of thousands.
  return {
    name: shortHash(canonicalJson(m.name)),
    engine: fieldHash(canonicalJson(m.engine)),
    voice: fieldHash(canonicalJson(comparable('agent', 'voice', m.voice))),
    tools: fieldHash(canonicalJson(comparable('agent', 'tools', m.tools))),
    variables: fieldHash(canonicalJson(m.variables)),
    description: fieldHash(canonicalJson(m.description)),
    tags: fieldHash(canonicalJson(m.tags)),
    instructions: shortHash(canonicalJson(m.instructions)),
  };
}

function suiteFieldHashes(m: SuiteModel): FieldHashes {
  return {
    name: fieldHash(canonicalJson(m.name)),
    iterations: fieldHash(canonicalJson(m.iterations)),
    status: fieldHash(canonicalJson(m.status)),
    noise: fieldHash(canonicalJson(m.noise)),
    criteria: fieldHash(canonicalJson(comparable('suite', 'criteria', m.criteria))),
    scenarios: fieldHash(canonicalJson(comparable('suite', 'scenarios', m.scenarios))),
  };
}

function webhookFieldHashes(m: WebhookModel): FieldHashes {
  return {
    name: fieldHash(canonicalJson(m.name)),
    url: fieldHash(canonicalJson(m.url)),
    events: fieldHash(canonicalJson(comparable('webhook', 'events', m.events))),
  };
}

/** The content hash of a whole resource, from its field hashes. */
export function contentHash(kind: Kind, fields: FieldHashes): string {
  return shortHash(FIELDS[kind].map((f) => `${f}=${fields[f] ?? ''}`).join('\n'));
}

/** The hash of one scenario, for the multiset comparisons of a suite's scenarios. */
export function scenarioHash(s: ScenarioModel): string {
  return shortHash(canonicalJson(s));
}

/** Fields whose comparable values differ between two models of a kind. */
export function changedFields(kind: Kind, a: FieldHashes, b: FieldHashes): string[] {
  return FIELDS[kind].filter((f) => a[f] !== b[f]);
}

/** Whether no field differs (changedFields would be empty). */
export function sameFields(kind: Kind, a: FieldHashes, b: FieldHashes): boolean {
  const fields = FIELDS[kind];
  for (let i = 0; i < fields.length; i++) if (a[fields[i]!] !== b[fields[i]!]) return false;
  return true;
}
