import { createHash } from 'node:crypto';
import { contentHash } from './model.js';
import type { LocalFiles, LocalSuite } from './project.js';
import type { Passed, State } from './state.js';

/**
 * What passed its evals, per agent, in a profile's state: the field hashes of the agent and its gating suites (so formatting
 * and comments do not count) and the runs. Only a gate run in the same command writes one. The record is a pointer, not
 * evidence: `vap promote` checks every run it names on the source platform (promote.ts).
 */

/** The content hash of an agent's files as a promotion sees them: the agent and its gating suites. */
export function agentFilesHash(files: LocalFiles, slug: string): string | undefined {
  const agent = files.agents.get(slug);
  if (!agent) return undefined;
  const parts = [`agent ${contentHash('agent', agent.hashes)}`];
  for (const s of suitesOf(files, slug)
    .filter((x) => x.gate)
    .sort((a, b) => a.key.localeCompare(b.key))) {
    parts.push(`suite ${s.slug} ${contentHash('suite', s.hashes)}`);
  }
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16);
}

/**
 * Parses, a few at a time between I/O while the plan waits for the platform, whether each suite of the agents a promotion
 * checks (files changed since the last sync) is gating, so the check after the plan finds them parsed. Stops when
 * `shouldStop` says so (the check parses the rest); a file that no longer parses is left for the check to report.
 */
export async function readGatesAhead(files: LocalFiles, shouldStop: () => boolean = () => false): Promise<void> {
  const agents = changedAgents(files);
  const suites = [...files.suites.values()].filter((s) => !s.parsed && agents.has(s.agentSlug));
  for (let i = 0; i < suites.length; i++) {
    if (i % 2 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    if (shouldStop()) return;
    try {
      void suites[i]!.gate;
    } catch {
      // reported by the check that needs it
    }
  }
}

/** The agents whose agent.md or a suite's file is not what the last sync of the state they were read against recorded. */
export function changedAgents(files: LocalFiles): Set<string> {
  const agents = new Set<string>();
  for (const [slug, a] of files.agents) if (a.parsed) agents.add(slug);
  for (const s of files.suites.values()) if (s.parsed) agents.add(s.agentSlug);
  return agents;
}

/** The gating suites of an agent in the files. */
export function gatingSuites(files: LocalFiles, slug: string): string[] {
  return suitesOf(files, slug)
    .filter((s) => s.gate)
    .map((s) => s.key)
    .sort();
}

/** The suites of each agent, by agent slug, made once for a set of files (promote asks for a hundred agents of thousands). */
const bySlug = new WeakMap<LocalFiles['suites'], { size: number; index: Map<string, LocalSuite[]> }>();

function suitesOf(files: LocalFiles, slug: string): LocalSuite[] {
  let made = bySlug.get(files.suites);
  if (!made || made.size !== files.suites.size) {
    const index = new Map<string, LocalSuite[]>();
    for (const s of files.suites.values()) {
      const list = index.get(s.agentSlug);
      if (list) list.push(s);
      else index.set(s.agentSlug, [s]);
    }
    bySlug.set(files.suites, (made = { size: files.suites.size, index }));
  }
  return made.index.get(slug) ?? [];
}

/** Records that an agent's files passed, with the runs that passed (a gate of this command ran them). */
export function recordPassed(state: State, slug: string, p: Omit<Passed, 'at'>): void {
  state.passed[slug] = { ...p, at: new Date().toISOString() };
}

/**
 * A gated push whose gate failed: the files it pushed did not pass, whatever passed them
 * before (a preview), so their record goes; returns whether there was one. An older
 * record (other files) stays: promote calls those files edited since.
 */
export function forgetPassed(state: State, files: LocalFiles, slug: string): boolean {
  const p = state.passed[slug];
  if (!p || p.files !== agentFilesHash(files, slug)) return false;
  delete state.passed[slug];
  return true;
}
