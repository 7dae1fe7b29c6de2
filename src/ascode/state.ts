import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { z } from 'zod';
import { idProblem } from '../api/path.js';
import { UsageError } from '../errors.js';
import { canonicalJson, type FieldHashes, type Kind } from './model.js';
import { MAX_STATE_BYTES, slugProblem, tooLarge, type ProjectFs } from './paths.js';
import { bulkConforms, entryJson } from './state-fast.js';

/**
 * `.vap/state.<profile>.json`: what was last synced with one profile's organization, and where (salted key fingerprints, never a
 * key). It is committed: keys sorted, one resource a line, so pull requests rarely conflict; and a pull request can edit it, so
 * it is schema-checked on read (every slug and id one path segment): a deviation is exit 2, before anything is written or sent.
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
  /** Webhooks: the new endpoint's secret was shown (printed or written to --secret-file). */
  secretShown?: boolean;
}

/** Where a state was synced: the API's base URL, and salted fingerprints of the keys used (never a key). */
export interface Origin {
  baseUrl: string;
  salt: string;
  keys: string[];
}

/** An agent whose files passed their gating suites in this profile (see passed.ts). */
export interface Passed {
  /** The content hash of the agent's files that passed (the agent and its gating suites). */
  files: string;
  /** Written by earlier versions of vap (the platform's content then); read, never trusted or written. */
  platform?: string;
  /** The runs that passed. */
  runs: string[];
  /** `push` (a gated push) or `preview`. */
  via: 'push' | 'preview';
  at: string;
}

/** What a preview made (or is about to make) for an agent: recorded before each create, so a killed preview is cleaned up. */
export interface PreviewRecord {
  label: string;
  /** The preview agent's name (how it is found when it was made but its id never recorded). */
  name: string;
  agentId?: string;
  suites: Array<{ key: string; name: string; id?: string }>;
  at: string;
}

export interface State {
  format: number;
  profile: string;
  origin?: Origin;
  /** Per agent slug: the files that passed their evals here (what `vap promote` may carry elsewhere). */
  passed: Record<string, Passed>;
  /** Per agent slug: the preview copies made in this profile and not yet removed. */
  previews: Record<string, PreviewRecord>;
  agents: Record<string, Entry>;
  suites: Record<string, Entry>;
  webhooks: Record<string, Entry>;
  tools: Record<string, string>;
  intents: Record<string, Intent>;
}

export const SECTION: Record<Kind, 'agents' | 'suites' | 'webhooks'> = { agent: 'agents', suite: 'suites', webhook: 'webhooks' };

export const intentKey = (kind: Kind, key: string) => `${kind}:${key}`;

/** The state file of a profile, relative to the project root. */
export const stateFile = (profile: string) => `.vap/state.${profile}.json`;

/** The journal of a push in progress (state-journal.ts), beside the state file. */
export const journalFile = (profile: string) => `.vap/state.${profile}.journal`;

export function emptyState(profile: string): State {
  return { format: STATE_FORMAT, profile, agents: {}, suites: {}, webhooks: {}, tools: {}, intents: {}, passed: {}, previews: {} };
}

// ---------------------------------------------------------------------------- schema

const Slug = z.string().superRefine((s, ctx) => {
  const p = slugProblem(s);
  if (p) ctx.addIssue({ code: 'custom', message: `not a safe slug: ${p}` });
});
const SuiteKey = z.string().superRefine((s, ctx) => {
  const parts = s.split('/');
  const p = parts.length !== 2 ? 'a suite is named <agent>/<suite>' : (slugProblem(parts[0]!) ?? slugProblem(parts[1]!));
  if (p) ctx.addIssue({ code: 'custom', message: `not a safe <agent>/<suite> key: ${p}` });
});
const IntentKey = z.string().superRefine((s, ctx) => {
  const m = /^(agent|suite|webhook):(.*)$/s.exec(s);
  const p = !m
    ? 'an intent is named agent:<slug>, suite:<agent>/<suite> or webhook:<slug>'
    : m[1] === 'suite'
      ? SuiteKey.safeParse(m[2]).error?.issues[0]?.message
      : slugProblem(m[2]!);
  if (p) ctx.addIssue({ code: 'custom', message: p });
});
const Id = z
  .string()
  .max(200)
  .superRefine((s, ctx) => {
    const p = idProblem(s);
    if (p) ctx.addIssue({ code: 'custom', message: `not an id: ${p}` });
  });
const Hash = z.string().regex(/^[0-9a-f]{16}$/, { message: 'not a hash (16 hex digits)' });
const Fields = z.record(z.string().max(40), Hash);

const EntrySchema = z.strictObject({
  id: Id,
  hash: Hash.or(z.literal('')),
  fields: Fields,
  version: z.number().int().nonnegative().optional(),
  file: Hash.optional(),
});

const IntentSchema = z.strictObject({
  op: z.enum(['create', 'update', 'replace']),
  kind: z.enum(['agent', 'suite', 'webhook']),
  push: z.string().max(100),
  at: z.string().max(40),
  name: z.string().max(10_000),
  id: Id.optional(),
  target: Fields,
  scenarios: z.array(Hash).optional(),
  fromVersion: z.number().int().nonnegative().optional(),
  oldId: Id.optional(),
  secretShown: z.boolean().optional(),
});

const PassedSchema = z.strictObject({
  files: Hash,
  platform: Hash.optional(),
  runs: z.array(Id).max(1000),
  via: z.enum(['push', 'preview']),
  at: z.string().max(40),
});

const PreviewSchema = z.strictObject({
  label: z.string().max(200),
  name: z.string().max(10_000),
  agentId: Id.optional(),
  suites: z.array(z.strictObject({ key: Slug, name: z.string().max(10_000), id: Id.optional() })).max(1000),
  at: z.string().max(40),
});

const OriginSchema = z.strictObject({
  baseUrl: z.string().max(2000),
  salt: z.string().regex(/^[0-9a-f]{16,64}$/),
  keys: z.array(Hash).max(100),
});

const StateSchema = z.strictObject({
  format: z.literal(STATE_FORMAT, { error: `is not ${STATE_FORMAT}, the format this vap reads` }),
  profile: z.string(),
  origin: OriginSchema.optional(),
  agents: z.record(Slug, EntrySchema).optional(),
  suites: z.record(SuiteKey, EntrySchema).optional(),
  webhooks: z.record(Slug, EntrySchema).optional(),
  tools: z.record(z.string().min(1).max(500), Id).optional(),
  intents: z.record(IntentKey, IntentSchema).optional(),
  passed: z.record(Slug, PassedSchema).optional(),
  previews: z.record(Slug, PreviewSchema).optional(),
});

const RestSchema = StateSchema.omit({ agents: true, suites: true, webhooks: true });

/** The whole schema (for a test that compares the hand check with it). */
export const STATE_SCHEMA = StateSchema;

function restOfState(raw: Record<string, unknown>): ReturnType<typeof StateSchema.safeParse> {
  const { agents, suites, webhooks, ...rest } = raw;
  const r = RestSchema.safeParse(rest);
  if (!r.success) return r as ReturnType<typeof StateSchema.safeParse>;
  return { success: true, data: { ...r.data, agents, suites, webhooks } } as ReturnType<typeof StateSchema.safeParse>;
}

const STATE_HINT = (profile: string) =>
  `restore it from git (\`git checkout -- ${stateFile(profile)}\`), or delete it and run \`vap pull\` to start the sync over`;

/** Where in the state an issue is, as a reader finds it: `agents["front-desk"].fields`. */
function entryPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path)
    out +=
      typeof p === 'number'
        ? `[${p}]`
        : out === ''
          ? String(p)
          : typeof p === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(p)
            ? `.${p}`
            : `[${JSON.stringify(String(p))}]`;
  return out;
}

/**
 * Reads and checks the state: a regular file (not a link, not a folder), at most
 * MAX_STATE_BYTES, JSON of the schema above. Any deviation is a usage error (exit 2)
 * naming the file, the entry and the fix; nothing has been written or sent then.
 */
export async function loadState(fs: ProjectFs, profile: string): Promise<State> {
  const rel = stateFile(profile);
  const st = fs.checkNoLinks(rel);
  const journal = await fs.readText(journalFile(profile), MAX_STATE_BYTES);
  if (!st && journal === undefined) return emptyState(profile);
  if (st && !st.isFile()) throw new UsageError(`${rel} is not a file`, `move it out of the way; ${STATE_HINT(profile)}`);
  if (st && st.size > MAX_STATE_BYTES) throw tooLarge(rel, st.size, MAX_STATE_BYTES);
  const text = st ? (await fs.readText(rel, MAX_STATE_BYTES))! : JSON.stringify(emptyState(profile));
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${rel} is not valid JSON (${(err as Error).message})`, STATE_HINT(profile));
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new UsageError(`${rel} does not hold a state (an object with format, profile, agents…)`, STATE_HINT(profile));
  // What a push wrote after the state file, when it was killed before writing the file again.
  if (journal !== undefined) replayJournal(raw as Record<string, unknown>, journal, profile);
  // The bulk of a state (thousands of entries) is checked by hand when it conforms, and the
  // rest by the schema; anything unusual goes through the whole schema, whose messages say
  // what is wrong (a test checks that what the hand check accepts, the schema accepts).
  const r = bulkConforms(raw as Record<string, unknown>) ? restOfState(raw as Record<string, unknown>) : StateSchema.safeParse(raw);
  if (!r.success) {
    let issue = r.error.issues[0]!;
    let path: PropertyKey[] = [...issue.path];
    // A bad key of a record: its own message, at the key.
    if (issue.code === 'invalid_key' && issue.issues[0]) {
      path = [...issue.path];
      issue = issue.issues[0] as typeof issue;
    }
    const where = entryPath(path);
    const more = r.error.issues.length > 1 ? ` (and ${r.error.issues.length - 1} more)` : '';
    throw new UsageError(
      `${rel}: ${where ? `${where}: ` : ''}${issue.message}${more}; nothing was written`,
      `fix or remove that entry, or ${STATE_HINT(profile)}`,
    );
  }
  const d = r.data;
  if (d.profile !== profile) throw new UsageError(`${rel} holds the state of profile "${d.profile}", not "${profile}"`, STATE_HINT(profile));
  for (const [k, intent] of Object.entries(d.intents ?? {})) {
    if (!k.startsWith(`${intent.kind}:`))
      throw new UsageError(
        `${rel}: intents[${JSON.stringify(k)}]: its kind is ${intent.kind}; nothing was written`,
        `fix or remove that entry, or ${STATE_HINT(profile)}`,
      );
  }
  return {
    format: STATE_FORMAT,
    profile,
    ...(d.origin ? { origin: d.origin } : {}),
    agents: d.agents ?? {},
    suites: d.suites ?? {},
    webhooks: d.webhooks ?? {},
    tools: d.tools ?? {},
    intents: (d.intents ?? {}) as Record<string, Intent>,
    passed: d.passed ?? {},
    previews: d.previews ?? {},
  };
}

// ---------------------------------------------------------------------------- origin

/** A key's fingerprint under a state's salt: 16 hex digits of SHA-256; the key cannot be read back from it. */
export function keyFingerprint(salt: string, apiKey: string): string {
  return createHash('sha256').update(`vap-key\0${salt}\0${apiKey}`).digest('hex').slice(0, 16);
}

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/** What differs between the state's origin and the credentials in use (nothing for a state with no origin yet). */
export function originChange(state: State, baseUrl: string, apiKey: string): { url?: string; key: boolean } | undefined {
  const o = state.origin;
  if (!o) return undefined;
  const url = sameUrl(o.baseUrl, baseUrl) ? undefined : o.baseUrl;
  const key = !o.keys.includes(keyFingerprint(o.salt, apiKey));
  return url !== undefined || key ? { url, key } : undefined;
}

/** Records the base URL and the key in use (the newest fingerprints first, at most 20). */
export function recordOrigin(state: State, baseUrl: string, apiKey: string): void {
  const salt = state.origin?.salt ?? randomBytes(8).toString('hex');
  const fp = keyFingerprint(salt, apiKey);
  const keys = [fp, ...(state.origin?.keys ?? []).filter((k) => k !== fp)].slice(0, 20);
  state.origin = { baseUrl: baseUrl.replace(/\/+$/, ''), salt, keys };
}

/** Sorted keys at every level, so that one state always has one text. */
function section(name: string, entries: Record<string, unknown>, last: boolean, json: (v: unknown) => string = canonicalJson): string {
  const keys = Object.keys(entries).sort();
  const body = keys.length === 0 ? '{}' : `{\n${keys.map((k) => `    ${JSON.stringify(k)}: ${json(entries[k])}`).join(',\n')}\n  }`;
  return `  ${JSON.stringify(name)}: ${body}${last ? '' : ','}\n`;
}

/** The state as its file holds it: one resource per line, keys sorted (each entry as canonical JSON). */
export function serializeState(s: State): string {
  return (
    '{\n' +
    `  "format": ${s.format},\n` +
    `  "profile": ${JSON.stringify(s.profile)},\n` +
    (s.origin ? `  "origin": ${canonicalJson(s.origin)},\n` : '') +
    section('agents', s.agents, false, entryJson) +
    section('intents', s.intents, false) +
    (Object.keys(s.passed).length ? section('passed', s.passed, false) : '') +
    (Object.keys(s.previews).length ? section('previews', s.previews, false) : '') +
    section('suites', s.suites, false, entryJson) +
    section('tools', s.tools, false) +
    section('webhooks', s.webhooks, true, entryJson) +
    '}\n'
  );
}

/**
 * Writes the state so that a reader (or a push killed half-way, SIGKILL included) sees
 * the old file or the new one, never a part: a temporary file beside it, flushed to disk,
 * then renamed over it (inside the project, through no link).
 */
export async function saveState(fs: ProjectFs, s: State): Promise<void> {
  await fs.writeText(stateFile(s.profile), serializeState(s), { sync: true });
  // The file now holds everything the journal of a push had recorded.
  await fs.removeIfExists(journalFile(s.profile));
}

/**
 * Applies a journal's complete lines to the raw state read from its file (before the
 * schema checks the whole). A last line cut short (a kill in the middle of an append,
 * never acknowledged) is dropped; a complete line that fails its checksum is damage.
 */
export function replayJournal(raw: Record<string, unknown>, text: string, profile: string): void {
  const rel = journalFile(profile);
  const lines = text.split('\n');
  const last = lines.pop(); // '' when the file ends with its newline; else a torn line
  void last;
  lines.forEach((line, i) => {
    const m = /^([0-9a-f]{8}) (.*)$/s.exec(line);
    const json = m ? Buffer.from(m[2]!, 'utf8') : undefined;
    if (!m || !json || Number.parseInt(m[1]!, 16) !== crc32(json)) {
      throw new UsageError(
        `${rel}:${i + 1}: a record fails its checksum`,
        `restore .vap from git, or delete ${rel} to drop what the unfinished push recorded after the state file was last written`,
      );
    }
    let changes: unknown;
    try {
      changes = JSON.parse(m[2]!);
    } catch {
      changes = undefined;
    }
    if (!Array.isArray(changes)) throw new UsageError(`${rel}:${i + 1}: not a journal record`, `restore .vap from git, or delete ${rel}`);
    for (const c of changes as unknown[]) {
      if (!Array.isArray(c) || c.length !== 3 || typeof c[0] !== 'string' || typeof c[1] !== 'string')
        throw new UsageError(`${rel}:${i + 1}: not a journal record`, `restore .vap from git, or delete ${rel}`);
      const [section, key, value] = c as [string, string, unknown];
      if (section === 'origin') {
        if (value === null) delete raw.origin;
        else raw.origin = value;
        continue;
      }
      if (!['agents', 'suites', 'webhooks', 'intents', 'tools', 'passed', 'previews'].includes(section))
        throw new UsageError(`${rel}:${i + 1}: names no section of the state ("${section}")`, `restore .vap from git, or delete ${rel}`);
      // vap's journal never writes a pass (only a gate that ran does, into the state file): a line that does is not vap's, and passes nothing.
      if (section === 'passed' && value !== null) continue;
      const sec = (raw[section] && typeof raw[section] === 'object' && !Array.isArray(raw[section]) ? raw[section] : (raw[section] = {})) as Record<
        string,
        unknown
      >;
      if (value === null) delete sec[key];
      else Object.defineProperty(sec, key, { value, enumerable: true, configurable: true, writable: true });
    }
  });
}
