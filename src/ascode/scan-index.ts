import type { Stats } from 'node:fs';
import { MAX_STATE_BYTES, type ProjectFs } from './paths.js';
import type { TextForm } from './text-form.js';

/**
 * What the last scan of a project saw, kept so that the next one need not read again the
 * files that have not changed since: git's index is the model. For each agent.md and suite
 * file read, the file's identity and times (device, inode, size, modification and change
 * time) with the digest of its text; for each clean evals/ folder, the same of the folder
 * with the suite files it listed. A file whose lstat still gives the same key is the same
 * text (writing a file, renaming or replacing it changes its change time, which no program
 * can set back), so the scan takes the digest from here and the text is read only when it
 * is needed (src/ascode/scan.ts); a folder with the same key lists the same names.
 *
 * A file or folder changed in the last RACY_MS before a scan is not recorded: file systems
 * keep times in steps (a jiffy on Linux, a second or two on some), and an edit within the
 * same step would keep the key. Such a file is read again by the next scan, and recorded
 * once it has been still for that long.
 *
 * It lives in `.vap/cache/scan-index.json`, beside a `.gitignore` that keeps the folder out
 * of git (the keys are of this machine's files: another clone never matches them). It is
 * a cache: a missing, unreadable, damaged or foreign index is no index, and one that cannot
 * be written is not written; nothing ever fails because of it. Webhook files are not
 * indexed (their digest depends on the profile's vars, and there are few).
 */

export const INDEX_FILE = '.vap/cache/scan-index.json';
const IGNORE_FILE = '.vap/cache/.gitignore';
const IGNORE_TEXT = "# vap's cache of what it last read of this project's files, on this machine: never committed\n*\n";

/** The index's own format; `digests` is the file format whose digests it holds (scan.ts's FORMAT_VERSION). */
const INDEX_FORMAT = 2;

/** How long a file must have been still before its key is recorded. */
export const RACY_MS = 3_000;

const HASH = /^[0-9a-f]{16}$/;

/** A file's or folder's identity and times: device, inode, size, modification and change time (ms). */
export type StatKey = [dev: number, ino: number, size: number, mtimeMs: number, ctimeMs: number];

export interface IndexedFileEntry {
  key: StatKey;
  digest: string;
  form: TextForm;
}

export interface IndexedDirEntry {
  key: StatKey;
  /** The suite file names the folder held (`<slug>.yaml`), nothing else. */
  names: string[];
}

/** Whether an lstat gives the key indexed (numbers compared as they are: no text made of them). */
export function sameKey(st: Stats, key: StatKey): boolean {
  return st.ctimeMs === key[4] && st.mtimeMs === key[3] && st.ino === key[1] && st.size === key[2] && st.dev === key[0];
}

const keyOf = (st: Stats): StatKey => [st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs];

function isKey(v: unknown[]): boolean {
  for (let i = 0; i < 5; i++) if (typeof v[i] !== 'number' || !Number.isFinite(v[i])) return false;
  return true;
}

const keysEqual = (a: StatKey, b: StatKey) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3] && a[4] === b[4];

/** In the file: the key's five numbers, then the digest and the form's bits (a file), or the names (a folder). */
type RawFile = [...StatKey, digest: string, form: number];
type RawDir = [...StatKey, names: string[]];

const formOf = (bits: number): TextForm => ({ bom: (bits & 1) !== 0, crlf: (bits & 2) !== 0 });
const bitsOf = (form: TextForm): number => (form.bom ? 1 : 0) | (form.crlf ? 2 : 0);

export class ScanIndex {
  private readonly nextFiles = new Map<string, RawFile>();
  private readonly nextDirs = new Map<string, RawDir>();
  private changed: boolean;
  /** Files and folders whose times are at or after this (ms since the epoch) are not recorded. */
  private readonly racyFrom: number;

  private constructor(
    private readonly files: Map<string, unknown>,
    private readonly dirs: Map<string, unknown>,
    private readonly digests: number,
    now: number,
    loaded: boolean,
  ) {
    this.racyFrom = now - RACY_MS;
    this.changed = !loaded;
  }


  /** An index that knows nothing (and is written when the scan recorded something). */
  static empty(digests: number, now = Date.now()): ScanIndex {
    return new ScanIndex(new Map(), new Map(), digests, now, false);
  }

  /** The project's index for file format `digests`; an empty one when there is none or it cannot be used. */
  static load(fs: ProjectFs, digests: number, now = Date.now()): ScanIndex {
    try {
      const text = fs.readTextSync(INDEX_FILE, MAX_STATE_BYTES);
      if (text === undefined) return ScanIndex.empty(digests, now);
      const raw: unknown = JSON.parse(text);
      if (!isRecord(raw) || raw.format !== INDEX_FORMAT || raw.digests !== digests || !isRecord(raw.files) || !isRecord(raw.dirs)) return ScanIndex.empty(digests, now);
      // Maps: a lookup by a path built for it needs no interning of the path (as an object's property would).
      return new ScanIndex(new Map(Object.entries(raw.files)), new Map(Object.entries(raw.dirs)), digests, now, true);
    } catch {
      return ScanIndex.empty(digests, now);
    }
  }

  /** What the last scan recorded of a file (checked here: the index is read from disk). */
  file(rel: string): IndexedFileEntry | undefined {
    const e = this.files.get(rel);
    if (!Array.isArray(e) || e.length !== 7 || !isKey(e)) return undefined;
    const digest: unknown = e[5];
    const form: unknown = e[6];
    if (typeof digest !== 'string' || !HASH.test(digest) || typeof form !== 'number' || !Number.isInteger(form) || form < 0 || form > 3) return undefined;
    return { key: e.slice(0, 5) as StatKey, digest, form: formOf(form) };
  }

  /** What the last scan recorded of a folder's listing; the names are checked by the caller as a listing's are. */
  dir(rel: string): IndexedDirEntry | undefined {
    const e = this.dirs.get(rel);
    if (!Array.isArray(e) || e.length !== 6 || !isKey(e)) return undefined;
    const names: unknown = e[5];
    if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) return undefined;
    return { key: e.slice(0, 5) as StatKey, names: names as string[] };
  }

  /** A file found unchanged: kept in the next index as it was. */
  keepFile(rel: string, e: IndexedFileEntry): void {
    this.nextFiles.set(rel, [...e.key, e.digest, bitsOf(e.form)]);
  }

  /** A file just read: recorded unless it changed too recently to be told apart from a later edit. */
  recordFile(rel: string, st: Stats, digest: string, form: TextForm): void {
    if (this.racy(st)) {
      this.changed = true;
      return;
    }
    const key = keyOf(st);
    const old = this.file(rel);
    if (!old || !keysEqual(old.key, key) || old.digest !== digest || bitsOf(old.form) !== bitsOf(form)) this.changed = true;
    this.nextFiles.set(rel, [...key, digest, bitsOf(form)]);
  }

  keepDir(rel: string, e: IndexedDirEntry): void {
    this.nextDirs.set(rel, [...e.key, e.names]);
  }

  /** A folder just listed (its suite files only, and no problem among its entries). */
  recordDir(rel: string, st: Stats, names: string[]): void {
    if (this.racy(st)) {
      this.changed = true;
      return;
    }
    const key = keyOf(st);
    const old = this.dir(rel);
    if (!old || !keysEqual(old.key, key) || old.names.join('/') !== names.join('/')) this.changed = true;
    this.nextDirs.set(rel, [...key, names]);
  }

  /**
   * Writes what this scan saw (only what it saw: entries of files gone are dropped) when it
   * differs from what was read, and only in a project that has a .vap/ folder already (a
   * command that reads never makes one). Never throws.
   */
  save(fs: ProjectFs): void {
    try {
      const recorded = this.nextFiles.size + this.nextDirs.size;
      const had = this.files.size + this.dirs.size;
      // Nothing to write: the same entries as read (or none, and none before).
      if (recorded === 0 ? had === 0 : !this.changed && recorded === had) return;
      if (!fs.checkNoLinks('.vap')?.isDirectory()) return;
      if (fs.checkNoLinks(IGNORE_FILE) === undefined) fs.writeTextSync(IGNORE_FILE, IGNORE_TEXT);
      fs.writeTextSync(INDEX_FILE, JSON.stringify({ format: INDEX_FORMAT, digests: this.digests, files: Object.fromEntries(this.nextFiles), dirs: Object.fromEntries(this.nextDirs) }));
    } catch {
      // a cache that cannot be written is not written
    }
  }

  private racy(st: Stats): boolean {
    return !(st.mtimeMs < this.racyFrom && st.ctimeMs < this.racyFrom);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
