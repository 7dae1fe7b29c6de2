import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

interface Snapshot {
  version: 1;
  savedAt: string;
  simNowMs: number;
  idCounters: Record<string, number>;
  collections: Record<string, Array<[string, unknown]>>;
}

/**
 * In-memory state: named collections per organization (`Map<id, record>`). With a
 * data directory, the whole state is written atomically (temporary file, then
 * rename) before any response to a request that changed it is sent, and on close;
 * so a restart keeps everything that was acknowledged.
 */
export class Store {
  private readonly collections = new Map<string, Map<string, unknown>>();
  private dirty = false;
  readonly file?: string;
  /** Restored from disk: counters for the id generator and the simulated time. */
  readonly restored?: { idCounters: Record<string, number>; simNowMs: number };

  constructor(dataDir?: string) {
    if (!dataDir) return;
    mkdirSync(dataDir, { recursive: true });
    this.file = join(dataDir, 'state.json');
    if (existsSync(this.file)) {
      const snap = JSON.parse(readFileSync(this.file, 'utf8')) as Snapshot;
      for (const [key, entries] of Object.entries(snap.collections)) this.collections.set(key, new Map(entries));
      this.restored = { idCounters: snap.idCounters, simNowMs: snap.simNowMs };
    }
  }

  /** The collection `name` of organization `orgId`, created empty on first use. */
  collection<T>(orgId: string, name: string): Map<string, T> {
    const key = `${orgId}/${name}`;
    let c = this.collections.get(key);
    if (!c) {
      c = new Map();
      this.collections.set(key, c);
    }
    return c as Map<string, T>;
  }

  /** Every organization's collection of that name (for background simulators). */
  *allCollections<T>(name: string): Generator<[orgId: string, Map<string, T>]> {
    for (const [key, c] of this.collections) {
      const slash = key.lastIndexOf('/');
      if (key.slice(slash + 1) === name) yield [key.slice(0, slash), c as Map<string, T>];
    }
  }

  /** Call after any change; the change is written before the next response goes out. */
  markDirty(): void {
    this.dirty = true;
  }

  get isDirty(): boolean {
    return this.dirty;
  }

  clear(): void {
    this.collections.clear();
    this.dirty = true;
  }

  /** Writes the state if it changed (no-op without a data directory). */
  flush(extra: { idCounters: Record<string, number>; simNowMs: number }): void {
    if (!this.file || !this.dirty) return;
    const snap: Snapshot = {
      version: 1,
      savedAt: new Date().toISOString(),
      simNowMs: extra.simNowMs,
      idCounters: extra.idCounters,
      collections: Object.fromEntries([...this.collections].map(([k, m]) => [k, [...m]])),
    };
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(snap));
    renameSync(tmp, this.file);
    this.dirty = false;
  }
}
