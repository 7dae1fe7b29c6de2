import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmdirSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { link, open, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { DIR_MODE, FILE_MODE, StateFileError, startWriteError } from './errors.js';
import { acquireLock, LOCK, LOCK_TAKEOVER, type DataDirLock } from './lock.js';

export { FILE_MODE, StateFileError, startWriteError } from './errors.js';

/**
 * The files of a data directory (`--data-dir`) and how a start reads them: a snapshot, then the
 * journals after it (the layout: src/emulator/README.md). Files are 0600 in a 0700 folder: they
 * hold webhook secrets and contacts.
 */

export const SNAPSHOT = 'state.snapshot.jsonl';
export const LEGACY = 'state.json';
export const SNAPSHOT_FORMAT = 'vap-emulator-snapshot';
export const SNAPSHOT_VERSION = 3;
export const JOURNAL_FORMAT = 'vap-emulator-journal';
export const JOURNAL_VERSION = 3;

const JOURNAL_RE = /^state\.journal\.(\d+)\.jsonl$/;
const TEMP_RE = /^state\..*\.tmp$/;
const SET_ASIDE_RE = /^state\.set-aside\./;

export function journalName(gen: number): string {
  return `state.journal.${String(gen).padStart(6, '0')}.jsonl`;
}

/** The simulated time and the id counters: written with every batch and in the snapshot's trailer. */
export interface Meta {
  simNowMs: number;
  idCounters: Record<string, number>;
}

export type JournalOp = ['s', string, string, unknown] | ['d', string, string] | ['c', string];

/** The first line of every journal. */
export interface JournalHeader {
  format: typeof JOURNAL_FORMAT;
  version: number;
  gen: number;
  /** The snapshot this generation continues (the one being written when a compaction made it), or null. */
  snapshot: string | null;
  /** The generation before this one and its final size, or null for the first. */
  prev: { gen: number; bytes: number } | null;
  createdAt: string;
}

/** Where loaded records go (the store's collections, untracked while loading). */
export interface LoadTarget {
  load(id: string, value: unknown): void;
  delete(id: string): boolean;
  clear(): void;
}

export interface DataDir {
  path: string;
  /** Restored meta, or undefined for an empty directory. */
  meta?: Meta;
  /** Some of the state came from files of an older format (the caller compacts at once). */
  legacy: boolean;
  /** The journal generation to append to (it exists, with its header), its size and its last record's number. */
  gen: number;
  journalBytes: number;
  journalRecords: number;
  snapshotBytes: number;
  lock: DataDirLock;
}

export interface OpenOptions {
  /** One line per problem found and handled (a torn last record, what --repair did). */
  warn: (line: string) => void;
  /** Keep what comes before the first damaged record or missing generation, move the rest aside and start. */
  repair?: boolean;
}

/** Creates (0700) or opens and locks the directory, and loads its state into `target`. */
export async function openDataDir(path: string, opts: OpenOptions, target: (key: string) => LoadTarget): Promise<DataDir> {
  const created = prepareDir(path);
  let lock: DataDirLock | undefined;
  try {
    lock = acquireLock(path);
    return await load(path, opts, target, lock);
  } catch (err) {
    // A start that fails leaves the folder as it found it (a full disk included): no lock, and
    // no folder of its own making.
    lock?.release();
    if (created !== undefined) removeCreated(path, created);
    throw startWriteError(path, err);
  }
}

/** Removes the folders `mkdir -p` made for `path` (from `path` up to `created`), if still empty. */
function removeCreated(path: string, created: string): void {
  for (let d = path; ; d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return;
    }
    if (d === created || dirname(d) === d) return;
  }
}

interface JournalFile {
  gen: number;
  name: string;
  file: string;
}

/** What was read of one journal: everything up to `end` is good and was loaded. */
interface Kept {
  gen: number;
  file: string;
  bytes: number;
  records: number;
  /** 3 with a header; 2 without (an older format); 0 empty (an older format). */
  version: number;
}

/** The first thing wrong, in journal order: everything before it was loaded. */
type Problem =
  | { kind: 'damaged'; j: JournalFile; offset: number; reason: string; records: number; size: number }
  | { kind: 'missing'; gen: number; reason: string };

async function load(path: string, opts: OpenOptions, target: (key: string) => LoadTarget, lock: DataDirLock): Promise<DataDir> {
  const names = readdirSync(path);
  for (const n of names) if (TEMP_RE.test(n)) unlinkSync(join(path, n)); // an interrupted compaction or journal creation
  const journals: JournalFile[] = names
    .map((n) => JOURNAL_RE.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ gen: Number(m[1]), name: m[0], file: join(path, m[0]) }))
    .sort((a, b) => a.gen - b.gen);

  let meta: Meta | undefined;
  let base = 1;
  let legacy = false;
  let snapshotBytes = 0;
  /** What the first journal's header must name: the snapshot's id, null (no snapshot), or undefined (not checked). */
  let follows: string | null | undefined = null;
  let v3Snapshot = false;
  const snapshotFile = join(path, SNAPSHOT);
  const legacyFile = join(path, LEGACY);
  if (names.includes(SNAPSHOT)) {
    const s = readSnapshot(snapshotFile, target);
    // The empty snapshot of a new folder carries no time or counters of its own.
    meta = s.init ? undefined : s.meta;
    base = s.gen;
    snapshotBytes = s.bytes;
    v3Snapshot = s.version >= 3;
    follows = s.id;
    legacy = !v3Snapshot;
    // Left over from a migration or a compaction that stopped before its clean-up.
    if (names.includes(LEGACY)) unlinkSync(legacyFile);
    for (const j of journals) if (j.gen < base) unlinkSync(j.file);
  } else if (names.includes(LEGACY)) {
    meta = readLegacy(legacyFile, target);
    legacy = true;
    follows = undefined;
  } else if (journals.length > 0 && journals[0]!.gen !== 1) {
    throw new StateFileError(snapshotFile, `is missing (the journal ${journals[0]!.file} continues from it)`);
  } else {
    // Journal 1 can only follow the empty snapshot a new folder starts with: nothing is lost
    // without it (a start stopped between the two files leaves that too).
    follows = undefined;
  }
  const hasBase = names.includes(SNAPSHOT) || names.includes(LEGACY);

  const replay = journals.filter((j) => j.gen >= base);
  const kept: Kept[] = [];
  let problem: Problem | undefined;
  let torn: { file: string; at: number; size: number } | undefined;
  let unterminated: { file: string; how: 'append' | 'replace'; size: number } | undefined;
  if (names.includes(SNAPSHOT) && (replay.length === 0 || replay[0]!.gen !== base)) {
    problem = { kind: 'missing', gen: base, reason: `${SNAPSHOT} continues into it, so the changes made after the snapshot would be lost` };
  }
  for (let i = 0; i < replay.length && !problem; i++) {
    const j = replay[i]!;
    if (j.gen !== base + i) {
      problem = { kind: 'missing', gen: base + i, reason: `${j.name} continues from it` };
      break;
    }
    const prevKept = kept[kept.length - 1];
    const sawV3 = v3Snapshot || kept.some((k) => k.version === 3);
    const next = replay[i + 1];
    const nextHeader = next && next.gen === j.gen + 1 ? peekHeader(next.file) : undefined;
    const r = replayJournal(j, {
      isLast: i === replay.length - 1,
      oldAllowed: !sawV3,
      emptyAllowed: !sawV3 && (legacy || (prevKept !== undefined && prevKept.version !== 3)),
      follows: i === 0 ? follows : undefined,
      prev: prevKept ? { gen: prevKept.gen, bytes: prevKept.bytes } : undefined,
      expectedSize: nextHeader?.prev && nextHeader.prev.gen === j.gen ? nextHeader.prev.bytes : undefined,
      nextName: next?.name,
      target,
    });
    if (r.version !== 3) legacy = true;
    if (r.meta) meta = mergeMeta(meta, r.meta);
    if (r.problem) {
      problem = { kind: 'damaged', j, offset: r.problem.offset, reason: r.problem.reason, records: r.records, size: r.size };
      break;
    }
    if (r.tornAt !== undefined) torn = { file: j.file, at: r.tornAt, size: r.size };
    if (r.unterminated) unterminated = { file: j.file, how: r.unterminated, size: r.size };
    kept.push({ gen: j.gen, file: j.file, bytes: r.tornAt ?? (r.unterminated === 'append' ? r.size + 1 : r.size), records: r.records, version: r.version });
  }

  if (problem && !opts.repair) throw refusal(path, problem, replay);
  if (problem) await repair(path, problem, replay, kept, opts.warn);
  if (torn) {
    truncateSync(torn.file, torn.at);
    fsyncFile(torn.file);
    opts.warn(
      `${torn.file}: dropped an incomplete last record (${torn.size - torn.at} bytes, cut short by a crash while it was written, so never acknowledged); everything before it is kept`,
    );
  }
  if (unterminated) {
    const { file, how, size } = unterminated;
    const fd = openSync(file, 'r+');
    try {
      writeSync(fd, '\n', how === 'append' ? size : size - 1);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    opts.warn(
      `${file}: its last record is whole and checks out, but its newline was ${how === 'append' ? 'missing' : 'damaged'}; the record is kept and the newline written`,
    );
  }

  // The journal to append to: the last one read, when it is of the current format; else a new generation.
  const last = kept[kept.length - 1];
  if (last && last.version === JOURNAL_VERSION && !legacy) {
    return { path, meta, legacy, gen: last.gen, journalBytes: last.bytes, journalRecords: last.records, snapshotBytes, lock };
  }
  const gen = last ? last.gen + 1 : base;
  if (!last && !hasBase) {
    // A new folder: journal 1, then an empty snapshot naming it, so that the loss of that
    // journal (deleted, with everything in it) is noticed like that of any other generation.
    const id = randomBytes(8).toString('hex');
    const bytes = await createJournal(path, 1, { snapshot: id, prev: null });
    try {
      snapshotBytes = await writeInitialSnapshot(path, id);
    } catch (err) {
      // The folder stays new: a later start makes both files again.
      await unlink(join(path, journalName(1))).catch(() => {});
      throw err;
    }
    return { path, meta, legacy, gen: 1, journalBytes: bytes, journalRecords: 0, snapshotBytes, lock };
  }
  const bytes = await createJournal(path, gen, { snapshot: last ? null : (follows ?? null), prev: last ? { gen: last.gen, bytes: last.bytes } : null });
  return { path, meta, legacy, gen, journalBytes: bytes, journalRecords: 0, snapshotBytes, lock };
}

/** The snapshot of a new folder: no records, naming journal 1. */
async function writeInitialSnapshot(dir: string, id: string): Promise<number> {
  const head = Buffer.from(
    `${JSON.stringify({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, id, journal: 1, init: true, savedAt: new Date().toISOString() })}\n`,
  );
  const text = Buffer.concat([head, Buffer.from(`${JSON.stringify({ end: true, records: 0, crc32: crc32(head), meta: { simNowMs: 0, idCounters: {} } })}\n`)]);
  const tmp = join(dir, `${SNAPSHOT}.${process.pid}.tmp`);
  try {
    await writeDurably(tmp, text);
    await rename(tmp, join(dir, SNAPSHOT));
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await syncDir(dir);
  return text.length;
}

/** A new file holding `data`, on disk (every byte written, a short write continued). */
async function writeDurably(file: string, data: Buffer): Promise<void> {
  const out = await open(file, 'wx', FILE_MODE);
  try {
    await out.writeFile(data);
    await out.datasync();
  } finally {
    await out.close();
  }
}

/** The one line that stops a start: the file, the byte or the generation, and the fix. */
function refusal(path: string, p: Problem, replay: JournalFile[]): StateFileError {
  const later = replay.filter((j) => j.gen > (p.kind === 'damaged' ? p.j.gen : p.gen)).length;
  const aside = later > 0 ? ` and the ${later} later journal${later === 1 ? '' : 's'}` : '';
  if (p.kind === 'missing') {
    return new StateFileError(
      join(path, journalName(p.gen)),
      `is missing (${p.reason})`,
      `restore it from a backup, or start with --repair to keep only what comes before it (the snapshot and earlier journals; any later journal is moved aside to state.set-aside.* files)`,
    );
  }
  const keep = p.offset === 0 ? 'none of its records' : `the ${p.records} record${p.records === 1 ? '' : 's'} before it`;
  return new StateFileError(
    p.j.file,
    `is damaged at byte ${p.offset} (${p.reason})`,
    `restore it from a backup, or start with --repair to keep ${keep} (the ${p.size - p.offset} bytes from there${aside} are moved aside to state.set-aside.* files, not deleted)`,
  );
}

/** --repair: keeps what comes before the problem, moves the rest aside, and says what it did in one line. */
async function repair(path: string, p: Problem, replay: JournalFile[], kept: Kept[], warn: (line: string) => void): Promise<void> {
  const stamp = new Date().toISOString().replace(/[-:.]/g, '');
  const asideName = (name: string) => `state.set-aside.${stamp}.${name.replace(/^state\./, '')}`;
  const from = p.kind === 'damaged' ? p.j.gen : p.gen;
  const moved: string[] = [];
  let what: string;
  if (p.kind === 'damaged') {
    const { j, offset, size } = p;
    const dropped = size - offset;
    if (offset === 0) {
      // Nothing of this journal is kept: the whole file goes aside (a new one is created after).
      if (size > 0) {
        renameSync(j.file, join(path, asideName(j.name)));
        moved.push(asideName(j.name));
      } else unlinkSync(j.file);
      what = `${j.file}: --repair kept none of its records (damaged at byte 0)`;
    } else {
      const buf = readFileSync(j.file).subarray(offset);
      if (buf.length > 0) {
        const name = asideName(j.name.replace(/\.jsonl$/, `.from-${offset}.jsonl`));
        const fd = openSync(join(path, name), 'wx', FILE_MODE);
        try {
          writeSync(fd, buf);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        truncateSync(j.file, offset);
        fsyncFile(j.file);
        moved.push(name);
      }
      kept.push({ gen: j.gen, file: j.file, bytes: offset, records: p.records, version: peekHeader(j.file) ? JOURNAL_VERSION : 2 });
      const n = countLines(buf);
      what = `${j.file}: --repair kept the ${p.records} record${p.records === 1 ? '' : 's'} before byte ${offset}${dropped > 0 ? ` and moved the ${dropped} bytes from there (${n} record${n === 1 ? '' : 's'})` : ''}`;
    }
  } else {
    what = `${join(path, journalName(p.gen))} is missing: --repair kept what comes before it`;
  }
  for (const j of replay) {
    if (j.gen <= from) continue;
    renameSync(j.file, join(path, asideName(j.name)));
    moved.push(asideName(j.name));
  }
  await syncDir(path);
  warn(`${what}${moved.length > 0 ? ` to ${moved.join(', ')}` : ''}; the changes after that point are not in the state`);
}

function countLines(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, i + 1)) n++;
  return n + (buf.length > 0 && buf[buf.length - 1] !== 10 ? 1 : 0);
}

/** The folder 0700 when we create it, or when it holds nothing but our files. Returns the first folder it created, if any. */
function prepareDir(path: string): string | undefined {
  let created: string | undefined;
  try {
    created = mkdirSync(path, { recursive: true, mode: DIR_MODE });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    if (code === 'ENOSPC' || code === 'EDQUOT') throw startWriteError(path, err);
    throw new StateFileError(path, `cannot be created (${code})`, 'pass a --data-dir in a folder you can write to');
  }
  const st = statSync(path);
  if (!st.isDirectory()) throw new StateFileError(path, 'is not a directory', 'pass the path of a folder (it is created when missing)');
  try {
    accessSync(path, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (err) {
    if (created !== undefined) removeCreated(path, created);
    throw new StateFileError(path, `cannot be written (${(err as NodeJS.ErrnoException).code})`, 'pass a --data-dir you can write to, or fix its permissions');
  }
  if (created !== undefined) return created;
  const ours = (n: string) =>
    n === SNAPSHOT || n === LEGACY || n === LOCK || n === LOCK_TAKEOVER || JOURNAL_RE.test(n) || TEMP_RE.test(n) || SET_ASIDE_RE.test(n);
  if ((st.mode & 0o077) !== 0 && readdirSync(path).every(ours)) {
    try {
      chmodSync(path, DIR_MODE);
    } catch {
      // Not ours to change; the files themselves are still 0600.
    }
  }
  for (const n of readdirSync(path)) {
    if (n !== SNAPSHOT && n !== LEGACY && !JOURNAL_RE.test(n) && !SET_ASIDE_RE.test(n)) continue;
    const f = join(path, n);
    if ((statSync(f).mode & 0o077) !== 0) chmodSync(f, FILE_MODE);
  }
  return undefined;
}

export function mergeMeta(a: Meta | undefined, b: Meta): Meta {
  if (!a) return { simNowMs: b.simNowMs, idCounters: { ...b.idCounters } };
  const idCounters = { ...a.idCounters };
  for (const [k, v] of Object.entries(b.idCounters)) idCounters[k] = Math.max(idCounters[k] ?? 0, v);
  return { simNowMs: Math.max(a.simNowMs, b.simNowMs), idCounters };
}

function isMeta(v: unknown): v is Meta {
  const m = v as Meta;
  return typeof m === 'object' && m !== null && typeof m.simNowMs === 'number' && typeof m.idCounters === 'object' && m.idCounters !== null;
}

/** Applies one journal or snapshot operation. */
export function applyOp(op: unknown, target: (key: string) => LoadTarget): boolean {
  if (!Array.isArray(op) || typeof op[1] !== 'string') return false;
  if (op[0] === 's' && op.length === 4 && typeof op[2] === 'string') target(op[1]).load(op[2], op[3]);
  else if (op[0] === 'd' && op.length === 3 && typeof op[2] === 'string') target(op[1]).delete(op[2]);
  else if (op[0] === 'c' && op.length === 2) target(op[1]).clear();
  else return false;
  return true;
}

function readSnapshot(
  file: string,
  target: (key: string) => LoadTarget,
): { meta: Meta; gen: number; bytes: number; version: number; id: string | undefined; init: boolean } {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (err) {
    throw new StateFileError(file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const bad = (why: string): never => {
    throw new StateFileError(file, `is damaged (${why})`);
  };
  const lines = lineOffsets(buf);
  if (lines.complete.length < 2 || lines.tail !== buf.length) bad(lines.tail !== buf.length ? 'it ends in the middle of a line' : 'it is too short');
  const header = parseLine(buf, lines.complete[0]!) as { format?: unknown; version?: unknown; journal?: unknown; id?: unknown; init?: unknown } | undefined;
  if (!header || header.format !== SNAPSHOT_FORMAT) bad('its first line is not a snapshot header');
  const version = header!.version;
  if (version !== 2 && version !== SNAPSHOT_VERSION) bad(`it is version ${String(version)}; this vap reads versions 2 and ${SNAPSHOT_VERSION}`);
  if (!Number.isInteger(header!.journal) || (header!.journal as number) < 1) bad('its header names no journal');
  if (version === SNAPSHOT_VERSION && (typeof header!.id !== 'string' || header!.id === '')) bad('its header has no id');
  const last = lines.complete[lines.complete.length - 1]!;
  const trailer = parseLine(buf, last) as { end?: unknown; records?: unknown; crc32?: unknown; meta?: unknown } | undefined;
  if (trailer?.end !== true) bad('its last line is not the end marker: it was cut short');
  if (trailer!.crc32 !== crc32(buf.subarray(0, last[0]))) bad('its checksum does not match its content');
  if (!isMeta(trailer!.meta)) bad('its end marker has no id counters');
  const n = lines.complete.length - 2;
  if (trailer!.records !== n) bad(`it holds ${n} records where its end marker says ${String(trailer!.records)}`);
  for (let i = 1; i <= n; i++) {
    const rec = parseLine(buf, lines.complete[i]!);
    if (!Array.isArray(rec) || rec.length !== 3 || typeof rec[0] !== 'string' || typeof rec[1] !== 'string') bad(`line ${i + 1} is not a record`);
    target((rec as string[])[0]!).load((rec as string[])[1]!, (rec as unknown[])[2]);
  }
  return {
    meta: trailer!.meta as Meta,
    gen: header!.journal as number,
    bytes: buf.length,
    version: version as number,
    id: version === SNAPSHOT_VERSION ? (header!.id as string) : undefined,
    init: header!.init === true && n === 0,
  };
}

function readLegacy(file: string, target: (key: string) => LoadTarget): Meta {
  let snap: { collections?: unknown; simNowMs?: unknown; idCounters?: unknown };
  try {
    snap = JSON.parse(readFileSync(file, 'utf8')) as typeof snap;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new StateFileError(file, e.code ? `cannot be read (${e.code})` : `is damaged (${e.message})`);
  }
  if (typeof snap !== 'object' || snap === null || typeof snap.collections !== 'object' || snap.collections === null) {
    throw new StateFileError(file, 'is damaged (it has no collections)');
  }
  for (const [key, entries] of Object.entries(snap.collections as Record<string, unknown>)) {
    if (!Array.isArray(entries)) throw new StateFileError(file, `is damaged (collection ${key} is not a list)`);
    const t = target(key);
    for (const e of entries as unknown[]) {
      if (!Array.isArray(e) || typeof e[0] !== 'string') throw new StateFileError(file, `is damaged (a record of ${key} has no id)`);
      t.load(e[0], e[1]);
    }
  }
  return {
    simNowMs: typeof snap.simNowMs === 'number' ? snap.simNowMs : 0,
    idCounters: typeof snap.idCounters === 'object' && snap.idCounters !== null ? (snap.idCounters as Record<string, number>) : {},
  };
}

interface ReplayOptions {
  isLast: boolean;
  /** It may be of the older format (no header), and empty. */
  oldAllowed: boolean;
  emptyAllowed: boolean;
  /** What its header must name as the snapshot it follows (undefined: not checked). */
  follows: string | null | undefined;
  /** The generation read before it (its header must name it, with its size). */
  prev?: { gen: number; bytes: number };
  /** The size the next generation's header says this one ended at. */
  expectedSize?: number;
  nextName?: string;
  target: (key: string) => LoadTarget;
}

interface ReplayResult {
  version: number;
  meta?: Meta;
  records: number;
  size: number;
  problem?: { offset: number; reason: string };
  /** The last journal ends with a record cut short: drop from here. */
  tornAt?: number;
  /** The last journal's last record is whole but its newline is missing ('append') or damaged ('replace'). */
  unterminated?: 'append' | 'replace';
}

/**
 * Replays one journal and stops at the first thing wrong. Only the last journal's end may be cut
 * short (an append a crash interrupted, never acknowledged: no final newline); a complete record
 * that fails its checksum, anywhere, is damage.
 */
function replayJournal(j: JournalFile, o: ReplayOptions): ReplayResult {
  let buf: Buffer;
  try {
    buf = readFileSync(j.file);
  } catch (err) {
    throw new StateFileError(j.file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const size = buf.length;
  let limit = size;
  let version = 2;
  let records = 0;
  let meta: Meta | undefined;
  const result = (problem?: { offset: number; reason: string }, extra: Partial<ReplayResult> = {}): ReplayResult => ({
    version,
    meta,
    records,
    size,
    problem,
    ...extra,
  });
  if (size === 0) {
    if (o.emptyAllowed) return { version: 0, records: 0, size: 0 };
    version = JOURNAL_VERSION;
    return result({ offset: 0, reason: 'it is empty, but a journal always begins with its header: its records were cut off' });
  }
  let pos = 0;
  const nl = buf.indexOf(10);
  const firstEnd = nl < 0 ? size : nl;
  const looksLikeHeader = buf.subarray(0, Math.min(firstEnd, 64)).includes(`"format":"${JOURNAL_FORMAT}"`);
  if (looksLikeHeader || !o.oldAllowed) {
    version = JOURNAL_VERSION;
    const header = nl < 0 ? undefined : parseChecked(buf, 0, nl);
    if (!isHeader(header))
      return result({
        offset: 0,
        reason: looksLikeHeader ? 'its header fails its checksum or is cut short' : 'it does not begin with a journal header (damaged or missing)',
      });
    if (header.version !== JOURNAL_VERSION)
      return result({ offset: 0, reason: `its header is version ${String(header.version)}; this vap reads version ${JOURNAL_VERSION}` });
    if (header.gen !== j.gen) return result({ offset: 0, reason: `its header says it is generation ${header.gen}` });
    if (o.follows !== undefined && header.snapshot !== o.follows) {
      return result({ offset: 0, reason: `it continues snapshot ${String(header.snapshot)}, but ${SNAPSHOT} is snapshot ${String(o.follows)}` });
    }
    if (o.prev && (header.prev?.gen !== o.prev.gen || header.prev.bytes !== o.prev.bytes)) {
      return result({
        offset: 0,
        reason: `its header says generation ${o.prev.gen} ended at byte ${String(header.prev?.bytes)}, but that file holds ${o.prev.bytes} bytes`,
      });
    }
    pos = nl + 1;
  }
  // The next generation's header says where this one ended: bytes past it were added later.
  if (o.expectedSize !== undefined && o.expectedSize < size) limit = o.expectedSize;
  let line = pos;
  for (let end = buf.indexOf(10, line); end >= 0 && end < limit; end = buf.indexOf(10, line)) {
    const batch = parseBatch(buf, line, end);
    const k = records + 1;
    if (!batch)
      return result({
        offset: line,
        reason: line === 0 ? 'its first line fails its checksum (a damaged header, or a damaged record of an older format)' : `record ${k} fails its checksum`,
      });
    if (version === JOURNAL_VERSION && batch.n !== k)
      return result({ offset: line, reason: `record ${k} is numbered ${String(batch.n)}: a record is missing or out of place` });
    for (const op of batch.o) if (!applyOp(op, o.target)) return result({ offset: line, reason: `record ${k} holds an unknown operation` });
    meta = mergeMeta(meta, { simNowMs: batch.t, idCounters: batch.ids });
    records = k;
    line = end + 1;
  }
  if (limit < size) return result({ offset: line, reason: `it runs past byte ${limit}, where ${o.nextName} says it ended` });
  if (o.expectedSize !== undefined && o.expectedSize > size) {
    return result({
      offset: line,
      reason: `it ends at byte ${size}, but ${o.nextName} says it ended at byte ${o.expectedSize}: its last records were cut off`,
    });
  }
  if (line === size) return result();
  // Bytes after the last newline.
  if (!o.isLast) return result({ offset: line, reason: `it ends in the middle of a record, and ${o.nextName} follows it` });
  // A record that checks out without its newline (missing, or its byte damaged) was written
  // whole: it is kept. Anything else is a record cut short.
  const whole = (b: Batch | undefined): b is Batch => b !== undefined && (version !== JOURNAL_VERSION || b.n === records + 1);
  let batch = parseBatch(buf, line, size);
  let unterminated: ReplayResult['unterminated'] = 'append';
  if (!whole(batch) && size - line > 10) {
    batch = parseBatch(buf, line, size - 1);
    unterminated = 'replace';
  }
  if (whole(batch)) {
    for (const op of batch.o) if (!applyOp(op, o.target)) return result({ offset: line, reason: `record ${records + 1} holds an unknown operation` });
    meta = mergeMeta(meta, { simNowMs: batch.t, idCounters: batch.ids });
    records++;
    return result(undefined, { unterminated });
  }
  return result(undefined, { tornAt: line });
}

function isHeader(v: unknown): v is JournalHeader {
  const h = v as JournalHeader;
  return (
    typeof h === 'object' &&
    h !== null &&
    h.format === JOURNAL_FORMAT &&
    Number.isInteger(h.gen) &&
    (h.snapshot === null || typeof h.snapshot === 'string') &&
    (h.prev === null || (typeof h.prev === 'object' && Number.isInteger(h.prev.gen) && Number.isInteger(h.prev.bytes)))
  );
}

/** The header of a journal, read from its first line; undefined when it has none. */
function peekHeader(file: string): JournalHeader | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf);
    const nl = buf.subarray(0, n).indexOf(10);
    if (nl < 0) return undefined;
    const h = parseChecked(buf, 0, nl);
    return isHeader(h) ? h : undefined;
  } finally {
    closeSync(fd);
  }
}

interface Batch {
  n?: number;
  t: number;
  ids: Record<string, number>;
  o: unknown[];
}

/** `<8 hex CRC-32 of the JSON> <JSON>`: the JSON, or undefined when the line does not check out. */
function parseChecked(buf: Buffer, start: number, end: number): unknown {
  if (end - start < 10 || buf[start + 8] !== 0x20) return undefined;
  const hex = buf.toString('latin1', start, start + 8);
  if (!/^[0-9a-f]{8}$/.test(hex)) return undefined;
  const body = buf.subarray(start + 9, end);
  if (Number.parseInt(hex, 16) !== crc32(body)) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function parseBatch(buf: Buffer, start: number, end: number): Batch | undefined {
  const b = parseChecked(buf, start, end) as Batch | undefined;
  if (typeof b !== 'object' || b === null || typeof b.t !== 'number' || typeof b.ids !== 'object' || b.ids === null || !Array.isArray(b.o)) return undefined;
  return b;
}

/** One line of a journal: `<crc32 hex> <json>\n`. */
export function checkedLine(json: string): Buffer {
  const body = Buffer.from(json);
  return Buffer.concat([Buffer.from(`${crc32(body).toString(16).padStart(8, '0')} `), body, NEWLINE]);
}

const NEWLINE = Buffer.from('\n');

/**
 * Creates journal `gen` with its header, durably, under a temporary name first: a journal
 * under its own name always has its header. Returns its size.
 */
export async function createJournal(dir: string, gen: number, h: { snapshot: string | null; prev: { gen: number; bytes: number } | null }): Promise<number> {
  const header: JournalHeader = {
    format: JOURNAL_FORMAT,
    version: JOURNAL_VERSION,
    gen,
    snapshot: h.snapshot,
    prev: h.prev,
    createdAt: new Date().toISOString(),
  };
  const line = checkedLine(JSON.stringify(header));
  const file = join(dir, journalName(gen));
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeDurably(tmp, line);
    // A hard link never replaces an existing file (rename would).
    await link(tmp, file);
  } finally {
    // Gone whether or not it was linked: a journal cut short by a full disk is never left.
    await unlink(tmp).catch(() => {});
  }
  try {
    await syncDir(dir);
  } catch (err) {
    // Not known to be durable: not used, and not left for a later try to trip over.
    await unlink(file).catch(() => {});
    throw err;
  }
  return line.length;
}

function parseLine(buf: Buffer, [start, end]: [number, number]): unknown {
  try {
    return JSON.parse(buf.toString('utf8', start, end));
  } catch {
    return undefined;
  }
}

/** Offsets of the complete lines ([start, end) without the newline) and where the last complete line ends. */
function lineOffsets(buf: Buffer): { complete: Array<[number, number]>; tail: number } {
  const complete: Array<[number, number]> = [];
  let start = 0;
  for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
    complete.push([start, nl]);
    start = nl + 1;
  }
  return { complete, tail: start };
}

function fsyncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes a rename or a new file durable: fsync of the folder. */
export async function syncDir(path: string): Promise<void> {
  const h = await open(path, 'r');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}
