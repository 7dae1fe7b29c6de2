import { existsSync, type Dirent } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { canonicalLanguage, fieldHashes, type AgentModel, type AnyModel, type FieldHashes, type Kind, type SuiteModel, type WebhookModel } from './model.js';
import type { Entry } from './state.js';
import { ProblemList } from './problems.js';
import type { ProjectFs } from './paths.js';
import { fileDigest, FORMAT_VERSION, scanProject, type ReadFile } from './scan.js';
import { normalise, type TextForm } from './text-form.js';
import { expandField, expandVars, lineOf, parseYaml, validate, type YamlSource } from './yaml-doc.js';
import { ENGINES } from '../spec/agents.js';

/**
 * A project folder: `vap.yaml` at its root (found by walking up from the current
 * directory, as git finds `.git`), `agents/<slug>/agent.md`, `agents/<slug>/evals/<suite>.yaml`,
 * `webhooks/<slug>.yaml`, and `.vap/state.<profile>.json`.
 */

export const CONFIG_FILE = 'vap.yaml';
const BCP47 = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

export interface ProfileSettings {
  vars: Record<string, string>;
  tools: Record<string, string>;
}

export interface ProjectConfig {
  root: string;
  src: YamlSource;
  profiles: Map<string, ProfileSettings>;
  /**
   * vap.yaml's `gates:`: the eval gates of push --eval, preview and promote, keyed by the
   * flag's long name (`min-score: 0.8`); the flags given on a command line win. Read by the
   * commands, which know the flags (src/commands/ascode/gates.ts).
   */
  gates: ConfigGates;
}

/** A value of vap.yaml's `gates:` as written, with the line it is on (for a problem). */
export type ConfigGates = Map<string, { value: GateValue; line: number }>;
type GateValue = number | string | boolean | Array<number | string> | Record<string, number | string>;

const nonBlank = z.string().refine((s) => s.trim() !== '', { message: 'must not be empty' });

const ProfileSchema = z
  .strictObject({
    vars: z.record(z.string(), z.string()).nullish(),
    tools: z.record(z.string(), nonBlank).nullish(),
  })
  .nullish();

const GateValueSchema = z.union([
  z.number(),
  z.string(),
  z.boolean(),
  z.array(z.union([z.number(), z.string()])),
  z.record(z.string(), z.union([z.number(), z.string()])),
]);

const ConfigSchema = z.strictObject({
  version: z.literal(FORMAT_VERSION, { error: `must be ${FORMAT_VERSION} (the format this vap reads)` }),
  profiles: z.record(z.string(), ProfileSchema).nullish(),
  gates: z.record(z.string(), GateValueSchema).nullish(),
});

/** The folder holding vap.yaml: `start` or its closest parent that has one. */
export function findRoot(start: string): string | undefined {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, CONFIG_FILE))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

export function noProjectError(start: string): UsageError {
  return new UsageError(`no ${CONFIG_FILE} in ${resolve(start)} or any folder above it`, 'run `vap pull --all` in the folder that should hold the project');
}

export async function readConfig(fs: ProjectFs, problems: ProblemList): Promise<ProjectConfig | undefined> {
  const root = fs.root;
  const text = normalise((await fs.readText(CONFIG_FILE)) ?? '').text;
  const src = parseYaml(CONFIG_FILE, text, problems);
  if (!src) return undefined;
  const data = validate(src, ConfigSchema, problems);
  if (!data) return undefined;
  const profiles = new Map<string, ProfileSettings>();
  for (const [name, p] of Object.entries(data.profiles ?? {})) profiles.set(name, { vars: { ...(p?.vars ?? {}) }, tools: { ...(p?.tools ?? {}) } });
  const gates: ConfigGates = new Map();
  for (const [key, value] of Object.entries(data.gates ?? {})) gates.set(key, { value, line: lineOf(src, ['gates', key]) });
  return { root, src, profiles, gates };
}

// ---------------------------------------------------------------------------- files

/**
 * A file of the project. A file whose text (with the profile's vars) is the one recorded at
 * the last sync is not parsed until something needs its model: its field hashes are the
 * state's. The others are parsed (and checked) when read.
 */
interface LocalFile<M> {
  file: string;
  /** The text of the file, as read, without a BOM and with LF line endings (see text-form.ts). */
  text: string;
  /** Its BOM and line endings, kept when vap rewrites it. */
  form: TextForm;
  /** The hash of the text and the profile's vars (recorded in the state at a sync). */
  digest: string;
  /** Whether the file was parsed when read (it differs from the last sync, or was never synced). */
  parsed: boolean;
  readonly src: YamlSource;
  readonly model: M;
  readonly hashes: FieldHashes;
}

export interface LocalAgent extends LocalFile<AgentModel> {
  slug: string;
}

export interface LocalSuite extends LocalFile<SuiteModel> {
  /** `<agent slug>/<suite slug>`. */
  key: string;
  agentSlug: string;
  slug: string;
  readonly gate: boolean;
}

export interface LocalWebhook extends LocalFile<WebhookModel> {
  slug: string;
}

export interface LocalFiles {
  agents: Map<string, LocalAgent>;
  suites: Map<string, LocalSuite>;
  webhooks: Map<string, LocalWebhook>;
}

export const agentFile = (slug: string) => `agents/${slug}/agent.md`;
export const suiteFile = (agentSlug: string, slug: string) => `agents/${agentSlug}/evals/${slug}.yaml`;
export const webhookFile = (slug: string) => `webhooks/${slug}.yaml`;

const AgentSchema = z
  .strictObject({
    name: nonBlank,
    engine: z.enum(ENGINES as [string, ...string[]]),
    voice: z.strictObject({ name: nonBlank, language: z.string().regex(BCP47, { message: 'must be a BCP 47 language tag (for example es-MX)' }) }).nullish(),
    tools: z.array(nonBlank).nullish(),
    variables: z
      .array(
        z.strictObject({
          name: z.string().regex(VARIABLE_NAME, { message: 'must start with a letter or _ and hold only letters, digits, _, . and -' }),
          description: z.string().nullish(),
        }),
      )
      .nullish(),
    description: z.string().nullish(),
    tags: z.array(z.string()).nullish(),
  })
  .superRefine((a, ctx) => {
    if (a.engine === 'speech-to-speech' && a.voice) {
      ctx.addIssue({ code: 'custom', path: ['voice'], message: "a speech-to-speech agent speaks with its model's own voice: remove voice" });
    }
    if (a.engine !== 'speech-to-speech' && !a.voice) {
      ctx.addIssue({ code: 'custom', path: ['voice'], message: `a ${a.engine} agent needs a voice: { name, language } (see \`vap voices list\`)` });
    }
    const seen = new Set<string>();
    (a.variables ?? []).forEach((v, i) => {
      if (seen.has(v.name)) ctx.addIssue({ code: 'custom', path: ['variables', i, 'name'], message: `repeats the variable "${v.name}"` });
      seen.add(v.name);
    });
  });

const SuiteSchema = z.strictObject({
  name: nonBlank,
  iterations: z.number().int().min(1),
  status: z.enum(['draft', 'ready']),
  gate: z.boolean().nullish(),
  noise: z.strictObject({ type: nonBlank, level: nonBlank }).nullish(),
  criteria: z
    .array(
      z.strictObject({
        key: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, { message: 'must be lower case letters, digits and _, starting with a letter' }),
        name: nonBlank,
        weight: z.number().positive(),
      }),
    )
    .min(1),
  scenarios: z.array(z.strictObject({ name: nonBlank, persona: nonBlank, goal: nonBlank, category: nonBlank })).nullish(),
});

const WebhookSchema = z.strictObject({
  name: nonBlank,
  url: z.string().refine(
    (u) => {
      try {
        const p = new URL(u).protocol;
        return p === 'http:' || p === 'https:';
      } catch {
        return false;
      }
    },
    { message: 'must be an http(s) URL' },
  ),
  events: z.array(nonBlank).min(1),
});

/** Splits agent.md into its front matter (YAML) and its body (the instructions, byte for byte). */
export function splitAgentMarkdown(text: string): { frontMatter: string; body: string } | undefined {
  const open = /^---\r?\n/.exec(text);
  if (!open) return undefined;
  const rest = text.slice(open[0].length);
  const close = /^---[ \t]*(\r?\n|$)/m.exec(rest);
  if (!close) return undefined;
  const frontMatter = rest.slice(0, close.index);
  let body = rest.slice(close.index + close[0].length);
  // The file ends with one newline that is not part of the instructions (editors add it).
  if (body.endsWith('\n')) body = body.slice(0, -1);
  return { frontMatter, body };
}

/** agent.md from its front matter (YAML text, ending with a newline) and the instructions. */
export function joinAgentMarkdown(frontMatter: string, instructions: string): string {
  return `---\n${frontMatter}---\n${instructions}\n`;
}

export interface ReadOptions {
  vars: Record<string, string>;
  profile: string;
}

/** Whether a file's text (as read from disk) is still the text vap recorded when it last synced the resource. */
export function isTextVapWrote(kind: Kind, raw: string, entry: Entry | undefined, vars: Record<string, string>): boolean {
  return entry?.file !== undefined && fileDigest(kind, normalise(raw).text, vars) === entry.file;
}

type Parsed<M, X = object> = { src: YamlSource; model: M } & X;

export function parseAgentText(file: string, text: string, _opts: ReadOptions, problems: ProblemList): Parsed<AgentModel> | undefined {
  const parts = splitAgentMarkdown(text);
  if (!parts) {
    problems.add({ file, line: 1, message: 'must start with YAML front matter between two "---" lines, followed by the instructions' });
    return undefined;
  }
  const src = parseYaml(file, parts.frontMatter, problems, 1);
  if (!src) return undefined;
  const a = validate(src, AgentSchema, problems);
  if (!a) return undefined;
  if (parts.body.trim() === '') {
    problems.add({ file, line: src.lines.lineStarts.length + 2, message: 'the instructions (the text after the front matter) must not be empty' });
    return undefined;
  }
  return { src, model: agentModelOf(a, parts.body) };
}

function agentModelOf(a: z.infer<typeof AgentSchema>, instructions: string): AgentModel {
  return {
    name: a.name.trim(),
    engine: a.engine as AgentModel['engine'],
    voice: a.voice ? { name: a.voice.name, language: canonicalLanguage(a.voice.language) } : null,
    tools: a.tools ?? [],
    variables: (a.variables ?? []).map((v) => ({ name: v.name, description: v.description ?? '' })),
    description: a.description ?? '',
    tags: a.tags ?? [],
    instructions,
  };
}

function suiteModelOf(s: z.infer<typeof SuiteSchema>): SuiteModel {
  return {
    name: s.name.trim(),
    iterations: s.iterations,
    status: s.status,
    noise: s.noise ? { type: s.noise.type, level: s.noise.level } : null,
    criteria: s.criteria.map((c) => ({ key: c.key, name: c.name, weight: c.weight })),
    scenarios: (s.scenarios ?? []).map((x) => ({ name: x.name.trim(), persona: x.persona.trim(), goal: x.goal.trim(), category: x.category.trim() })),
  };
}

/**
 * The field hashes of the file vap renders from `data` (and, for an agent, the instructions), without rendering and parsing
 * it back: YAML renders data faithfully, and the checks and trimming are the reader's own. Undefined when the data would not
 * read as a valid file.
 */
export function hashesOfData(kind: Kind, data: Record<string, unknown>, opts: ReadOptions, instructions = ''): FieldHashes | undefined {
  let model: AnyModel | undefined;
  if (kind === 'agent') {
    const a = AgentSchema.safeParse(data);
    if (a.success && instructions.trim() !== '') model = agentModelOf(a.data, instructions);
  } else if (kind === 'suite') {
    const r = SuiteSchema.safeParse(data);
    if (r.success) model = suiteModelOf(r.data);
  } else {
    const url = typeof data.url === 'string' ? expandVars(data.url, opts.vars) : data.url;
    const w = WebhookSchema.safeParse({ ...data, url });
    if (w.success) model = { name: w.data.name.trim(), url: w.data.url, events: w.data.events };
  }
  return model ? fieldHashes(kind, model) : undefined;
}

export function parseSuiteText(file: string, text: string, _opts: ReadOptions, problems: ProblemList): Parsed<SuiteModel, { gate: boolean }> | undefined {
  const src = parseYaml(file, text, problems);
  if (!src) return undefined;
  const s = validate(src, SuiteSchema, problems);
  if (!s) return undefined;
  const model = suiteModelOf(s);
  return { src, model, gate: Boolean(s.gate) };
}

function parseWebhookText(file: string, text: string, opts: ReadOptions, problems: ProblemList): Parsed<WebhookModel> | undefined {
  const src = parseYaml(file, text, problems);
  if (!src) return undefined;
  // Variables are expanded in the one field that takes them; every other text is data.
  const data = src.data && typeof src.data === 'object' ? { ...(src.data as Record<string, unknown>) } : src.data;
  if (data && typeof data === 'object') expandField(src, data as Record<string, unknown>, 'url', opts.vars, opts.profile, problems);
  const w = validate(src, WebhookSchema, problems, data);
  if (!w) return undefined;
  return { src, model: { name: w.name.trim(), url: w.url, events: w.events } };
}

/**
 * A file whose text is the one the last sync recorded: its field hashes are the state's, and it is parsed when src, model or
 * gate is first asked for (one that no longer parses is a usage error then, and on each ask). A class, not getters on each
 * object: a project has thousands of these, and such objects cost more to make and to read.
 */
class SyncedFile<M, X> {
  readonly parsed = false;
  private loaded: (Parsed<M, X> & { gate?: boolean }) | undefined;
  readonly file: string;
  readonly form: TextForm;
  readonly digest: string;

  constructor(
    /** The file as scanned. */
    private readonly scanned: ReadFile,
    readonly hashes: FieldHashes,
    private readonly parseNow: (problems: ProblemList) => Parsed<M, X> | undefined,
  ) {
    this.file = scanned.file;
    this.form = scanned.form;
    this.digest = scanned.digest;
  }

  get text(): string {
    return this.scanned.text;
  }

  private load(): Parsed<M, X> & { gate?: boolean } {
    if (this.loaded) return this.loaded;
    const later = new ProblemList();
    const p = this.parseNow(later);
    if (!p) later.throwIfAny(() => undefined);
    return (this.loaded = p!);
  }

  get src(): YamlSource {
    return this.load().src;
  }

  get model(): M {
    return this.load().model;
  }

  get gate(): boolean | undefined {
    return this.load().gate;
  }
}

/** A scanned file as the plan sees it: synced (parsed when first needed) or parsed now; undefined when it does not parse. */
function localFile<M extends object, X extends object>(
  f: ReadFile,
  opts: ReadOptions,
  problems: ProblemList,
  synced: Entry | undefined,
  parse: (file: string, text: string, opts: ReadOptions, problems: ProblemList) => Parsed<M, X> | undefined,
): (LocalFile<M> & X) | undefined {
  const { file, digest } = f;
  if (synced?.file === digest) return new SyncedFile(f, { ...synced.fields }, (problems) => parse(file, f.text, opts, problems)) as unknown as LocalFile<M> & X;
  const { text, form } = f;
  const p = parse(file, text, opts, problems);
  if (!p) return undefined;
  let hashes: FieldHashes | undefined;
  return Object.assign(
    Object.create(null, { hashes: { enumerable: true, get: () => (hashes ??= fieldHashes(f.kind, p.model as unknown as AnyModel)) } }),
    { file, text, form, digest, parsed: true },
    p,
  ) as LocalFile<M> & X;
}

/** What the state recorded for a resource at its last sync (its file digest and field hashes). */
export type SyncedLookup = (kind: Kind, key: string) => Entry | undefined;

const yieldToIO = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Parsed files between two turns of the event loop (requests in flight get their answers in). */
const PARSED_PER_TURN = 4;

/**
 * Reads every file of the project, collecting problems rather than throwing. After the scan (scan.ts; `listing` is agents/ as
 * listPresence listed it), each file changed since the last sync is parsed and checked with I/O let in between, so requests
 * already in flight (a plan reads the platform meanwhile) keep going. A link anywhere in the layout is a problem, never followed.
 */
export async function readFiles(
  root: string,
  opts: ReadOptions,
  problems: ProblemList,
  synced: SyncedLookup = () => undefined,
  listing?: Dirent[],
): Promise<LocalFiles> {
  const scan = await scanProject(root, opts.vars, listing);
  for (const p of scan.problems) problems.add(p);
  const out: LocalFiles = { agents: new Map(), suites: new Map(), webhooks: new Map() };
  let parsed = 0;
  for (const f of scan.files) {
    if ('problem' in f) {
      problems.add({ file: f.file, message: f.problem });
      continue;
    }
    const key = f.kind === 'suite' ? `${f.agentSlug!}/${f.slug}` : f.slug;
    const entry = synced(f.kind, key);
    if (f.kind === 'agent') {
      const a = localFile(f, opts, problems, entry, parseAgentText);
      if (a) out.agents.set(key, Object.assign(a, { slug: key }));
    } else if (f.kind === 'suite') {
      const s = localFile(f, opts, problems, entry, parseSuiteText);
      if (s) out.suites.set(key, Object.assign(s, { key, agentSlug: f.agentSlug!, slug: f.slug }));
    } else {
      const w = localFile(f, opts, problems, entry, parseWebhookText);
      if (w) out.webhooks.set(key, Object.assign(w, { slug: key }));
    }
    if (entry?.file !== f.digest && ++parsed % PARSED_PER_TURN === 0) await yieldToIO();
  }
  return out;
}
