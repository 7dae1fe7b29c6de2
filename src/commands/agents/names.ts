import { getMaxListeners, setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import { AGENTS_MAX_PAGE_SIZE, getAgentTools, listAgentsPage } from '../../api/agents.js';
import type { ApiClient } from '../../api/client.js';
import { NotFoundError } from '../../api/errors.js';
import { listVoices } from '../../api/voices.js';
import { UsageError } from '../../errors.js';
import { whereToolIdsAre } from '../../tools/seen.js';
import { nearest } from '../../ui/suggest.js';
import type { Tool, Voice } from '../../spec/agents.js';

/**
 * Voices and tools by id or by name wherever a verb asks for one, as the as-code files name them.
 * The API has no tool listing, so a tool name is looked for, within bounds (TOOL_LOOKUP), among the
 * tools of agents the key can read; a value found nowhere is sent as an id for the server to judge.
 */

/** How many of the organization's agents are read for tool names, at most (one listing page). */
export const AGENTS_READ = AGENTS_MAX_PAGE_SIZE;
/** How many agents' tools are read at once. */
export const READ_CONCURRENCY = 4;

/** For the help of the verbs that take tools: how names are found. */
export const TOOL_LOOKUP = `A tool is given by id or by name. The API has no tool listing, so a name is found
among the tools of agents this key can read: the agent's own tools first, then those
of the first ${AGENTS_READ} agents of the organization (read ${READ_CONCURRENCY} at a time, stopping once every name
is found): \`vap tools list\` shows them. A tool no agent has yet (every tool, for a first
agent) is given by its id, from the product's tool page.`;

/** For the help of the verbs that take a voice. */
export const VOICE_LOOKUP = `A voice is given by id or by name, as \`vap voices list\` shows them (Lucía, or lucia).
Where several voices share a name, --language picks one.`;

// ---------------------------------------------------------------------------------------
// Voices

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** The voices a name means: exact matches, else ignoring case, else ignoring accents too. */
export function voicesNamed(voices: readonly Voice[], name: string): Voice[] {
  const exact = voices.filter((v) => v.name === name);
  if (exact.length) return exact;
  const lower = name.toLowerCase();
  const caseless = voices.filter((v) => v.name.toLowerCase() === lower);
  if (caseless.length) return caseless;
  const folded = fold(name);
  return voices.filter((v) => fold(v.name) === folded);
}

/** Whether a voice speaks `tag`: its own tag (any case) or its bare language code. */
function speaks(v: Voice, tag: string): boolean {
  const want = tag.toLowerCase();
  const own = v.language.toLowerCase();
  return own === want || own.split('-')[0] === want;
}

/**
 * The voice `ref` means among `voices` (by id, else by name), `language` choosing among
 * voices of the same name. A usage error names what went wrong and what to pass instead.
 */
export function pickVoice(voices: readonly Voice[], ref: string, language: string | undefined, flag: string): Voice {
  const byId = voices.find((v) => v.id === ref);
  if (byId) return byId;
  const named = voicesNamed(voices, ref);
  if (named.length === 0) {
    const near = nearest(ref, [...new Set(voices.map((v) => v.name))]);
    throw new UsageError(
      `${flag} ${JSON.stringify(ref)} is neither the id nor the name of a voice`,
      `${near.length ? `did you mean ${near.join(' or ')}? ` : ''}see \`vap voices list\``,
    );
  }
  if (named.length === 1) return named[0]!;
  const list = named.map((v) => `${v.language} (${v.id})`).join(', ');
  if (language === undefined) {
    throw new UsageError(
      `${named.length} voices are named ${named[0]!.name}: ${list}`,
      `pass --language ${named.map((v) => v.language).join(' or ')}, or the voice's id`,
    );
  }
  const exact = named.filter((v) => v.language.toLowerCase() === language.toLowerCase());
  const chosen = exact.length ? exact : named.filter((v) => speaks(v, language));
  if (chosen.length === 1) return chosen[0]!;
  throw new UsageError(
    `${chosen.length === 0 ? `none of the voices named ${named[0]!.name} speaks ${language}` : `${chosen.length} voices named ${named[0]!.name} speak ${language}`}: ${list}`,
    `pass --language ${named.map((v) => v.language).join(' or ')}, or the voice's id`,
  );
}

/** Reads the voice listing and picks the voice `ref` means (see pickVoice). */
export async function resolveVoice(api: ApiClient, ref: string, language: string | undefined, flag: string, signal?: AbortSignal): Promise<Voice> {
  return pickVoice(await listVoices(api, {}, signal), ref, language, flag);
}

// ---------------------------------------------------------------------------------------
// Tools

export interface ResolvedTools {
  /** The ids, in the order given, duplicates collapsed. */
  ids: string[];
  /** Values sent as ids because no tool read was named or numbered by them. */
  unknown: string[];
}

const noIdHasSpaces = /\s/;

/** What the tools read so far say about each value: its id, or nothing yet. */
class ToolNames {
  private readonly byId = new Map<string, Tool>();
  private readonly byName = new Map<string, Tool[]>();
  private readonly byLower = new Map<string, Tool[]>();

  add(tools: readonly Tool[]): void {
    for (const t of tools) {
      if (this.byId.has(t.id)) continue;
      this.byId.set(t.id, t);
      for (const [map, key] of [
        [this.byName, t.name],
        [this.byLower, t.name.toLowerCase()],
      ] as const) {
        const list = map.get(key) ?? [];
        list.push(t);
        map.set(key, list);
      }
    }
  }

  /** The id a value means, undefined when unknown; a name shared by several tools is an error. */
  find(ref: string, flag: string): string | undefined {
    if (this.byId.has(ref)) return ref;
    const named = this.byName.get(ref) ?? this.byLower.get(ref.toLowerCase());
    if (!named) return undefined;
    if (named.length > 1) {
      throw new UsageError(
        `${named.length} tools are named ${named[0]!.name}: ${named.map((t) => t.id).join(', ')}`,
        `give the id of the one you mean in ${flag}`,
      );
    }
    return named[0]!.id;
  }

  names(): string[] {
    return [...new Set([...this.byId.values()].map((t) => t.name))].sort();
  }

  /**
   * Whether a value has the shape of the ids read so far (the same prefix up to `_`, the same
   * length, no other characters): it is taken as an id without reading further agents.
   */
  idShaped(ref: string): boolean {
    if (!/^[A-Za-z0-9_-]+$/.test(ref)) return false;
    const prefix = (id: string) => id.slice(0, id.indexOf('_') + 1);
    const p = prefix(ref);
    return p !== '' && [...this.byId.keys()].some((id) => id.length === ref.length && prefix(id) === p);
  }
}

/**
 * The ids of tools given by id or by name (see the module comment for how names are found).
 * `agentId`: the agent whose tools are read first. Nothing is changed here, only read.
 */
export async function resolveTools(
  api: ApiClient,
  refs: readonly string[],
  opts: { agentId?: string; flag: string; signal?: AbortSignal },
): Promise<ResolvedTools> {
  const names = new ToolNames();
  // Values still unknown that could be names (an id-shaped value is sent as an id).
  const pending = () => refs.filter((r) => names.find(r, opts.flag) === undefined && !names.idShaped(r));
  if (opts.agentId !== undefined) names.add(await getAgentTools(api, opts.agentId, opts.signal));
  if (pending().length > 0) {
    const page = await listAgentsPage(api, { page: 1, pageSize: AGENTS_READ }, opts.signal);
    const others = page.items.filter((a) => a.id !== opts.agentId);
    const limit = pLimit(READ_CONCURRENCY);
    const stop = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
    if (getMaxListeners(signal) < 4 * READ_CONCURRENCY) setMaxListeners(4 * READ_CONCURRENCY, signal);
    await Promise.all(
      others.map((a) =>
        limit(async () => {
          if (stop.signal.aborted) return;
          try {
            names.add(await getAgentTools(api, a.id, signal));
          } catch (err) {
            // An agent deleted meanwhile, or the read stopped because every name was found.
            if (err instanceof NotFoundError || stop.signal.aborted) return;
            throw err;
          }
          if (pending().length === 0) stop.abort();
        }),
      ),
    );
  }
  const ids: string[] = [];
  const unknown: string[] = [];
  for (const ref of refs) {
    const id = names.find(ref, opts.flag);
    if (id === undefined) {
      if (noIdHasSpaces.test(ref)) {
        const near = nearest(ref, names.names());
        throw new UsageError(
          `${opts.flag}: no tool named ${JSON.stringify(ref)} among the tools of the agents this key can read (the API has no tool listing)`,
          near.length
            ? `did you mean ${near.join(' or ')}?`
            : names.names().length
              ? `known names: ${names.names().join(', ')} (\`vap tools list\`); or give the tool's id, ${whereToolIdsAre(api.baseUrl)}`
              : `no agent this key can read has a tool yet, so no name is known: give the tool's id, ${whereToolIdsAre(api.baseUrl)}; once an agent has tools, \`vap tools list\` shows their names and ids`,
        );
      }
      unknown.push(ref);
    }
    const value = id ?? ref;
    if (!ids.includes(value)) ids.push(value);
  }
  return { ids, unknown };
}
