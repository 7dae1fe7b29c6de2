import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import type { FieldHashes, Kind } from './model.js';

/**
 * `.vap/state.<profile>.json`: what was last synced with one profile's organization.
 * Per resource: its id, the platform version (agents), the content hash and one hash
 * per field; the tool name → id map; and the intents of a push in progress, written
 * before each create or update, so that a push killed at any point and run again
 * adopts what it had created instead of creating it twice.
 *
 * It is meant to be committed: keys are sorted and each resource is one line, so two
 * pull requests that touch different resources rarely conflict.
 */

export const STATE_FORMAT = 1;

export interface Entry {
  id: string;
  hash: string;
  fields: FieldHashes;
  /** Agents: the platform's currentVersion when last synced. */
  version?: number;
  /** The digest of the file's text when it matched the platform at that sync (such a file is not parsed again). */
  file?: string;
}

export type IntentOp = 'create' | 'update' | 'replace';

export interface Intent {
  op: IntentOp;
  kind: Kind;
  /** The push that wrote it. */
  push: string;
  at: string;
  /** The name the resource is created with (to find it again). */
  name: string;
  /** The id, once the platform answered (a create or the new suite of a replace). */
  id?: string;
  /** What the resource will be once the push is done. */
  target: FieldHashes;
  /** Suites: the hashes of the target's scenarios (scenarios are added one by one). */
  scenarios?: string[];
  /** Agents: the version before the push (what `--eval` rolls back to). */
  fromVersion?: number;
  /** Replace: the suite being replaced. */
  oldId?: string;
}

export interface State {
  format: number;
  profile: string;
  agents: Record<string, Entry>;
  suites: Record<string, Entry>;
  webhooks: Record<string, Entry>;
  tools: Record<string, string>;
  intents: Record<string, Intent>;
}

export const SECTION: Record<Kind, 'agents' | 'suites' | 'webhooks'> = { agent: 'agents', suite: 'suites', webhook: 'webhooks' };

export const intentKey = (kind: Kind, key: string) => `${kind}:${key}`;

export function statePath(root: string, profile: string): string {
  return join(root, '.vap', `state.${profile}.json`);
}

export function emptyState(profile: string): State {
  return { format: STATE_FORMAT, profile, agents: {}, suites: {}, webhooks: {}, tools: {}, intents: {} };
}

export async function loadState(root: string, profile: string): Promise<State> {
  const path = statePath(root, profile);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyState(profile);
    throw err;
  }
  let raw: Partial<State>;
  try {
    raw = JSON.parse(text) as Partial<State>;
  } catch (err) {
    throw new UsageError(`.vap/state.${profile}.json is not valid JSON (${(err as Error).message})`, 'restore it from git (`git checkout -- .vap`), or delete it and run `vap pull` to start the sync over');
  }
  if (raw.format !== STATE_FORMAT) {
    throw new UsageError(`.vap/state.${profile}.json has format ${String(raw.format)}, not ${STATE_FORMAT}`, 'use the vap that wrote it, or delete it and run `vap pull`');
  }
  return {
    format: STATE_FORMAT,
    profile,
    agents: raw.agents ?? {},
    suites: raw.suites ?? {},
    webhooks: raw.webhooks ?? {},
    tools: raw.tools ?? {},
    intents: raw.intents ?? {},
  };
}

/** Sorted keys at every level, so that one state always has one text. */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

function section(name: string, entries: Record<string, unknown>, last: boolean): string {
  const keys = Object.keys(entries).sort();
  const body = keys.length === 0 ? '{}' : `{\n${keys.map((k) => `    ${JSON.stringify(k)}: ${sortedJson(entries[k])}`).join(',\n')}\n  }`;
  return `  ${JSON.stringify(name)}: ${body}${last ? '' : ','}\n`;
}

/** The state as its file holds it: one resource per line, keys sorted. */
export function serializeState(s: State): string {
  return (
    '{\n' +
    `  "format": ${s.format},\n` +
    `  "profile": ${JSON.stringify(s.profile)},\n` +
    section('agents', s.agents, false) +
    section('intents', s.intents, false) +
    section('suites', s.suites, false) +
    section('tools', s.tools, false) +
    section('webhooks', s.webhooks, true) +
    '}\n'
  );
}

/**
 * Writes the state so that a reader (or a push killed half-way, SIGKILL included) sees
 * the old file or the new one, never a part: a temporary file beside it, flushed to disk,
 * then renamed over it.
 */
export async function saveState(root: string, s: State): Promise<void> {
  const path = statePath(root, s.profile);
  await mkdir(join(root, '.vap'), { recursive: true });
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fh = await open(tmp, 'w', 0o644);
    try {
      await fh.writeFile(serializeState(s), 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}
