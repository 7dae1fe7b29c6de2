import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from '../api/client.js';
import { CliError, UsageError } from '../errors.js';
import { fieldHashes, contentHash, PREVIEW_TAG, type FieldHashes, type Kind } from './model.js';
import type { ProjectFs } from './paths.js';
import { agentFile, hashesOfData, isTextVapWrote, readFiles, suiteFile, webhookFile, type LocalFiles } from './project.js';
import { fileDigest, loadScanIndex } from './scan.js';
import { ProblemList } from './problems.js';
import { RemoteReader, remoteHashes as platformHashes, suiteModelOf, webhookModelOf, type RemoteAgent, type RemoteSuite, type RemoteWebhook } from './remote.js';
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

interface Target {
  kind: Kind;
  key: string;
  file: string;
  remote: RemoteAgent | RemoteSuite | RemoteWebhook | null;
  /** The agent it belongs to (suites). */
  agentKey?: string;
  /** The remote model's field hashes, once computed. */
  hashes?: FieldHashes;
  /** Its file is new here: given a slug whose file (or folder) does not exist. */
  fresh?: boolean;
  /** Its file's text, rendered when the resource arrived (used when what it merged into is still the file's text). */
  prepared?: Rendered;
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
function changedLocally(kind: Kind, key: string, files: LocalFiles, invalid: Set<string>, entry: Entry | undefined, file: string, root: string, elsewhere: OtherProfile[]): boolean {
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

export async function pull(input: PullInput): Promise<PullResult> {
  const { api, fs, profile, settings, state, selection, force } = input;
  const root = fs.root;
  const renderTarget = (kind: Kind, remote: Target['remote'], existing: string | undefined, gate: boolean): Rendered => {
    const readOpts = { vars: settings.vars, profile };
    if (kind === 'agent') {
      const m = (remote as RemoteAgent).model;
      return { text: agentMarkdown(m, existing, settings.vars), hashes: hashesOfData('agent', agentFrontMatter(m), readOpts, m.instructions), existing, gate };
    }
    if (kind === 'suite') {
      const m = (remote as RemoteSuite).model;
      return { text: suiteYaml(m, gate, existing, settings.vars), hashes: hashesOfData('suite', suiteData(m, gate), readOpts), existing, gate };
    }
    const m = (remote as RemoteWebhook).model;
    return { text: webhookYaml(m, existing, settings.vars), hashes: hashesOfData('webhook', webhookData(m, settings.vars), readOpts), existing, gate };
  };
  const reader = new RemoteReader(api, input.signal);
  const problems = new ProblemList();
  const readOpts = { vars: settings.vars, profile };
  const index = loadScanIndex(fs);
  const files = await readFiles(root, readOpts, problems, (kind, key) => state[SECTION[kind]][key], index);
  const invalid = new Set(problems.items.map((p) => p.file));

  // ---- which agents and webhooks
  const agentIdsToPull = new Map<string, string | undefined>(); // id → slug it has (if tracked)
  const slugOfAgent = new Map(Object.entries(state.agents).map(([slug, e]) => [e.id, slug]));
  let webhooksToo = Boolean(selection.webhooks || selection.all);
  const refresh = !selection.all && !selection.agents?.length && !selection.webhooks;
  if (selection.all) {
    // A preview's copies (tagged vap-preview) are not agents of the project.
    for (const a of await reader.allAgents()) if (!(Array.isArray(a.tags) && a.tags.includes(PREVIEW_TAG))) agentIdsToPull.set(a.id, slugOfAgent.get(a.id));
  }
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

  // ---- read the platform
  const targets: Target[] = [];
  const slugOfSuiteId = new Map(Object.entries(state.suites).map(([key, e]) => [e.id, key]));
  const unknownRefs: string[] = [];
  await Promise.all(
    [...agentIdsToPull].map(async ([id, slug]) => {
      const [a, suites] = await Promise.all([reader.agent(id), reader.suites(id)]);
      if (!a || !suites) {
        if (!slug) unknownRefs.push(id);
        else targets.push({ kind: 'agent', key: slug, file: agentFile(slug), remote: null });
        return;
      }
      const withScenarios = await Promise.all(
        suites.map(async (s) => {
          const scenarios = await reader.scenarios(id, s.id);
          if (!scenarios) return null;
          const model = suiteModelOf(s, scenarios);
          return { id: s.id, agentId: id, model, hashes: fieldHashes('suite', model), runCount: s.runCount ?? 0 } satisfies RemoteSuite;
        }),
      );
      // Each file is rendered as its resource arrives, while the rest is still being read: for a
      // new agent there is no file to merge into; for a tracked one, the file as read.
      const localAgent = slug ? files.agents.get(slug) : undefined;
      const agentExisting = slug ? (localAgent && !invalid.has(agentFile(slug)) ? localAgent.text : undefined) : undefined;
      targets.push({ kind: 'agent', key: slug ?? '', file: '', remote: a, prepared: renderTarget('agent', a, agentExisting, false) });
      for (const s of withScenarios) {
        if (!s) continue;
        const known = slug ? slugOfSuiteId.get(s.id) : undefined;
        const local = known?.startsWith(`${slug}/`) ? files.suites.get(known) : undefined;
        const gate = local?.gate ?? s.model.status === 'ready';
        targets.push({ kind: 'suite', key: '', file: '', remote: s, agentKey: slug ?? `@${id}`, prepared: renderTarget('suite', s, local && !invalid.has(local.file) ? local.text : undefined, gate) });
      }
    }),
  );
  if (unknownRefs.length) {
    throw new UsageError(`no agent ${unknownRefs.map((r) => `"${r}"`).join(', ')}: not a slug tracked for profile "${profile}" nor an agent id in its organization`, 'see `vap agents list`');
  }
  if (webhooksToo) {
    const endpoints = await reader.webhooks();
    const slugOfWebhook = new Map(Object.entries(state.webhooks).map(([slug, e]) => [e.id, slug]));
    const seen = new Set<string>();
    for (const e of endpoints) {
      const slug = slugOfWebhook.get(e.id) ?? '';
      // A refresh (no selection) reads only the endpoints this folder already tracks.
      if (!slug && refresh) continue;
      if (slug) seen.add(slug);
      targets.push({ kind: 'webhook', key: slug, file: slug ? webhookFile(slug) : '', remote: { id: e.id, model: webhookModelOf(e) } });
    }
    for (const slug of Object.keys(state.webhooks)) if (!seen.has(slug)) targets.push({ kind: 'webhook', key: slug, file: webhookFile(slug), remote: null });
  }

  // ---- slugs for what is new here (stable order: by name, then id)
  const agentKeys = new Set(targets.filter((t) => t.kind === 'agent' && t.key).map((t) => t.key));
  const takenAgent = (s: string) => s in state.agents || agentKeys.has(s) || existsSync(join(root, 'agents', s));
  const newAgents = targets.filter((t) => t.kind === 'agent' && !t.key && t.remote).sort((a, b) => a.remote!.model.name.localeCompare(b.remote!.model.name) || a.remote!.id.localeCompare(b.remote!.id));
  const freshAgents = new Set<string>();
  for (const t of newAgents) {
    // A slug whose folder does not exist: nothing of it is on disk (fresh).
    t.key = uniqueSlug(t.remote!.model.name, takenAgent, 'agent');
    agentKeys.add(t.key);
    freshAgents.add(t.key);
    t.fresh = true;
  }
  const byPlaceholder = new Map(newAgents.map((t) => [`@${t.remote!.id}`, t.key]));
  for (const s of targets) if (s.kind === 'suite' && byPlaceholder.has(s.agentKey!)) s.agentKey = byPlaceholder.get(s.agentKey!);
  for (const t of targets) if (t.kind === 'agent') t.file = agentFile(t.key);
  const slugOfSuite = new Map(Object.entries(state.suites).map(([key, e]) => [e.id, key]));
  const suiteTargets = targets.filter((t) => t.kind === 'suite');
  for (const t of suiteTargets) {
    const known = slugOfSuite.get(t.remote!.id);
    if (known && known.split('/')[0] === t.agentKey) t.key = known;
  }
  const suiteKeys = new Set(suiteTargets.filter((t) => t.key).map((t) => t.key));
  const takenSuite = (key: string) => key in state.suites || suiteKeys.has(key) || (!freshAgents.has(key.split('/')[0]!) && existsSync(join(root, suiteFile(key.split('/')[0]!, key.split('/')[1]!))));
  for (const t of suiteTargets.filter((x) => !x.key).sort((a, b) => a.remote!.model.name.localeCompare(b.remote!.model.name) || a.remote!.id.localeCompare(b.remote!.id))) {
    const slug = uniqueSlug(t.remote!.model.name, (s) => takenSuite(`${t.agentKey}/${s}`), 'suite');
    t.key = `${t.agentKey}/${slug}`;
    suiteKeys.add(t.key);
    t.fresh = true;
  }
  for (const t of suiteTargets) t.file = suiteFile(t.agentKey!, t.key.split('/')[1]!);
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
  for (const t of webhookTargets.sort((a, b) => a.remote!.model.name.localeCompare(b.remote!.model.name) || a.remote!.id.localeCompare(b.remote!.id))) {
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

  // ---- ids that answered 404: another organization's key?
  const missing = targets.filter((t) => !t.remote && state[SECTION[t.kind]][t.key]).map((t) => `${t.kind} ${t.key}`);
  const tracked = Object.keys(state.agents).length + Object.keys(state.suites).length + Object.keys(state.webhooks).length;
  await input.confirmMissing?.(missing, tracked);

  // ---- refuse to overwrite local changes (nothing is written when one is found)
  const contents = new Map<string, { text: string | null; kind: Kind; entry?: Entry; hashes?: FieldHashes; fresh?: boolean }>(); // file → new text (null: remove)
  const finalText = new Map<string, { text: string; hashes?: FieldHashes }>(); // file → its text once pulled (normalised), and what it reads as
  const refused: string[] = [];
  const result: PullResult = { written: [], unchanged: [], removed: [], kept: [], counts: { agents: 0, suites: 0, webhooks: 0 } };
  for (const t of targets) {
    const entry = state[SECTION[t.kind]][t.key];
    const local = t.kind === 'agent' ? files.agents.get(t.key) : t.kind === 'suite' ? files.suites.get(t.key) : files.webhooks.get(t.key);
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
    fs.checkNoLinks(t.file);
    const existing = !invalid.has(t.file) && local ? local.text : undefined;
    const gate = t.kind === 'suite' ? (files.suites.get(t.key)?.gate ?? (t.remote as RemoteSuite).model.status === 'ready') : false;
    // Rendered while the platform was read, when what it merges into was known then.
    const r = t.prepared && t.prepared.existing === existing && t.prepared.gate === gate ? t.prepared : renderTarget(t.kind, t.remote, existing, gate);
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

  // ---- write files, then the state
  const removedAgents = new Set<string>();
  for (const [file, c] of contents) {
    if (c.text === null) {
      // Only a file whose content is still the one vap wrote; never a folder with anything else in it.
      const outcome = await fs.removeOwnFile(file, (raw) => isTextVapWrote(c.kind, raw, c.entry, settings.vars));
      if (outcome === 'removed') result.removed.push(file);
      else if (outcome === 'changed') result.kept.push({ path: file, why: 'its content is not the one vap last wrote; delete it yourself, or push it to create the resource again' });
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
    if (held) result.kept.push({ path: `${held.dir}/`, why: `it holds files vap did not write (${held.holds.slice(0, 5).join(', ')}${held.holds.length > 5 ? ', …' : ''})` });
  }
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
      ...(t.kind === 'agent' ? { version: (t.remote as RemoteAgent).version } : {}),
      ...(same ? { file: fileDigest(t.kind, text!, settings.vars) } : {}),
    };
    if (t.kind === 'agent') Object.assign(state.tools, (t.remote as RemoteAgent).toolIds);
    result.counts[SECTION[t.kind]]++;
  }
  await saveState(fs, state);
  // What the scan saw, once the pull is done (the files it wrote have new keys: read again next time).
  index.save(fs);
  return result;
}
