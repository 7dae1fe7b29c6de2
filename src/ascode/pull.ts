import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from '../api/client.js';
import type { Suite } from '../api/evals.js';
import { CliError, UsageError } from '../errors.js';
import { fieldHashes, contentHash, PREVIEW_TAG, type FieldHashes, type Kind } from './model.js';
import type { ProjectFs } from './paths.js';
import { agentFile, hashesOfData, isTextVapWrote, readFiles, suiteFile, webhookFile, type LocalFiles } from './project.js';
import { fileDigest } from './scan.js';
import { ProblemList } from './problems.js';
import {
  RemoteReader,
  remoteHashes as platformHashes,
  suiteModelOf,
  webhookModelOf,
  type RemoteAgent,
  type RemoteSuite,
  type RemoteWebhook,
} from './remote.js';
import { intentKey, SECTION, saveState, type Entry, type State } from './state.js';
import { inForm, normalise, PLAIN } from './text-form.js';
import { agentFrontMatter, agentMarkdown, suiteData, suiteYaml, uniqueSlug, webhookData, webhookYaml } from './write.js';
import type { ProfileSettings } from './project.js';

/**
 * `vap pull`: the platform's resources into files. A file changed locally since the last
 * sync is not overwritten (unless forced), and a file whose content already matches is
 * not rewritten, so a pull after a push, or a second pull, changes no byte.
 */

export interface PullSelection {
  all?: boolean;
  agents?: string[];
  webhooks?: boolean;
}

export interface PullInput {
  api: ApiClient;
  fs: ProjectFs;
  profile: string;
  settings: ProfileSettings;
  state: State;
  selection: PullSelection;
  force: boolean;
  signal?: AbortSignal;
  /**
   * Called before anything is written with the tracked resources whose ids answered 404
   * (`<kind> <key>`) and how many are tracked: it may refuse (another organization's key).
   */
  confirmMissing?: (missing: string[], tracked: number) => Promise<void>;
  /** The other profiles' states: a file one of them synced is not a local change. */
  elsewhere?: OtherProfile[];
}

export interface PullResult {
  written: string[];
  unchanged: string[];
  removed: string[];
  /** Files and folders of removed resources that were kept, and why (not vap's content, or holding the user's files). */
  kept: Array<{ path: string; why: string }>;
  counts: { agents: number; suites: number; webhooks: number };
}

/** Another profile's state, with the vars its files are read with. */
export interface OtherProfile {
  state: State;
  vars: Record<string, string>;
}

/**
 * Whether the file was changed (or removed, or broken) since the last sync. A file whose
 * text is the one another profile recorded at its last sync was not changed locally: only
 * synced with that profile since.
 */
function changedLocally(
  kind: Kind,
  key: string,
  files: LocalFiles,
  invalid: Set<string>,
  entry: Entry | undefined,
  file: string,
  root: string,
  elsewhere: OtherProfile[],
): boolean {
  const local = kind === 'agent' ? files.agents.get(key) : kind === 'suite' ? files.suites.get(key) : files.webhooks.get(key);
  if (local && !invalid.has(file) && elsewhere.some((o) => o.state[SECTION[kind]][key]?.file === fileDigest(kind, local.text, o.vars))) return false;
  if (!entry) return existsSync(join(root, file));
  if (invalid.has(file)) return true;
  if (!local) return true;
  const h = local.hashes;
  return Object.keys(entry.fields).some((f) => entry.fields[f] !== h[f]);
}

interface Rendered {
  text: string;
  /** What the text reads as: from the data it is rendered from (no parse of the text again). */
  hashes: FieldHashes | undefined;
  /** What it was merged into, and the gate it was given (a suite). */
  existing: string | undefined;
  gate: boolean;
}

interface TargetBase {
  key: string;
  file: string;
  /** The remote model's field hashes, once computed. */
  hashes?: FieldHashes;
  /** Its file is new here: given a slug whose file (or folder) does not exist. */
  fresh?: boolean;
  /** Its file's text, rendered when the resource arrived (used when what it merged into is still the file's text). */
  prepared?: Rendered;
}

/** A resource of one kind and what the platform has of it (null: gone, its file is removed). */
type Remote = { kind: 'agent'; remote: RemoteAgent | null } | { kind: 'suite'; remote: RemoteSuite | null } | { kind: 'webhook'; remote: RemoteWebhook | null };

/** A resource to pull. */
type Target =
  | (TargetBase & { kind: 'agent'; remote: RemoteAgent | null })
  | (TargetBase & {
      kind: 'suite';
      remote: RemoteSuite | null;
      /** The agent it belongs to (`@<id>` until a new agent has its slug). */
      agentKey: string;
    })
  | (TargetBase & { kind: 'webhook'; remote: RemoteWebhook | null });

/** What one pull works with, from the reading of the files to the state it records. */
interface PullScope {
  input: PullInput;
  root: string;
  reader: RemoteReader;
  files: LocalFiles;
  /** Files that do not parse. */
  invalid: Set<string>;
  readOpts: { vars: Record<string, string>; profile: string };
  /** Suite id → the key the state tracks it under. */
  slugOfSuiteId: Map<string, string>;
}

/** A file's text for a resource the platform has, merged into the file's text when there is one. */
function renderTarget(scope: PullScope, t: Remote, existing: string | undefined, gate: boolean): Rendered {
  const { vars } = scope.input.settings;
  const readOpts = scope.readOpts;
  if (t.kind === 'agent') {
    const m = t.remote!.model;
    return { text: agentMarkdown(m, existing, vars), hashes: hashesOfData('agent', agentFrontMatter(m), readOpts, m.instructions), existing, gate };
  }
  if (t.kind === 'suite') {
    const m = t.remote!.model;
    return { text: suiteYaml(m, gate, existing, vars), hashes: hashesOfData('suite', suiteData(m, gate), readOpts), existing, gate };
  }
  const m = t.remote!.model;
  return { text: webhookYaml(m, existing, vars), hashes: hashesOfData('webhook', webhookData(m, vars), readOpts), existing, gate };
}

export async function pull(input: PullInput): Promise<PullResult> {
  const { fs, profile, settings, state } = input;
  const problems = new ProblemList();
  const readOpts = { vars: settings.vars, profile };
  const files = await readFiles(fs.root, readOpts, problems, (kind, key) => state[SECTION[kind]][key]);
  const scope: PullScope = {
    input,
    root: fs.root,
    reader: new RemoteReader(input.api, input.signal),
    files,
    invalid: new Set(problems.items.map((p) => p.file)),
    readOpts,
    slugOfSuiteId: new Map(Object.entries(state.suites).map(([key, e]) => [e.id, key])),
  };
  const { agentIdsToPull, webhooksToo, refresh } = whatToPull(input);
  const targets = await readAgentTargets(scope, agentIdsToPull);
  if (webhooksToo) targets.push(...(await readWebhookTargets(scope, refresh)));
  nameNewTargets(scope, targets);
  // Ids that answered 404: another organization's key?
  const missing = targets.filter((t) => !t.remote && state[SECTION[t.kind]][t.key]).map((t) => `${t.kind} ${t.key}`);
  const tracked = Object.keys(state.agents).length + Object.keys(state.suites).length + Object.keys(state.webhooks).length;
  await input.confirmMissing?.(missing, tracked);
  const result: PullResult = { written: [], unchanged: [], removed: [], kept: [], counts: { agents: 0, suites: 0, webhooks: 0 } };
  const finalText = new Map<string, { text: string; hashes?: FieldHashes }>(); // file → its text once pulled (normalised), and what it reads as
  const contents = contentsToWrite(scope, targets, result, finalText);
  await writeContents(scope, contents, result, finalText);
  recordTargets(scope, targets, finalText, result);
  await saveState(fs, state);
  return result;
}

/** Which agents (id → the slug it has, if tracked) and whether the webhooks are pulled. */
function whatToPull(input: PullInput): { agentIdsToPull: Map<string, string | undefined>; webhooksToo: boolean; refresh: boolean } {
  const { state, selection, profile } = input;
  const agentIdsToPull = new Map<string, string | undefined>();
  const slugOfAgent = new Map(Object.entries(state.agents).map(([slug, e]) => [e.id, slug]));
  let webhooksToo = Boolean(selection.webhooks || selection.all);
  const refresh = !selection.all && !selection.agents?.length && !selection.webhooks;
  for (const ref of selection.agents ?? []) {
    const tracked = state.agents[ref];
    if (tracked) agentIdsToPull.set(tracked.id, ref);
    else agentIdsToPull.set(ref, slugOfAgent.get(ref));
  }
  if (refresh) {
    if (Object.keys(state.agents).length === 0 && Object.keys(state.webhooks).length === 0) {
      throw new UsageError(`profile "${profile}" tracks nothing yet in this folder`, 'choose what to pull: --all, --agent <id>, or --webhooks');
    }
    for (const [slug, e] of Object.entries(state.agents)) agentIdsToPull.set(e.id, slug);
    webhooksToo = Object.keys(state.webhooks).length > 0;
  }
  return { agentIdsToPull, webhooksToo, refresh };
}

/** Every agent to pull with its suites and their scenarios; each file is rendered as its resource arrives. */
async function readAgentTargets(scope: PullScope, agentIdsToPull: Map<string, string | undefined>): Promise<Target[]> {
  const { input, reader } = scope;
  if (input.selection.all) {
    // A preview's copies (tagged vap-preview) are not agents of the project; listed first, as selected.
    const slugOfAgent = new Map(Object.entries(input.state.agents).map(([slug, e]) => [e.id, slug]));
    const all = new Map<string, string | undefined>();
    for (const a of await reader.allAgents()) if (!(Array.isArray(a.tags) && a.tags.includes(PREVIEW_TAG))) all.set(a.id, slugOfAgent.get(a.id));
    for (const [id, slug] of agentIdsToPull) all.set(id, slug);
    agentIdsToPull = all;
  }
  const targets: Target[] = [];
  const unknownRefs: string[] = [];
  await Promise.all(
    [...agentIdsToPull].map(async ([id, slug]) => {
      const [a, suites] = await Promise.all([reader.agent(id), reader.suites(id)]);
      if (!a || !suites) {
        if (!slug) unknownRefs.push(id);
        else targets.push({ kind: 'agent', key: slug, file: agentFile(slug), remote: null });
        return;
      }
      targets.push(...(await agentWithSuites(scope, id, slug, a, suites)));
    }),
  );
  if (unknownRefs.length) {
    throw new UsageError(
      `no agent ${unknownRefs.map((r) => `"${r}"`).join(', ')}: not a slug tracked for profile "${input.profile}" nor an agent id in its organization`,
      'see `vap agents list`',
    );
  }
  return targets;
}

/** An agent read from the platform and its suites, as targets with their files' texts rendered. */
async function agentWithSuites(scope: PullScope, id: string, slug: string | undefined, a: RemoteAgent, suites: Suite[]): Promise<Target[]> {
  const { files, invalid, reader, slugOfSuiteId } = scope;
  const withScenarios = await Promise.all(
    suites.map(async (s) => {
      const scenarios = await reader.scenarios(id, s.id);
      if (!scenarios) return null;
      const model = suiteModelOf(s, scenarios);
      return { id: s.id, agentId: id, model, hashes: fieldHashes('suite', model), runCount: s.runCount ?? 0 } satisfies RemoteSuite;
    }),
  );
  // For a new agent there is no file to merge into; for a tracked one, the file as read.
  const localAgent = slug ? files.agents.get(slug) : undefined;
  const agentExisting = slug ? (localAgent && !invalid.has(agentFile(slug)) ? localAgent.text : undefined) : undefined;
  const out: Target[] = [
    { kind: 'agent', key: slug ?? '', file: '', remote: a, prepared: renderTarget(scope, { kind: 'agent', remote: a }, agentExisting, false) },
  ];
  for (const s of withScenarios) {
    if (!s) continue;
    const known = slug ? slugOfSuiteId.get(s.id) : undefined;
    const local = known?.startsWith(`${slug}/`) ? files.suites.get(known) : undefined;
    const gate = local?.gate ?? s.model.status === 'ready';
    out.push({
      kind: 'suite',
      key: '',
      file: '',
      remote: s,
      agentKey: slug ?? `@${id}`,
      prepared: renderTarget(scope, { kind: 'suite', remote: s }, local && !invalid.has(local.file) ? local.text : undefined, gate),
    });
  }
  return out;
}

/** The webhook endpoints to pull; a refresh (no selection) reads only those the folder tracks. */
async function readWebhookTargets(scope: PullScope, refresh: boolean): Promise<Target[]> {
  const { state } = scope.input;
  const targets: Target[] = [];
  const endpoints = await scope.reader.webhooks();
  const slugOfWebhook = new Map(Object.entries(state.webhooks).map(([slug, e]) => [e.id, slug]));
  const seen = new Set<string>();
  for (const e of endpoints) {
    const slug = slugOfWebhook.get(e.id) ?? '';
    if (!slug && refresh) continue;
    if (slug) seen.add(slug);
    targets.push({ kind: 'webhook', key: slug, file: slug ? webhookFile(slug) : '', remote: { id: e.id, model: webhookModelOf(e) } });
  }
  for (const slug of Object.keys(state.webhooks)) if (!seen.has(slug)) targets.push({ kind: 'webhook', key: slug, file: webhookFile(slug), remote: null });
  return targets;
}

/** By name, then id: the stable order new resources are given slugs in. */
const byNameThenId = (a: { remote: { id: string; model: { name: string } } | null }, b: { remote: { id: string; model: { name: string } } | null }) =>
  a.remote!.model.name.localeCompare(b.remote!.model.name) || a.remote!.id.localeCompare(b.remote!.id);

/** Slugs and files for what is new here, and the suites' files a removed or pulled agent takes with it. */
function nameNewTargets(scope: PullScope, targets: Target[]): void {
  const { root } = scope;
  const { state } = scope.input;
  const agentKeys = new Set(targets.filter((t) => t.kind === 'agent' && t.key).map((t) => t.key));
  const takenAgent = (s: string) => s in state.agents || agentKeys.has(s) || existsSync(join(root, 'agents', s));
  const newAgents = targets.filter((t) => t.kind === 'agent' && !t.key && t.remote).sort(byNameThenId);
  const freshAgents = new Set<string>();
  for (const t of newAgents) {
    // A slug whose folder does not exist: nothing of it is on disk (fresh).
    t.key = uniqueSlug(t.remote!.model.name, takenAgent, 'agent');
    agentKeys.add(t.key);
    freshAgents.add(t.key);
    t.fresh = true;
  }
  const byPlaceholder = new Map(newAgents.map((t) => [`@${t.remote!.id}`, t.key]));
  for (const s of targets) if (s.kind === 'suite' && byPlaceholder.has(s.agentKey)) s.agentKey = byPlaceholder.get(s.agentKey)!;
  for (const t of targets) if (t.kind === 'agent') t.file = agentFile(t.key);
  const suiteKeys = nameNewSuites(scope, targets, freshAgents);
  // Suites tracked under a pulled agent that the platform no longer has.
  const pulledAgents = new Set(targets.filter((t) => t.kind === 'agent' && t.remote).map((t) => t.key));
  for (const key of Object.keys(state.suites)) {
    const agentKey = key.split('/')[0]!;
    if (pulledAgents.has(agentKey) && !suiteKeys.has(key)) {
      targets.push({ kind: 'suite', key, agentKey, file: suiteFile(agentKey, key.split('/')[1]!), remote: null });
    }
  }
  const webhookTargets = targets.filter((t) => t.kind === 'webhook' && !t.key);
  const takenWebhook = (s: string) => s in state.webhooks || existsSync(join(root, webhookFile(s))) || targets.some((t) => t.kind === 'webhook' && t.key === s);
  for (const t of webhookTargets.sort(byNameThenId)) {
    t.key = uniqueSlug(t.remote!.model.name, takenWebhook, 'webhook');
    t.file = webhookFile(t.key);
    t.fresh = true;
  }
  // A removed agent takes its suites' files with it.
  for (const t of targets.filter((x) => x.kind === 'agent' && !x.remote)) {
    for (const key of Object.keys(state.suites)) {
      if (key.split('/')[0] === t.key && !suiteKeys.has(key)) {
        targets.push({ kind: 'suite', key, agentKey: t.key, file: suiteFile(t.key, key.split('/')[1]!), remote: null });
        suiteKeys.add(key);
      }
    }
  }
}

/** The suites' slugs: the tracked one when it is under the same agent, else a new one. Returns every suite key. */
function nameNewSuites(scope: PullScope, targets: Target[], freshAgents: ReadonlySet<string>): Set<string> {
  const { state } = scope.input;
  const slugOfSuite = new Map(Object.entries(state.suites).map(([key, e]) => [e.id, key]));
  const suiteTargets = targets.filter((t) => t.kind === 'suite');
  for (const t of suiteTargets) {
    const known = slugOfSuite.get(t.remote!.id);
    if (known && known.split('/')[0] === t.agentKey) t.key = known;
  }
  const suiteKeys = new Set(suiteTargets.filter((t) => t.key).map((t) => t.key));
  const takenSuite = (key: string) =>
    key in state.suites ||
    suiteKeys.has(key) ||
    (!freshAgents.has(key.split('/')[0]!) && existsSync(join(scope.root, suiteFile(key.split('/')[0]!, key.split('/')[1]!))));
  for (const t of suiteTargets.filter((x) => !x.key).sort(byNameThenId)) {
    const slug = uniqueSlug(t.remote!.model.name, (s) => takenSuite(`${t.agentKey}/${s}`), 'suite');
    t.key = `${t.agentKey}/${slug}`;
    suiteKeys.add(t.key);
    t.fresh = true;
  }
  for (const t of suiteTargets) t.file = suiteFile(t.agentKey, t.key.split('/')[1]!);
  return suiteKeys;
}

/** A file's new text (null: remove it). */
type Content = { text: string | null; kind: Kind; entry?: Entry; hashes?: FieldHashes; fresh?: boolean };

function localOf(files: LocalFiles, t: Target) {
  return t.kind === 'agent' ? files.agents.get(t.key) : t.kind === 'suite' ? files.suites.get(t.key) : files.webhooks.get(t.key);
}

/** Each file's new text; refuses to overwrite local changes (nothing is written when one is found). */
function contentsToWrite(
  scope: PullScope,
  targets: Target[],
  result: PullResult,
  finalText: Map<string, { text: string; hashes?: FieldHashes }>,
): Map<string, Content> {
  const { files, invalid, root, input } = scope;
  const { state, force, profile } = input;
  const contents = new Map<string, Content>(); // file → new text (null: remove)
  const refused: string[] = [];
  for (const t of targets) {
    const entry = state[SECTION[t.kind]][t.key];
    const local = localOf(files, t);
    const remoteHashes = t.remote ? (t.hashes ??= platformHashes(t.kind, t.remote)) : undefined;
    const sameAsRemote = local && remoteHashes && !invalid.has(t.file) && Object.entries(local.hashes).every(([f, h]) => remoteHashes[f] === h);
    if (sameAsRemote) {
      result.unchanged.push(t.file);
      finalText.set(t.file, { text: local.text, hashes: local.hashes });
      continue;
    }
    if (!force && !t.fresh && changedLocally(t.kind, t.key, files, invalid, entry, t.file, root, input.elsewhere ?? [])) {
      refused.push(t.file);
      continue;
    }
    if (!t.remote) {
      contents.set(t.file, { text: null, kind: t.kind, entry });
      continue;
    }
    // Every path is checked before anything is written: inside the project, through no link.
    input.fs.checkNoLinks(t.file);
    const existing = !invalid.has(t.file) && local ? local.text : undefined;
    const gate = t.kind === 'suite' ? (files.suites.get(t.key)?.gate ?? t.remote.model.status === 'ready') : false;
    // Rendered while the platform was read, when what it merges into was known then.
    const r = t.prepared && t.prepared.existing === existing && t.prepared.gate === gate ? t.prepared : renderTarget(scope, t, existing, gate);
    const { text, hashes } = r;
    contents.set(t.file, { text, kind: t.kind, hashes, fresh: t.fresh });
  }
  if (refused.length) {
    const p = profile === 'default' ? '' : ` --profile ${profile}`;
    throw new CliError(
      `${refused.length === 1 ? `${refused[0]} was` : `${refused.length} files were`} changed locally since the last sync${refused.length > 1 ? ` (${refused.join(', ')})` : ''}; nothing was written`,
      1,
      `push the change (\`vap push${p}\`), discard it (\`git checkout -- ${refused.length === 1 ? refused[0] : '<file>'}\`), or overwrite it with the platform's version (\`vap pull --force${p}\`); \`vap diff${p}\` shows it`,
    );
  }
  return contents;
}

/** Writes the files (removing only what vap wrote), then removes the folders of removed agents left empty. */
async function writeContents(
  scope: PullScope,
  contents: Map<string, Content>,
  result: PullResult,
  finalText: Map<string, { text: string; hashes?: FieldHashes }>,
): Promise<void> {
  const { fs, settings } = scope.input;
  const removedAgents = new Set<string>();
  for (const [file, c] of contents) {
    if (c.text === null) {
      // Only a file whose content is still the one vap wrote; never a folder with anything else in it.
      const outcome = await fs.removeOwnFile(file, (raw) => isTextVapWrote(c.kind, raw, c.entry, settings.vars));
      if (outcome === 'removed') result.removed.push(file);
      else if (outcome === 'changed')
        result.kept.push({ path: file, why: 'its content is not the one vap last wrote; delete it yourself, or push it to create the resource again' });
      else if (outcome === 'not-a-file') result.kept.push({ path: file, why: 'it is not a file' });
      if (c.kind === 'agent') removedAgents.add(file.slice('agents/'.length, -'/agent.md'.length));
      continue;
    }
    // Synchronously: thousands of small files, and nothing else to do meanwhile.
    const before = c.fresh ? undefined : fs.readTextSync(file);
    const form = before === undefined ? PLAIN : normalise(before).form;
    const text = inForm(c.text, form);
    finalText.set(file, { text: c.text, hashes: c.hashes });
    if (before === text) result.unchanged.push(file);
    else {
      fs.writeTextSync(file, text, { fresh: c.fresh });
      result.written.push(file);
    }
  }
  for (const slug of [...removedAgents].sort()) {
    const held = await fs.removeEmptyDirs(`agents/${slug}/evals`, 'agents');
    if (held)
      result.kept.push({
        path: `${held.dir}/`,
        why: `it holds files vap did not write (${held.holds.slice(0, 5).join(', ')}${held.holds.length > 5 ? ', …' : ''})`,
      });
  }
}

/** The state after the pull: each resource's platform hashes, and its file's digest when the text reads back as them. */
function recordTargets(scope: PullScope, targets: Target[], finalText: Map<string, { text: string; hashes?: FieldHashes }>, result: PullResult): void {
  const { state, settings } = scope.input;
  for (const t of targets) {
    delete state.intents[intentKey(t.kind, t.key)];
    const section = state[SECTION[t.kind]];
    if (!t.remote) {
      delete section[t.key];
      continue;
    }
    const fields: FieldHashes = (t.hashes ??= platformHashes(t.kind, t.remote));
    // The file's digest is recorded when its text reads back as what the platform has.
    const final = finalText.get(t.file);
    const text = final?.text;
    const textHashes = final?.hashes;
    const same = textHashes !== undefined && Object.keys(fields).every((f) => fields[f] === textHashes[f]);
    section[t.key] = {
      id: t.remote.id,
      fields,
      hash: contentHash(t.kind, fields),
      ...(t.kind === 'agent' ? { version: t.remote.version } : {}),
      ...(same ? { file: fileDigest(t.kind, text!, settings.vars) } : {}),
    };
    if (t.kind === 'agent') Object.assign(state.tools, t.remote.toolIds);
    result.counts[SECTION[t.kind]]++;
  }
}
