import { Document, parseDocument, stringify } from 'yaml';
import slugify from '@sindresorhus/slugify';
import { canonicalJson, type AgentModel, type SuiteModel, type WebhookModel } from './model.js';
import { joinAgentMarkdown, splitAgentMarkdown } from './project.js';
import { FORMAT_VERSION } from './scan.js';
import { isReservedName, MAX_SLUG } from './paths.js';
import { emitYaml } from './yaml-emit.js';
import { expandVars, hasAmbiguous, mergeInto, quoteAmbiguous, STRINGIFY, templateFor } from './yaml-doc.js';

/**
 * Files as vap writes them: a new file in a fixed key order and formatting; an existing one changed in place (its comments
 * and key order kept) and only when its content differs, so that a pull right after a push, or a second pull, changes no byte.
 */

/**
 * A slug from a name (`Front Desk` → `front-desk`), unique among `taken`: one safe path
 * segment (slugify keeps letters and digits; a name Windows reserves for a device, such
 * as `con` or `aux`, gets a number).
 */
export function uniqueSlug(name: string, taken: (s: string) => boolean, fallback: string): string {
  const base = (slugify(name) || fallback).slice(0, 60).replace(/[-.]+$/, '') || fallback;
  const free = (s: string) => !isReservedName(s) && s.length <= MAX_SLUG && !taken(s);
  if (free(base)) return base;
  for (let n = 2; ; n++) if (free(`${base}-${n}`)) return `${base}-${n}`;
}

/** Fields whose text takes `${vars.NAME}`, per file kind (a webhook's URL today). */
export const VAR_FIELDS: Record<'agent' | 'suite' | 'webhook', readonly string[]> = { agent: [], suite: [], webhook: ['url'] };

/** Compares YAML values the way the plan does: in a field that takes variables, a `${vars.X}` counts as its value. */
function equalWithVars(vars: Record<string, string>, varFields: readonly string[]) {
  return (key: string, before: unknown, after: unknown) =>
    varFields.includes(key) && typeof before === 'string' && typeof after === 'string'
      ? expandVars(before, vars) === expandVars(after, vars)
      : canonicalJson(before) === canonicalJson(after);
}

function render(doc: Document, data?: unknown): string {
  quoteAmbiguous(doc, data);
  return doc.toString(STRINGIFY);
}

function merged(existing: string | undefined, data: Record<string, unknown>, vars: Record<string, string>, varFields: readonly string[] = []): string {
  if (existing !== undefined) {
    const doc = parseDocument(existing);
    if (doc.errors.length === 0) {
      try {
        mergeInto(doc, data, equalWithVars(vars, varFields));
        return render(doc, data);
      } catch {
        // A document that cannot be read as data (an alias bomb): written anew.
      }
    }
  }
  // A new file: the yaml package's stringify (the same text as a Document's, at half the cost)
  // unless a string must be quoted for YAML 1.1 readers.
  if (hasAmbiguous(data)) return render(new Document(data), data);
  return emitYaml(data) ?? stringify(data, STRINGIFY);
}

export function agentFrontMatter(m: AgentModel): Record<string, unknown> {
  const data: Record<string, unknown> = { name: m.name, engine: m.engine };
  if (m.voice) data.voice = { name: m.voice.name, language: m.voice.language };
  data.tools = [...m.tools];
  data.variables = m.variables.map((v) => ({ name: v.name, description: v.description }));
  if (m.description) data.description = m.description;
  if (m.tags.length) data.tags = [...m.tags];
  return data;
}

/** agent.md for a model; `existing` is the file as it is (its front matter is kept where it agrees). */
export function agentMarkdown(m: AgentModel, existing: string | undefined, vars: Record<string, string>): string {
  const parts = existing === undefined ? undefined : splitAgentMarkdown(existing);
  return joinAgentMarkdown(merged(parts?.frontMatter, agentFrontMatter(m), vars), m.instructions);
}

export function suiteData(m: SuiteModel, gate: boolean): Record<string, unknown> {
  return {
    name: m.name,
    status: m.status,
    gate,
    iterations: m.iterations,
    noise: m.noise ? { type: m.noise.type, level: m.noise.level } : null,
    criteria: m.criteria.map((c) => ({ key: c.key, name: c.name, weight: c.weight })),
    scenarios: m.scenarios.map((s) => ({ name: s.name, category: s.category, persona: s.persona, goal: s.goal })),
  };
}

export function suiteYaml(m: SuiteModel, gate: boolean, existing: string | undefined, vars: Record<string, string>): string {
  return merged(existing, suiteData(m, gate), vars);
}

/** A webhook's document: its URL as the file holds it (a profile's var, or the text escaped). */
export function webhookData(m: WebhookModel, vars: Record<string, string>): Record<string, unknown> {
  return { name: m.name, url: templateFor(m.url, vars), events: [...m.events] };
}

export function webhookYaml(m: WebhookModel, existing: string | undefined, vars: Record<string, string>): string {
  return merged(existing, webhookData(m, vars), vars, VAR_FIELDS.webhook);
}

/** A new vap.yaml naming one profile. */
/**
 * A profile as vap adds it to vap.yaml: `vars:` and `tools:` empty in block style, so that
 * the lines a plan prints for unknown tools (`Calendar booking: <id>`) paste under `tools:`.
 */
const NEW_PROFILE = { vars: null, tools: null };
const CONFIG_STRINGIFY = { ...STRINGIFY, nullStr: '' } as const;

export function newConfig(profile: string): string {
  const doc = new Document({ version: FORMAT_VERSION, profiles: { [profile]: NEW_PROFILE } });
  doc.commentBefore = ` vap project: agents, eval suites and webhook endpoints as code.\n Profiles this folder pushes to; per profile, vars (used in a webhook's url as \${vars.NAME})\n and tools (name: id) for tools no agent of the profile uses yet.`;
  return doc.toString(CONFIG_STRINGIFY);
}

/** vap.yaml with `profile` added (comments and the other profiles kept). */
export function configWithProfile(text: string, profile: string): string {
  const doc = parseDocument(text);
  const profiles = doc.get('profiles');
  if (profiles === null || profiles === undefined) doc.set('profiles', doc.createNode({ [profile]: NEW_PROFILE }));
  else doc.setIn(['profiles', profile], doc.createNode(NEW_PROFILE));
  quoteAmbiguous(doc);
  return doc.toString(CONFIG_STRINGIFY);
}
