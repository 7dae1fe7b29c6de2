import type { Scenario, Suite } from '../api/evals.js';
import { canonicalLanguage, type AgentModel, type SuiteModel } from '../ascode/model.js';
import { formatProblem, ProblemList } from '../ascode/problems.js';
import { agentFile, parseAgentText, parseSuiteText, suiteFile } from '../ascode/project.js';
import { normalise } from '../ascode/text-form.js';
import { UsageError } from '../errors.js';
import type { Voice } from '../spec/agents.js';
import type { VersionContent } from './content.js';
import { blobReader, filesAt, historyOf, MAX_BLOB_BYTES, repoOf, resolveRev, type Commit, type Repo, type TreeFile } from './git.js';

/**
 * An agent's content at each commit, parsed by the project's own readers, tool and voice names resolved to the profile's ids. A commit whose files
 * do not parse, or name what the profile does not know, is refused (skipped, as `git bisect skip` does), never guessed.
 */

/** An agent's folder at one commit: its model, and its suites by slug (or why each could not be read). */
interface Snapshot {
  commit: Commit;
  agent: AgentModel | string;
  suites: Map<string, { model: SuiteModel; gate: boolean } | string>;
}

const CONCURRENCY = 8;

async function mapLimit<T, R>(items: T[], fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return out;
}

type Parser<M> = (
  file: string,
  text: string,
  opts: { vars: Record<string, string>; profile: string },
  problems: ProblemList,
) => ({ model: M } & object) | undefined;

/** One file of the folder parsed, or why not. */
async function parsed<M, X>(
  f: TreeFile | undefined,
  rel: string,
  read: (blob: string) => Promise<string>,
  parse: Parser<M>,
  profile: string,
): Promise<(X & { model: M }) | string> {
  if (!f) return `${rel} is not in this commit`;
  if (!f.regular) return `${rel} is not a regular file in this commit`;
  if (f.size > MAX_BLOB_BYTES) return `${rel} is larger than ${MAX_BLOB_BYTES / 1024 / 1024} MB`;
  const problems = new ProblemList();
  const p = parse(rel, normalise(await read(f.blob)).text, { vars: {}, profile }, problems);
  return (p as (X & { model: M }) | undefined) ?? (problems.items[0] ? formatProblem(problems.items[0]) : `${rel} does not parse`);
}

/** Reads the agent's folder at each commit. */
async function snapshots(repo: Repo, slug: string, commits: Commit[], profile: string, signal?: AbortSignal): Promise<Snapshot[]> {
  const read = blobReader(repo, signal);
  const dir = `${repo.prefix}agents/${slug}/`;
  return mapLimit(commits, async (commit) => {
    const files = await filesAt(repo, commit.sha, dir, signal);
    const at = (rel: string) => files.find((f) => f.path === `${repo.prefix}${rel}`);
    const agent = await parsed<AgentModel, object>(at(agentFile(slug)), agentFile(slug), read, parseAgentText, profile);
    const suites: Snapshot['suites'] = new Map();
    for (const f of files) {
      const m = /^evals\/([^/]+)\.yaml$/.exec(f.path.slice(dir.length));
      if (!m) continue;
      const s = await parsed<SuiteModel, { gate: boolean }>(f, suiteFile(slug, m[1]!), read, parseSuiteText, profile);
      suites.set(m[1]!, typeof s === 'string' ? s : { model: s.model, gate: s.gate });
    }
    return { commit, agent: typeof agent === 'string' ? agent : agent.model, suites };
  });
}

/** The suite that judges each commit: --suite, else the one gating suite of the newest commit. */
function chooseSuite(slug: string, newest: Snapshot, given: string | undefined): string {
  const all = [...newest.suites.keys()].sort();
  if (given && !newest.suites.has(given))
    throw new UsageError(
      `agent ${slug} has no suite ${given} at ${newest.commit.short}${all.length ? `; its suites: ${all.join(', ')}` : ''}`,
      `give --suite one of agents/${slug}/evals/<suite>.yaml at --bad`,
    );
  if (given) return given;
  const gating = [...newest.suites]
    .filter(([, s]) => typeof s !== 'string' && s.gate)
    .map(([k]) => k)
    .sort();
  if (gating.length === 1) return gating[0]!;
  if (!gating.length) {
    throw new UsageError(
      `agent ${slug} has no gating suite (gate: true) at ${newest.commit.short}${all.length ? `; its suites: ${all.join(', ')}` : ''}`,
      all.length ? `name the suite to judge by: --suite ${all[0]}` : `add agents/${slug}/evals/<suite>.yaml with gate: true`,
    );
  }
  throw new UsageError(
    `agent ${slug} has ${gating.length} gating suites at ${newest.commit.short} (${gating.join(', ')})`,
    `name the one to judge by: --suite ${gating[0]}`,
  );
}

/** What the profile knows of names: tool ids by name, the voices, and a way to learn more tool ids. */
export interface Names {
  tools: Record<string, string>;
  voices: Voice[];
  learnTools(names: Set<string>): Promise<Record<string, string>>;
}

function shapeOf(slug: string, m: SuiteModel): { suite: Suite; scenarios: Scenario[] } {
  const suite: Suite = {
    id: `file:${slug}`,
    name: m.name,
    status: 'ready',
    iterationsPerScenario: m.iterations,
    scoringCriteria: m.criteria,
    runCount: 0,
    latestRunScore: null,
    noise: m.noise,
  };
  return { suite, scenarios: m.scenarios.map((x, i) => ({ id: `file:${slug}:${i}`, ...x, isEnabled: true, isAutoGenerated: false })) };
}

/** Why a commit's agent cannot be copied in this profile (a name it does not know), or undefined. */
function unknownName(a: AgentModel, names: Names): string | undefined {
  const tools = a.tools.filter((t) => !names.tools[t]);
  if (tools.length) return `no tool named ${tools.map((t) => `"${t}"`).join(', ')} is known in this profile`;
  if (a.voice && a.engine !== 'speech-to-speech' && !findVoice(names.voices, a.voice))
    return `no voice named "${a.voice.name}" speaking ${a.voice.language} in this profile`;
  return undefined;
}

const findVoice = (voices: Voice[], v: { name: string; language: string }) =>
  voices.find((x) => x.name === v.name && canonicalLanguage(x.language) === canonicalLanguage(v.language));

/** Each commit's content as a search takes it (the good commit first). */
export async function versionsOf(snaps: Snapshot[], suiteSlug: string, names: Names): Promise<VersionContent[]> {
  const wanted = new Set(snaps.flatMap((s) => (typeof s.agent === 'string' ? [] : s.agent.tools)).filter((t) => !names.tools[t]));
  if (wanted.size) Object.assign(names.tools, await names.learnTools(wanted));
  return snaps.map((s, i) => {
    const c = s.commit;
    const base = { version: i, label: c.short, changedBy: c.author, changedAt: c.date, subject: c.subject };
    const suite = s.suites.get(suiteSlug);
    if (typeof s.agent === 'string') return { ...base, instructions: '', engine: 'realtime', voice: null, tools: [], variables: [], refused: s.agent };
    const a = s.agent;
    const voice =
      a.voice && a.engine !== 'speech-to-speech' ? { voiceId: findVoice(names.voices, a.voice)?.id, name: a.voice.name, language: a.voice.language } : null;
    const v: VersionContent = {
      ...base,
      instructions: a.instructions,
      engine: a.engine,
      voice,
      tools: a.tools.map((t) => ({ id: names.tools[t], name: t })),
      variables: a.variables,
    };
    const why = unknownName(a, names);
    if (suite === undefined) return { ...v, refused: `the suite ${suiteSlug} is not in this commit` };
    if (typeof suite === 'string') return { ...v, refused: suite };
    if (!suite.model.scenarios.length) return { ...v, refused: `the suite ${suiteSlug} has no scenario in this commit` };
    return why ? { ...v, refused: why } : { ...v, suite: shapeOf(suiteSlug, suite.model) };
  });
}

export interface GitHistory {
  commits: Commit[];
  snaps: Snapshot[];
  suite: string;
  /** The agent's name at the newest commit that parses (the copies are named after it). */
  agentName: string;
}

/** The agent's history between --good and --bad, read from git: usage errors for a bad range, before anything is sent. */
export async function gitHistory(
  root: string,
  slug: string,
  o: { good: string; bad: string; suite?: string; profile: string },
  signal?: AbortSignal,
): Promise<GitHistory & { repo: Repo }> {
  const repo = await repoOf(root, signal);
  const good = { rev: o.good, sha: await resolveRev(repo, '--good', o.good, signal) };
  const bad = { rev: o.bad, sha: await resolveRev(repo, '--bad', o.bad, signal) };
  const commits = await historyOf(repo, `${repo.prefix}agents/${slug}`, good, bad, signal);
  const snaps = await snapshots(repo, slug, commits, o.profile, signal);
  const suite = chooseSuite(slug, snaps.at(-1)!, o.suite);
  const named = [...snaps].reverse().find((s) => typeof s.agent !== 'string');
  return { repo, commits, snaps, suite, agentName: named ? (named.agent as AgentModel).name : slug };
}
