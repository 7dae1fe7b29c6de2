import { chmod, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { stateDir, stateTarget } from '../contacts/state.js';
import { isUuid } from '../ui/values.js';
import { writeFileAtomic } from '../write-atomic.js';

/**
 * The ids vap recently showed shortened on a terminal, for the kinds the API cannot search by id
 * (calls, campaigns). Only a hint: an id found here is read from the API before use. One file per
 * profile (`recent-ids/<profile>.json`), started afresh for another server or key.
 */

export type RecordedKind = 'call' | 'campaign';
const KINDS: readonly RecordedKind[] = ['call', 'campaign'];

/** How many ids of each kind are kept. */
export const RECENT_PER_KIND = 500;

interface RecentFile {
  version: 1;
  baseUrl: string;
  org: string;
  ids: Partial<Record<RecordedKind, string[]>>;
}

/** What the record is keyed by: the profile (the file), and the server and key it speaks to (its content). */
export interface RecordOwner {
  profile: string;
  baseUrl: string;
  apiKey?: string;
}

/** The file of a profile's record. */
export function recentIdsPath(env: Record<string, string | undefined>, profile: string): string {
  return join(dirname(stateDir(env)), 'recent-ids', `${profile.replace(/[^\w.-]/g, '_').slice(0, 64) || 'default'}.json`);
}

export class RecentIds {
  private constructor(
    private readonly path: string,
    private readonly target: { baseUrl: string; org: string },
    private ids: Record<RecordedKind, string[]>,
  ) {}

  /** The record of a profile (empty when there is none, it cannot be read, or it is for another server or key). */
  static async open(env: Record<string, string | undefined>, owner: RecordOwner): Promise<RecentIds> {
    const path = recentIdsPath(env, owner.profile);
    const target = stateTarget({ baseUrl: owner.baseUrl, apiKey: owner.apiKey ?? '' });
    return new RecentIds(path, target, await readIds(path, target));
  }

  /** The recorded ids of a kind that start with `prefix` (ignoring case), most recently shown first. */
  startingWith(kind: RecordedKind, prefix: string): string[] {
    const p = prefix.toLowerCase();
    return this.ids[kind].filter((id) => id.toLowerCase().startsWith(p));
  }

  /**
   * Records ids just shown (first the first shown), ahead of those recorded before. The file is
   * read again first (another vap may have written it meanwhile). A record that cannot be
   * written is left as it was: it is a hint, and the listing that showed the ids has succeeded.
   */
  async remember(kind: RecordedKind, shown: Iterable<string>): Promise<void> {
    const fresh = [...new Set([...shown].filter(isUuid))];
    if (fresh.length === 0) return;
    try {
      this.ids = await readIds(this.path, this.target);
      const seen = new Set(fresh);
      this.ids[kind] = [...fresh, ...this.ids[kind].filter((id) => !seen.has(id))].slice(0, RECENT_PER_KIND);
      await this.write();
    } catch {
      // Not recorded: the next prefix falls back on the API's listing alone.
    }
  }

  /** Drops an id the API no longer knows. */
  async forget(kind: RecordedKind, id: string): Promise<void> {
    try {
      this.ids = await readIds(this.path, this.target);
      const before = this.ids[kind].length;
      this.ids[kind] = this.ids[kind].filter((x) => x !== id);
      if (this.ids[kind].length !== before) await this.write();
    } catch {
      // Left as it was; the id is read from the API again next time, and dropped again.
    }
  }

  private async write(): Promise<void> {
    const data: RecentFile = { version: 1, ...this.target, ids: this.ids };
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.path, `${JSON.stringify(data)}\n`);
    await chmod(this.path, 0o600);
  }
}

/** The ids of the file, for this server and organization only; anything not shaped as the record writes it is left out. */
async function readIds(path: string, target: { baseUrl: string; org: string }): Promise<Record<RecordedKind, string[]>> {
  const empty = { call: [], campaign: [] };
  let data: Partial<RecentFile> | null;
  try {
    data = JSON.parse(await readFile(path, 'utf8')) as Partial<RecentFile> | null;
  } catch {
    return empty;
  }
  if (
    !data ||
    typeof data !== 'object' ||
    data.version !== 1 ||
    data.baseUrl !== target.baseUrl ||
    data.org !== target.org ||
    typeof data.ids !== 'object' ||
    !data.ids
  )
    return empty;
  const ids = data.ids;
  const out: Record<RecordedKind, string[]> = { call: [], campaign: [] };
  for (const kind of KINDS) {
    const list = ids[kind];
    if (Array.isArray(list)) out[kind] = list.filter((id): id is string => typeof id === 'string' && isUuid(id)).slice(0, RECENT_PER_KIND);
  }
  return out;
}
