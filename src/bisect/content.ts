import { structuredPatch } from 'diff';
import { getAgent, listVersionsPage, VERSIONS_MAX_PAGE_SIZE, type Agent, type AgentVersion } from '../api/agents.js';
import type { ApiClient } from '../api/client.js';
import type { Scenario, Suite } from '../api/evals.js';
import { CliError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { Engine, Variable } from '../spec/agents.js';

/**
 * What a copy of one version is built from, and who changed it when: from the platform's
 * version entries (`vap agents bisect`) or from a commit of an as-code project (`vap bisect`).
 */
export interface VersionContent {
  /** The version number, or the commit's position in the searched history. */
  version: number;
  /** How the result names it: `7`, or a short commit id. */
  label: string;
  instructions: string;
  engine: Engine;
  /** A voice by id (the platform's entry) or by name (a file); null: the model's own voice. */
  voice: { voiceId?: string; name?: string; language: string } | null;
  /** Tools by id when known; a name that could not be matched to an id has no id (the copy cannot be built). */
  tools: Array<{ id?: string; name: string }>;
  variables: Variable[];
  changedBy: string;
  changedAt: string;
  /** A commit's subject line (the git form). */
  subject?: string;
  /** The suite copied with this version (the git form: that commit's file); absent: the live suite. */
  suite?: { suite: Suite; scenarios: Scenario[] };
  /** Why no copy of it can be built (a name that resolves to nothing): the version is skipped. */
  refused?: string;
}

/** A version entry of the platform carries the content a copy needs only as extension fields: the spec shows none. */
export function lacksContent(v: AgentVersion): boolean {
  return typeof v.instructions !== 'string' || !Array.isArray(v.tools) || v.voice === undefined;
}

/** Every version entry of an agent, by number. */
async function allVersions(api: ApiClient, agentId: string, signal?: AbortSignal): Promise<Map<number, AgentVersion>> {
  const out = new Map<number, AgentVersion>();
  for (let page = 1; ; page++) {
    const p = await listVersionsPage(api, agentId, { page, pageSize: VERSIONS_MAX_PAGE_SIZE }, signal);
    for (const v of p.items) if (Number.isSafeInteger(v.versionNumber)) out.set(v.versionNumber, v);
    if (!p.hasMore || p.items.length === 0) return out;
  }
}

/**
 * The content of versions good..bad of a live agent (read, never written). A usage error for
 * a range the agent does not have; exit 1, saying so and pointing to the git form, when the
 * platform's entries do not carry the content.
 */
export async function platformVersions(
  api: ApiClient,
  agentId: string,
  good: number,
  bad: number,
  signal?: AbortSignal,
): Promise<{ agent: Agent; versions: VersionContent[]; notes: string[] }> {
  if (good >= bad)
    throw new UsageError(`--good ${good} is not before --bad ${bad}`, 'give the last version known good as --good and a later, bad one as --bad');
  const [agent, entries] = await Promise.all([getAgent(api, agentId, signal), allVersions(api, agentId, signal)]);
  const current = typeof agent.currentVersion === 'number' ? agent.currentVersion : Math.max(0, ...entries.keys());
  if (bad > current)
    throw new UsageError(`--bad ${bad}: agent ${agentId} has versions 1 to ${current}`, `pick a version from \`vap agents versions ${agentId}\``);
  const notes: string[] = [];
  const versions: VersionContent[] = [];
  for (let n = good; n <= bad; n++) {
    const v = entries.get(n);
    if (!v) throw new CliError(`the platform listed no entry for version ${n} of agent ${agentId}`, ExitCode.FAILURE);
    if (lacksContent(v)) {
      throw new CliError(
        `the platform's entry for version ${n} of agent ${agentId} does not give its content (instructions, voice, tools), so no copy of it can be built; in an as-code project, \`vap bisect <agent-slug> --good <rev> --bad <rev>\` searches the git history of its files instead`,
        ExitCode.FAILURE,
      );
    }
    const engine = (typeof v.engine === 'string' ? v.engine : (agent.engine ?? 'realtime')) as Engine;
    const variables = Array.isArray(v.variables) ? (v.variables as Variable[]) : (agent.variables ?? []);
    if (!Array.isArray(v.variables) && !notes.length)
      notes.push("the platform's version entries do not give their variables: each copy takes the live agent's");
    const voice = v.voice && engine !== 'speech-to-speech' ? { voiceId: v.voice.voiceId, name: v.voice.name, language: v.voice.language } : null;
    versions.push({
      version: n,
      label: String(n),
      instructions: v.instructions!,
      engine,
      voice,
      tools: (v.tools ?? []).map((t) => ({ id: t.id, name: t.name })),
      variables,
      changedBy: v.changedByName,
      changedAt: v.changedAt,
    });
  }
  return { agent, versions, notes };
}

/** What changed from one version to the next: the instructions as a diff, the voice, the tools. */
export interface ContentDiff {
  instructions: { added: number; removed: number; lines: string[] };
  voice?: { from: string; to: string };
  tools?: { added: string[]; removed: string[] };
}

const voiceWords = (v: VersionContent['voice']) => (v ? `${v.name ?? v.voiceId ?? '?'} (${v.language})` : "the model's own voice");

export function contentDiff(from: VersionContent, to: VersionContent): ContentDiff {
  const patch = structuredPatch('good', 'bad', `${from.instructions}\n`, `${to.instructions}\n`, '', '', { context: 1 });
  const lines: string[] = [];
  let added = 0;
  let removed = 0;
  for (const h of patch.hunks) {
    lines.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    for (const l of h.lines) {
      if (l.startsWith('\\')) continue;
      if (l[0] === '+') added++;
      if (l[0] === '-') removed++;
      lines.push(l);
    }
  }
  const out: ContentDiff = { instructions: { added, removed, lines } };
  if (voiceWords(from.voice) !== voiceWords(to.voice)) out.voice = { from: voiceWords(from.voice), to: voiceWords(to.voice) };
  const a = from.tools.map((t) => t.name);
  const b = to.tools.map((t) => t.name);
  const plus = b.filter((x) => !a.includes(x));
  const minus = a.filter((x) => !b.includes(x));
  if (plus.length || minus.length) out.tools = { added: plus, removed: minus };
  return out;
}

/** `instructions −2 lines +1 line; voice Ava (en-US) → Lucía (es-ES); tools +CRM lookup` */
export function diffSummary(d: ContentDiff): string {
  const lines = (n: number) => `${n} line${n === 1 ? '' : 's'}`;
  const parts: string[] = [];
  if (d.instructions.added || d.instructions.removed) parts.push(`instructions −${lines(d.instructions.removed)} +${lines(d.instructions.added)}`);
  if (d.voice) parts.push(`voice ${d.voice.from} → ${d.voice.to}`);
  if (d.tools) parts.push(`tools ${[...d.tools.added.map((t) => `+${t}`), ...d.tools.removed.map((t) => `−${t}`)].join(' ')}`);
  return parts.join('; ') || 'no change to instructions, voice or tools';
}
