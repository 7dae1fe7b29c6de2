import { Journal, type JournalFault, type JournalOp } from './persist/journal.js';
import { openDataDir, startWriteError, type Meta } from './persist/files.js';
import type { DataDirLock } from './persist/lock.js';
import { OrderedIndex, type FacetFn } from './ordered-index.js';

/**
 * In-memory collections per organization. With a data directory every change is journaled and a
 * response waits until the changes before it are on disk (group commit); a batch encodes records
 * as they are then, so several changes to one cost one write (src/emulator/README.md).
 */

/**
 * A collection of records by id, in insertion order. `touch(id)` after changing a record
 * in place: the change is journaled, and the collection's ordered index (when a listing
 * asked for one) moves the record between its facet values.
 */
export class Collection<T> extends Map<string, T> {
  /** @internal */
  tracker: Store | null = null;
  private index: OrderedIndex<T> | undefined;

  constructor(readonly key: string) {
    super();
  }

  override set(id: string, value: T): this {
    const idx = this.index;
    if (idx) {
      const old = super.get(id);
      if (old === undefined) idx.append(value);
      else if (old === value) idx.update(value);
      else idx.removed();
    }
    super.set(id, value);
    this.tracker?.noteChange(this as Collection<unknown>, id);
    return this;
  }

  override delete(id: string): boolean {
    const had = super.delete(id);
    if (had) {
      this.index?.removed();
      this.tracker?.noteChange(this as Collection<unknown>, id);
    }
    return had;
  }

  override clear(): void {
    if (this.size === 0) return;
    super.clear();
    this.index?.removed();
    this.tracker?.noteClear(this as Collection<unknown>);
  }

  /** Marks a record changed in place (no-op for an id that is not in the collection). */
  touch(id: string): void {
    const v = super.get(id);
    if (v === undefined) return;
    this.index?.update(v);
    this.tracker?.noteChange(this as Collection<unknown>, id);
  }

  /**
   * The records in insertion order, with positions per facet value, kept up to date as the
   * collection changes (built on first use; `facets` are fixed by the first caller).
   */
  ordered(facets: Readonly<Record<string, FacetFn<T>>> = {}): OrderedIndex<T> {
    this.index ??= new OrderedIndex<T>(() => Map.prototype.values.call(this) as IterableIterator<T>, facets);
    return this.index;
  }

  /** Sets without journaling (loading). @internal */
  load(id: string, value: T): void {
    super.set(id, value);
    this.index?.removed();
  }
}

interface Dirty {
  cleared: boolean;
  ids: Set<string>;
}

export interface StoreOptions {
  dataDir?: string;
  /** One line per problem found and handled at start (a torn last journal record, what --repair did). */
  warn?: (line: string) => void;
  /** Start on a damaged data directory: keep what comes before the first damaged record or missing journal, move the rest aside. */
  repair?: boolean;
  /** Compaction starts when the journal holds at least this many bytes (default 64 MiB) … */
  compactMinBytes?: number;
  /** … and at least this share of the last snapshot's size (default 1: 100%). */
  compactRatio?: number;
  /** Background changes (no request waiting) are committed within this many ms (default 100). */
  backgroundCommitMs?: number;
}

const RESOLVED = Promise.resolve();

export class Store {
  private readonly collections = new Map<string, Collection<unknown>>();
  private readonly dirty = new Map<Collection<unknown>, Dirty>();
  private metaChanged = false;
  private meta: () => Meta = () => ({ simNowMs: Date.now(), idCounters: {} });
  private backgroundTimer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private readonly backgroundMs: number;
  private journal?: Journal;
  private restoredMeta?: Meta;
  private dir?: string;
  private lock?: DataDirLock;
  private readonly failureListeners: Array<(err: Error) => void> = [];

  private constructor(opts: StoreOptions) {
    this.backgroundMs = opts.backgroundCommitMs ?? 100;
  }

  /** An in-memory store, or one loaded from (and journaled to) `dataDir`. */
  static async open(opts: StoreOptions = {}): Promise<Store> {
    const store = new Store(opts);
    if (!opts.dataDir) return store;
    const warn = opts.warn ?? (() => {});
    // Loading fills the collections directly (nothing is tracked until the journal is attached).
    const dir = await openDataDir(opts.dataDir, { warn, repair: opts.repair }, (key) => store.collectionByKey(key));
    store.dir = dir.path;
    store.lock = dir.lock;
    store.restoredMeta = dir.meta;
    try {
      store.journal = new Journal(dir, {
        compactMinBytes: opts.compactMinBytes ?? 64 * 1024 * 1024,
        compactRatio: opts.compactRatio ?? 1,
        warn,
        records: () => store.records(),
        prepare: () => store.commit(),
        meta: () => store.meta(),
        failed: (err) => store.stopTracking(err),
      });
    } catch (err) {
      dir.lock.release();
      throw startWriteError(dir.path, err);
    }
    for (const c of store.collections.values()) c.tracker = store;
    // A state read from files of an older format is rewritten as a snapshot at once (if that
    // fails, the old files stay and the next start tries again).
    if (dir.legacy) await store.journal.compact();
    return store;
  }

  /** Restored from disk: counters for the id generator and the simulated time. */
  get restored(): Meta | undefined {
    return this.restoredMeta;
  }

  get dataDir(): string | undefined {
    return this.dir;
  }

  get persistent(): boolean {
    return this.journal !== undefined;
  }

  /**
   * Why the data directory stopped taking writes, once it did (a full or failing disk): the
   * memory then holds changes that were refused, so nothing of it may be shown again.
   */
  get failed(): Error | undefined {
    return this.journal?.failed;
  }

  /** Runs fn at once when the data directory fails (before any refused request is answered). */
  onFailure(fn: (err: Error) => void): void {
    this.failureListeners.push(fn);
  }

  /** The next journal write fails with this (a test's full or failing disk). */
  armJournalFault(fault: JournalFault | undefined): void {
    if (this.journal) this.journal.fault = fault;
  }

  get journalFault(): JournalFault | undefined {
    return this.journal?.fault;
  }

  /** The journal failed: changes are no longer tracked (none will be written) and the listeners are told. */
  private stopTracking(err: Error): void {
    for (const c of this.collections.values()) c.tracker = null;
    this.dirty.clear();
    this.metaChanged = false;
    if (this.backgroundTimer) clearTimeout(this.backgroundTimer);
    if (this.immediate) clearImmediate(this.immediate);
    this.backgroundTimer = undefined;
    this.immediate = undefined;
    for (const fn of this.failureListeners) {
      try {
        fn(err);
      } catch {
        // A listener's own failure must not keep the others from being told.
      }
    }
  }

  /** Where the id counters and the simulated time come from (written with every batch). */
  setMeta(meta: () => Meta): void {
    this.meta = meta;
  }

  /** The collection `name` of organization `orgId`, created empty on first use. */
  collection<T>(orgId: string, name: string): Collection<T> {
    return this.collectionByKey(`${orgId}/${name}`) as Collection<T>;
  }

  /** The collection if it exists (reads that must not create one per parent). */
  existing<T>(orgId: string, name: string): Collection<T> | undefined {
    return this.collections.get(`${orgId}/${name}`) as Collection<T> | undefined;
  }

  private collectionByKey(key: string): Collection<unknown> {
    let c = this.collections.get(key);
    if (!c) {
      c = new Collection(key);
      if (this.journal && !this.journal.failed) c.tracker = this;
      this.collections.set(key, c);
    }
    return c;
  }

  /** Every organization's collection of that name (for background simulators). */
  *allCollections<T>(name: string): Generator<[orgId: string, Collection<T>]> {
    for (const [key, c] of this.collections) {
      const slash = key.lastIndexOf('/');
      if (key.slice(slash + 1) === name) yield [key.slice(0, slash), c as Collection<T>];
    }
  }

  /** Every organization's collection whose name starts with `prefix` (per-parent collections such as `contacts:<listId>`). */
  *collectionsStartingWith<T>(orgId: string, prefix: string): Generator<[name: string, Collection<T>]> {
    const head = `${orgId}/${prefix}`;
    for (const [key, c] of this.collections) if (key.startsWith(head)) yield [key.slice(orgId.length + 1), c as Collection<T>];
  }

  /** Something outside the collections changed (the simulated clock): the next batch carries it. */
  noteMeta(): void {
    if (!this.journal || this.journal.failed) return;
    this.metaChanged = true;
    this.scheduleBackground();
  }

  /** @internal */
  noteChange(c: Collection<unknown>, id: string): void {
    let d = this.dirty.get(c);
    if (!d) {
      d = { cleared: false, ids: new Set() };
      this.dirty.set(c, d);
    }
    d.ids.add(id);
    this.scheduleBackground();
  }

  /** @internal */
  noteClear(c: Collection<unknown>): void {
    let d = this.dirty.get(c);
    if (!d) {
      d = { cleared: true, ids: new Set() };
      this.dirty.set(c, d);
    }
    d.cleared = true;
    d.ids.clear();
    this.scheduleBackground();
  }

  /** True while some change is not yet on disk (always false without a data directory). */
  get hasUnsynced(): boolean {
    return this.journal !== undefined && (this.dirty.size > 0 || this.metaChanged || !this.journal.idle);
  }

  /**
   * Journals every change made so far and resolves once it is on disk (at once without a
   * data directory). Rejects when the data directory cannot be written, and from then on.
   */
  commit(): Promise<void> {
    const j = this.journal;
    if (!j) return RESOLVED;
    if (j.failed) return Promise.reject(j.failed);
    try {
      if (this.dirty.size > 0 || this.metaChanged) j.append(this.encode());
    } catch (err) {
      // A change that cannot be encoded is refused like one the disk refused: it stays in memory.
      j.fail(err as Error);
      return Promise.reject(j.failed!);
    }
    return j.durable();
  }

  /**
   * Runs `fn` once every change so far is on disk (at once if nothing waits); never once the data
   * directory failed. Streams send an event only once durable, so a client never sees an event id
   * a crash could hand out again, nor an event of a refused change.
   */
  afterDurable(fn: () => void): void {
    const j = this.journal;
    if (!j) return fn();
    if (j.failed) return;
    if (!this.hasUnsynced) return fn();
    if (this.dirty.size > 0 || this.metaChanged) {
      this.immediate ??= setImmediate(() => {
        this.immediate = undefined;
        this.commit().catch(() => {});
      });
      j.afterNext(fn);
    } else j.afterCurrent(fn);
  }

  private scheduleBackground(): void {
    if (this.backgroundTimer || this.journal?.failed) return;
    this.backgroundTimer = setTimeout(() => {
      this.backgroundTimer = undefined;
      this.commit().catch(() => {});
    }, this.backgroundMs);
    this.backgroundTimer.unref();
  }

  private encode(): JournalOp[] {
    const ops: JournalOp[] = [];
    for (const [c, d] of this.dirty) {
      if (d.cleared) ops.push(['c', c.key]);
      for (const id of d.ids) {
        const v = Map.prototype.get.call(c, id) as unknown;
        ops.push(v === undefined ? ['d', c.key, id] : ['s', c.key, id, v]);
      }
    }
    this.dirty.clear();
    this.metaChanged = false;
    return ops;
  }

  /** Every record, collection by collection (compaction reads it while the state keeps changing; tests compare it with what a restart reads). */
  *records(): Generator<[key: string, id: string, value: unknown]> {
    for (const [key, c] of this.collections) for (const [id, v] of c) yield [key, id, v];
  }

  /**
   * Commits what is left, closes the journal and unlocks the data directory. A failed data
   * directory was said on stderr when it failed: closing then writes nothing and does not throw.
   */
  async close(): Promise<void> {
    if (this.backgroundTimer) clearTimeout(this.backgroundTimer);
    if (this.immediate) clearImmediate(this.immediate);
    this.backgroundTimer = undefined;
    this.immediate = undefined;
    if (!this.journal) return;
    try {
      if (!this.journal.failed) {
        await this.commit().catch((err: Error) => {
          if (err !== this.journal!.failed) throw err;
        });
      }
    } finally {
      try {
        await this.journal.close();
      } finally {
        this.lock?.release();
      }
    }
  }
}
