import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import type { Kind } from './model.js';
import { SLUG_HINT, slugProblem, type ProjectFs } from './paths.js';
import { agentFile, suiteFile, webhookFile } from './project.js';
import { intentKey, loadState, saveState, SECTION, type State } from './state.js';

/**
 * `vap mv`: renames a resource's file (an agent's folder) and its entries in the state of
 * every profile, so that a rename is not a delete plus a create.
 */

export interface Ref {
  kind: Kind;
  /** The state key: `<slug>`, or `<agent>/<suite>`. */
  key: string;
}

/** A ref whose every slug is one safe path segment (`..`, `.`, `agents/..` name no resource). */
function checked(text: string, r: Ref): Ref {
  for (const slug of r.key.split('/')) {
    const p = slugProblem(slug);
    if (p) throw new UsageError(`"${text}" names no agent, suite or webhook: "${slug}" is not a slug (${p})`, SLUG_HINT);
  }
  return r;
}

/** `front-desk`, `agents/front-desk`, `webhooks/crm`, `front-desk/evals/booking`, `agents/front-desk/evals/booking.yaml`. */
export function parseRef(text: string, exists: (r: Ref) => boolean): Ref {
  return checked(text, parseRefShape(text, exists));
}

function parseRefShape(text: string, exists: (r: Ref) => boolean): Ref {
  const t = text
    .replace(/\/+$/, '')
    .replace(/\.yaml$/, '')
    .replace(/\/agent\.md$/, '');
  const parts = t.split('/');
  if (parts.length === 2 && parts[0] === 'webhooks') return { kind: 'webhook', key: parts[1]! };
  if (parts.length === 2 && parts[0] === 'agents') return { kind: 'agent', key: parts[1]! };
  if (parts.length === 4 && parts[0] === 'agents' && parts[2] === 'evals') return { kind: 'suite', key: `${parts[1]}/${parts[3]}` };
  if (parts.length === 3 && parts[1] === 'evals') return { kind: 'suite', key: `${parts[0]}/${parts[2]}` };
  if (parts.length === 2) return { kind: 'suite', key: t };
  if (parts.length === 1 && t) {
    const agent: Ref = { kind: 'agent', key: t };
    const webhook: Ref = { kind: 'webhook', key: t };
    if (exists(agent) && exists(webhook)) throw new UsageError(`"${t}" is both an agent and a webhook`, `say which: agents/${t} or webhooks/${t}`);
    return exists(webhook) ? webhook : agent;
  }
  throw new UsageError(`"${text}" names no agent, suite or webhook`, 'use <agent>, agents/<agent>, <agent>/evals/<suite> or webhooks/<slug>');
}

export function fileOf(r: Ref): string {
  if (r.kind === 'agent') return agentFile(r.key);
  if (r.kind === 'webhook') return webhookFile(r.key);
  const [a, s] = r.key.split('/');
  return suiteFile(a!, s!);
}

async function profileStates(fs: ProjectFs): Promise<State[]> {
  let names: string[] = [];
  try {
    names = await readdir(join(fs.root, '.vap'));
  } catch {
    return [];
  }
  const profiles = names.map((n) => /^state\.([A-Za-z0-9][A-Za-z0-9._-]{0,63})\.json$/.exec(n)?.[1]).filter((p): p is string => Boolean(p));
  return Promise.all(profiles.sort().map((p) => loadState(fs, p)));
}

function renameKeys<T>(rec: Record<string, T>, from: string, to: string, prefix: boolean): void {
  for (const k of Object.keys(rec)) {
    const hit = prefix ? k.startsWith(`${from}/`) : k === from;
    if (!hit) continue;
    rec[prefix ? `${to}${k.slice(from.length)}` : to] = rec[k]!;
    delete rec[k];
  }
}

export interface MoveResult {
  from: string;
  to: string;
  profiles: string[];
}

export async function move(fs: ProjectFs, fromText: string, toText: string): Promise<MoveResult> {
  const root = fs.root;
  const states = await profileStates(fs);
  const exists = (r: Ref) => existsSync(join(root, r.kind === 'agent' ? join('agents', r.key) : fileOf(r))) || states.some((s) => r.key in s[SECTION[r.kind]]);
  const from = parseRef(fromText, exists);
  // The new name may be a bare slug: it keeps the kind (and the agent, for a suite) of the old one.
  const to: Ref = toText.includes('/')
    ? parseRef(toText, () => false)
    : { kind: from.kind, key: from.kind === 'suite' ? `${from.key.split('/')[0]}/${toText}` : toText };
  if (to.kind !== from.kind) throw new UsageError(`cannot move a ${from.kind} to a ${to.kind}`, `give the new name of the ${from.kind}`);
  if (from.kind === 'suite' && from.key.split('/')[0] !== to.key.split('/')[0])
    throw new UsageError('a suite cannot move to another agent', 'an eval suite belongs to its agent on the platform');
  checked(toText, to);
  if (!exists(from))
    throw new UsageError(`${fileOf(from)} does not exist and no profile tracks ${from.kind} ${from.key}`, 'see the folders under agents/ and webhooks/');
  if (from.key === to.key) throw new UsageError(`${from.kind} ${from.key} already has that name`);
  if (exists(to)) throw new UsageError(`${to.kind} ${to.key} already exists`, 'choose a name that is not taken');

  const src = from.kind === 'agent' ? `agents/${from.key}` : fileOf(from);
  const dst = to.kind === 'agent' ? `agents/${to.key}` : fileOf(to);
  if (fs.checkNoLinks(src)) await fs.rename(src, dst);
  const touched: string[] = [];
  for (const s of states) {
    const before = JSON.stringify(s);
    renameKeys(s[SECTION[from.kind]], from.key, to.key, false);
    const intents = s.intents;
    if (intents[intentKey(from.kind, from.key)]) {
      intents[intentKey(to.kind, to.key)] = intents[intentKey(from.kind, from.key)]!;
      delete intents[intentKey(from.kind, from.key)];
    }
    if (from.kind === 'agent') {
      renameKeys(s.passed, from.key, to.key, false);
      renameKeys(s.suites, from.key, to.key, true);
      renameKeys(intents, `suite:${from.key}`, `suite:${to.key}`, true);
    }
    if (JSON.stringify(s) !== before) {
      await saveState(fs, s);
      touched.push(s.profile);
    }
  }
  return { from: from.kind === 'agent' ? `agents/${from.key}` : fileOf(from), to: to.kind === 'agent' ? `agents/${to.key}` : fileOf(to), profiles: touched };
}
