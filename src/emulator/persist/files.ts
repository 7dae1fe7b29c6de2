import { accessSync, chmodSync, closeSync, constants, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, truncateSync, unlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

/**
 * The files of a data directory (`--data-dir`) and how they are read at start:
 *
 *   state.snapshot.jsonl         the state at the last compaction: a header line, one line per
 *                                record `[collection, id, value]`, and a trailer with the record
 *                                count, a CRC-32 of everything before it and the id counters
 *   state.journal.<gen>.jsonl    the changes since: one line per committed batch,
 *                                `<crc32 hex> {"t":simNowMs,"ids":{...},"o":[ops]}`
 *   state.json                   the old single-file format (read once, then rewritten as a snapshot)
 *
 * A start reads the snapshot (or the old file), then replays every journal from the
 * snapshot's generation on. Files are created 0600 in a 0700 folder: they hold webhook
 * secrets and contacts.
 */

export const SNAPSHOT = 'state.snapshot.jsonl';
export const LEGACY = 'state.json';
export const SNAPSHOT_FORMAT = 'vap-emulator-snapshot';
export const SNAPSHOT_VERSION = 2;
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

const JOURNAL_RE = /^state\.journal\.(\d+)\.jsonl$/;
const TEMP_RE = /^state\..*\.tmp$/;

export function journalName(gen: number): string {
  return `state.journal.${String(gen).padStart(6, '0')}.jsonl`;
}

/** The simulated time and the id counters: written with every batch and in the snapshot's trailer. */
export interface Meta {
  simNowMs: number;
  idCounters: Record<string, number>;
}

export type JournalOp = ['s', string, string, unknown] | ['d', string, string] | ['c', string];

/** A state file that cannot be read: the emulator does not start (the message names the file and what to do). */
export class StateFileError extends Error {
  constructor(
    readonly file: string,
    reason: string,
    fix = 'the emulator will not start on a partial state: restore the file from a backup, or start with another --data-dir',
  ) {
    super(`${file} ${reason}; ${fix}`);
    this.name = 'StateFileError';
  }
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
  /** The state came from the old state.json (the caller compacts at once). */
  legacy: boolean;
  /** The journal generation to append to, and its size. */
  gen: number;
  journalBytes: number;
  snapshotBytes: number;
}

/** Creates (0700) or opens the directory and loads its state into `target`. */
export async function openDataDir(path: string, warn: (line: string) => void, target: (key: string) => LoadTarget): Promise<DataDir> {
  prepareDir(path);
  const names = readdirSync(path);
  for (const n of names) if (TEMP_RE.test(n)) unlinkSync(join(path, n)); // an interrupted compaction
  const journals = names
    .map((n) => JOURNAL_RE.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ gen: Number(m[1]), file: join(path, m[0]) }))
    .sort((a, b) => a.gen - b.gen);

  let meta: Meta | undefined;
  let base = 1;
  let legacy = false;
  let snapshotBytes = 0;
  const snapshotFile = join(path, SNAPSHOT);
  const legacyFile = join(path, LEGACY);
  if (names.includes(SNAPSHOT)) {
    const s = readSnapshot(snapshotFile, target);
    meta = s.meta;
    base = s.gen;
    snapshotBytes = s.bytes;
    // Left over from a migration or a compaction that stopped before its clean-up.
    if (names.includes(LEGACY)) unlinkSync(legacyFile);
    for (const j of journals) if (j.gen < base) unlinkSync(j.file);
  } else if (names.includes(LEGACY)) {
    meta = readLegacy(legacyFile, target);
    legacy = true;
  } else if (journals.length > 0 && journals[0]!.gen !== 1) {
    throw new StateFileError(join(path, SNAPSHOT), `is missing (the journal ${journals[0]!.file} continues from it)`);
  }

  const replay = journals.filter((j) => j.gen >= base);
  replay.forEach((j, i) => {
    if (j.gen !== base + i) throw new StateFileError(join(path, journalName(base + i)), `is missing (${j.file} continues from it)`);
  });
  let journalBytes = 0;
  for (let i = 0; i < replay.length; i++) {
    const r = replayJournal(replay[i]!.file, i === replay.length - 1, target, warn);
    if (r.meta) meta = mergeMeta(meta, r.meta);
    journalBytes = r.bytes;
  }
  const gen = replay.length > 0 ? replay[replay.length - 1]!.gen : base;
  return { path, meta, legacy, gen, journalBytes, snapshotBytes };
}

/** The folder 0700 when we create it, or when it holds nothing but our files. */
function prepareDir(path: string): void {
  let created: string | undefined;
  try {
    created = mkdirSync(path, { recursive: true, mode: DIR_MODE });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new StateFileError(path, `cannot be created (${code})`, 'pass a --data-dir in a folder you can write to');
  }
  const st = statSync(path);
  if (!st.isDirectory()) throw new StateFileError(path, 'is not a directory', 'pass the path of a folder (it is created when missing)');
  try {
    accessSync(path, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new StateFileError(path, `cannot be written (${(err as NodeJS.ErrnoException).code})`, 'pass a --data-dir you can write to, or fix its permissions');
  }
  if (created !== undefined) return;
  if ((st.mode & 0o077) !== 0 && readdirSync(path).every((n) => n === SNAPSHOT || n === LEGACY || JOURNAL_RE.test(n) || TEMP_RE.test(n))) {
    try {
      chmodSync(path, DIR_MODE);
    } catch {
      // Not ours to change; the files themselves are still 0600.
    }
  }
  for (const n of readdirSync(path)) {
    if (n !== SNAPSHOT && n !== LEGACY && !JOURNAL_RE.test(n)) continue;
    const f = join(path, n);
    if ((statSync(f).mode & 0o077) !== 0) chmodSync(f, FILE_MODE);
  }
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

function readSnapshot(file: string, target: (key: string) => LoadTarget): { meta: Meta; gen: number; bytes: number } {
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
  const header = parseLine(buf, lines.complete[0]!) as { format?: unknown; version?: unknown; journal?: unknown } | undefined;
  if (!header || header.format !== SNAPSHOT_FORMAT) bad('its first line is not a snapshot header');
  if (header!.version !== SNAPSHOT_VERSION) bad(`it is version ${String(header!.version)}; this vap reads version ${SNAPSHOT_VERSION}`);
  if (!Number.isInteger(header!.journal) || (header!.journal as number) < 1) bad('its header names no journal');
  const last = lines.complete[lines.complete.length - 1]!;
  const trailer = parseLine(buf, last) as { end?: unknown; records?: unknown; crc32?: unknown; meta?: unknown } | undefined;
  if (!trailer || trailer.end !== true) bad('its last line is not the end marker: it was cut short');
  if (trailer!.crc32 !== crc32(buf.subarray(0, last[0]))) bad('its checksum does not match its content');
  if (!isMeta(trailer!.meta)) bad('its end marker has no id counters');
  const n = lines.complete.length - 2;
  if (trailer!.records !== n) bad(`it holds ${n} records where its end marker says ${String(trailer!.records)}`);
  for (let i = 1; i <= n; i++) {
    const rec = parseLine(buf, lines.complete[i]!);
    if (!Array.isArray(rec) || rec.length !== 3 || typeof rec[0] !== 'string' || typeof rec[1] !== 'string') bad(`line ${i + 1} is not a record`);
    target((rec as string[])[0]!).load((rec as string[])[1]!, (rec as unknown[])[2]);
  }
  return { meta: trailer!.meta as Meta, gen: header!.journal as number, bytes: buf.length };
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

/**
 * Replays one journal. A last record that is cut short or fails its checksum (a crash in
 * the middle of an append) is dropped, the file truncated before it and one line said; a
 * bad record anywhere else stops the start.
 */
function replayJournal(file: string, isLast: boolean, target: (key: string) => LoadTarget, warn: (line: string) => void): { meta?: Meta; bytes: number } {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (err) {
    throw new StateFileError(file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const { complete, tail } = lineOffsets(buf);
  let meta: Meta | undefined;
  let good = 0;
  for (let i = 0; i < complete.length; i++) {
    const [start, end] = complete[i]!;
    const batch = parseBatch(buf, start, end);
    if (!batch) {
      if (isLast && i === complete.length - 1 && tail === buf.length) return torn(file, buf, start, warn, meta);
      throw new StateFileError(file, `is damaged (record ${i + 1} of ${complete.length} fails its checksum)`);
    }
    for (const op of batch.o) if (!applyOp(op, target)) throw new StateFileError(file, `is damaged (record ${i + 1} holds an unknown operation)`);
    meta = mergeMeta(meta, { simNowMs: batch.t, idCounters: batch.ids });
    good = end + 1;
  }
  if (tail !== buf.length) {
    if (!isLast) throw new StateFileError(file, 'is damaged (it ends in the middle of a record, and a later journal follows it)');
    return torn(file, buf, good, warn, meta);
  }
  return { meta, bytes: buf.length };
}

function torn(file: string, buf: Buffer, at: number, warn: (line: string) => void, meta: Meta | undefined): { meta?: Meta; bytes: number } {
  truncateSync(file, at);
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  warn(`${file}: dropped an incomplete last record (${buf.length - at} bytes, cut short by a crash while it was written, so never acknowledged); everything before it is kept`);
  return { meta, bytes: at };
}

interface Batch {
  t: number;
  ids: Record<string, number>;
  o: unknown[];
}

/** `<8 hex CRC-32 of the JSON> <JSON>`; undefined when the line does not check out. */
function parseBatch(buf: Buffer, start: number, end: number): Batch | undefined {
  if (end - start < 10 || buf[start + 8] !== 0x20) return undefined;
  const crc = Number.parseInt(buf.toString('latin1', start, start + 8), 16);
  const body = buf.subarray(start + 9, end);
  if (!Number.isInteger(crc) || crc !== crc32(body)) return undefined;
  try {
    const b = JSON.parse(body.toString('utf8')) as Batch;
    if (typeof b.t !== 'number' || typeof b.ids !== 'object' || b.ids === null || !Array.isArray(b.o)) return undefined;
    return b;
  } catch {
    return undefined;
  }
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

/** Makes a rename or a new file durable: fsync of the folder. */
export async function syncDir(path: string): Promise<void> {
  const h = await open(path, 'r');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}
