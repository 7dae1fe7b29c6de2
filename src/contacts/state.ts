import { createHash } from 'node:crypto';
import { access, constants, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { hostname, platform } from 'node:os';
import { dirname, join } from 'node:path';
import envPaths from 'env-paths';
import { UsageError } from '../errors.js';

/**
 * The state file of an import: enough to resume after Ctrl-C, a lost connection or a killed
 * process without importing any contact twice (how: src/contacts/README.md).
 */

export const STATE_KIND = 'vap-contacts-import';
export const STATE_VERSION = 1;
const HEAD_BYTES = 64 * 1024;

export type BatchStatus = 'sending' | 'sent' | 'done';

export interface BatchRecord {
  /** Batch index (0-based). */
  i: number;
  /** File rows (1-based data rows) of its first and last contact. */
  from: number;
  to: number;
  /** Contacts in the batch. */
  n: number;
  st: BatchStatus;
  /** When it was (last) sent, by this machine's clock. */
  at: string;
  job?: string;
  /** Final job status, successful and rejected rows (rows a failed or cancelled job never processed count as rejected). */
  status?: string;
  ok?: number;
  bad?: number;
}

export interface InputIdentity {
  path: string;
  size: number;
  mtimeMs: number;
  /** sha256 of the first 64 KiB (the header and the first rows). */
  head: string;
}

export interface StateOptions {
  format: 'csv' | 'json';
  delimiter: string;
  /** field → column */
  mapping: Record<string, string>;
  batchSize: number;
  defaultCountry: string | null;
  /** The file's encoding (TextDecoder's name); absent in states written before it was recorded: UTF-8. */
  encoding?: string;
}

export interface StateData {
  kind: typeof STATE_KIND;
  version: typeof STATE_VERSION;
  listId: string;
  /** The server and organization (a hash of the key, never the key) of a default state file. */
  target?: { baseUrl: string; org: string };
  input: InputIdentity;
  options: StateOptions;
  /** The newest import job of the list before this import began (server clock), to tell our jobs from older ones. */
  baseline: { createdAt: string | null; ids: string[] };
  /** The process working on it (a second one is refused while it lives). */
  owner: { pid: number; host: string } | null;
  startedAt: string;
  updatedAt: string;
  complete: boolean;
  completedAt?: string;
  /** Batches [0, prefix.batches) are all done: their totals. */
  prefix: { batches: number; rows: number; ok: number; bad: number; to: number };
  /** jobs[i]: the job of batch i, once known. */
  jobs: Array<string | null>;
  /** Done batches of the prefix whose job rejected rows: [batch, job, rejected]. */
  withErrors: Array<[number, string, number]>;
  /** Batches past the prefix that were sent (or are being sent). */
  open: BatchRecord[];
  /** Newest createdAt seen among this import's jobs (server clock). */
  lastCreatedAt: string | null;
  /** Rows of the file when it was read to the end (set once complete). */
  totals?: { rows: number; valid: number; rejectedLocally: number };
}

/** How to recover from a damaged state file: it is not rewritten; the user decides. */
export const DAMAGED_HINT = (path: string) =>
  `vap leaves it as it is: restore it from a backup to resume, or pass --force to start over (the damaged file is then kept beside it as ${path}.broken; contacts already imported would be imported again)`;

/** What is wrong with a parsed state (of the right kind and version), or undefined when its shape is sound. */
export function stateShapeProblem(d: StateData): string | undefined {
  const obj = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (typeof d.listId !== 'string') return '"listId" is missing';
  if (!obj(d.input) || typeof d.input.size !== 'number' || typeof d.input.head !== 'string' || typeof d.input.path !== 'string') return '"input" is incomplete';
  if (!obj(d.options) || typeof d.options.batchSize !== 'number' || !obj(d.options.mapping)) return '"options" is incomplete';
  if (!obj(d.prefix) || typeof d.prefix.batches !== 'number') return '"prefix" is incomplete';
  if (!Array.isArray(d.open) || !Array.isArray(d.jobs) || !Array.isArray(d.withErrors)) return 'its batch records are missing';
  if (d.open.some((r) => !obj(r) || typeof r.i !== 'number' || typeof r.st !== 'string')) return 'a batch record is incomplete';
  if (!obj(d.baseline)) return '"baseline" is missing';
  return undefined;
}

export class StateFileError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'StateFileError';
  }
}

/**
 * Where import states are kept: $VAP_STATE_DIR, else the platform's state directory
 * for "vap" ($XDG_STATE_HOME/vap, i.e. ~/.local/state/vap on Linux, which env-paths
 * names `log`; its data directory on macOS and Windows), plus `imports/`.
 */
export function stateDir(env: Record<string, string | undefined>): string {
  if (env.VAP_STATE_DIR) return join(env.VAP_STATE_DIR, 'imports');
  const p = envPaths('vap', { suffix: '' });
  return join(platform() === 'linux' ? p.log : p.data, 'imports');
}

/** Why a folder cannot be written, in a few words. */
export function folderProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'the file system is read-only';
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'a part of the path is a file, not a folder';
  if (code === 'ENOSPC') return 'the disk is full';
  if (code === 'ENOENT') return 'it does not exist';
  return code ?? (err as Error).message;
}

/**
 * Makes sure vap's state folder (`sub` of it: `imports`, `errors`) can be written, creating
 * it (0700) when missing; otherwise a usage error naming the folder, where it comes from
 * (VAP_STATE_DIR or the platform's default) and the fix. Checked before anything is sent.
 */
export async function ensureStateFolder(dir: string, env: Record<string, string | undefined>, alternative: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await access(dir, constants.W_OK);
  } catch (err) {
    const from = env.VAP_STATE_DIR ? ` (from VAP_STATE_DIR=${env.VAP_STATE_DIR})` : " (vap's state folder)";
    throw new UsageError(
      `cannot write to the folder ${dir}${from}: ${folderProblem(err)}`,
      `make it writable, set VAP_STATE_DIR to a folder you can write, or ${alternative}`,
    );
  }
}

/** What a default state file is keyed by. */
export interface StateKey {
  /** The API's base URL (another server, another state). */
  baseUrl: string;
  /** The API key: only its SHA-256 enters the key (the key itself is never written). */
  apiKey: string;
  listId: string;
  /** The file's content fingerprint: its size and a hash of its first 64 KiB. */
  input: Pick<InputIdentity, 'size' | 'head'>;
}

/**
 * The default state file: `<stateDir>/<listId>-<hash>.json`, hashed over the base URL, the key,
 * the list and the file's content fingerprint, not its path or mtime: a file moved with the same
 * content finds its state again; another server, organization, list or file gets its own.
 */
export function defaultStatePath(env: Record<string, string | undefined>, key: StateKey): string {
  const t = stateTarget(key);
  const h = createHash('sha256')
    .update([t.baseUrl, t.org, key.listId, String(key.input.size), key.input.head].join('\n'))
    .digest('hex')
    .slice(0, 24);
  const safeList = key.listId.replace(/[^\w.-]/g, '_').slice(0, 64);
  return join(stateDir(env), `${safeList}-${h}.json`);
}

/** The server and organization a default state file is for, as recorded in it. */
export function stateTarget(key: Pick<StateKey, 'baseUrl' | 'apiKey'>): { baseUrl: string; org: string } {
  return { baseUrl: key.baseUrl.replace(/\/+$/, ''), org: createHash('sha256').update(key.apiKey).digest('hex').slice(0, 32) };
}

/**
 * The other import states of the same input path on the same server and organization,
 * newest first: for --resume, when the file's content or the list changed (the default
 * state file is keyed by both), to say what did instead of "nothing to resume".
 */
export async function statesOfInput(
  env: Record<string, string | undefined>,
  inputPath: string,
  target: { baseUrl: string; org: string },
): Promise<Array<{ path: string; data: StateData }>> {
  const dir = stateDir(env);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const found: Array<{ path: string; data: StateData }> = [];
  for (const n of names) {
    if (!n.endsWith('.json')) continue;
    const path = join(dir, n);
    const data = await ImportState.read(path).catch(() => undefined);
    if (data && data.input.path === inputPath && data.target?.baseUrl === target.baseUrl && data.target.org === target.org) found.push({ path, data });
  }
  return found.sort((a, b) => Date.parse(b.data.updatedAt) - Date.parse(a.data.updatedAt));
}

export async function inputIdentity(path: string): Promise<InputIdentity> {
  const st = await stat(path);
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(Math.min(HEAD_BYTES, st.size));
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return { path, size: st.size, mtimeMs: Math.trunc(st.mtimeMs), head: createHash('sha256').update(buf.subarray(0, got)).digest('hex') };
  } finally {
    await fh.close();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class ImportState {
  private saving: Promise<void> = Promise.resolve();
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private dirReady = false;

  constructor(
    readonly path: string,
    readonly data: StateData,
  ) {}

  /**
   * Reads a state file: undefined when there is none; a StateFileError (one line naming the
   * file and how to recover) when it cannot be read, is not JSON, or is not a state of this
   * version. A damaged file is never overwritten without a word (see importer.ts).
   */
  static async read(path: string): Promise<StateData | undefined> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : (code ?? (err as Error).message);
      throw new StateFileError(`cannot read the import state file ${path}: ${why}`, 'make it readable, or pass --state-file to keep the state elsewhere');
    }
    let data: StateData;
    try {
      data = JSON.parse(text) as StateData;
    } catch (err) {
      throw new StateFileError(`the import state file ${path} is damaged: it is not valid JSON (${(err as Error).message})`, DAMAGED_HINT(path));
    }
    if (data?.kind !== STATE_KIND || data.version !== STATE_VERSION) {
      throw new StateFileError(`${path} is not a vap contacts import state file (or was written by another version of vap)`, DAMAGED_HINT(path));
    }
    const problem = stateShapeProblem(data);
    if (problem) throw new StateFileError(`the import state file ${path} is damaged: ${problem}`, DAMAGED_HINT(path));
    return data;
  }

  static fresh(path: string, init: Pick<StateData, 'listId' | 'input' | 'options' | 'baseline' | 'target'>): ImportState {
    const now = new Date().toISOString();
    return new ImportState(path, {
      kind: STATE_KIND,
      version: STATE_VERSION,
      ...init,
      owner: { pid: process.pid, host: hostname() },
      startedAt: now,
      updatedAt: now,
      complete: false,
      prefix: { batches: 0, rows: 0, ok: 0, bad: 0, to: 0 },
      jobs: [],
      withErrors: [],
      open: [],
      lastCreatedAt: null,
    });
  }

  /** Another live process on this machine working on the same state? */
  static runningOwner(data: StateData): number | undefined {
    const o = data.owner;
    if (!o || o.host !== hostname() || o.pid === process.pid) return undefined;
    return isAlive(o.pid) ? o.pid : undefined;
  }

  claim(): void {
    this.data.owner = { pid: process.pid, host: hostname() };
  }

  release(): void {
    this.data.owner = null;
  }

  /** The open record of batch i, 'done' for a batch of the finished prefix, or undefined (never sent). */
  record(i: number): BatchRecord | 'done' | undefined {
    if (i < this.data.prefix.batches) return 'done';
    return this.data.open.find((r) => r.i === i);
  }

  /** The one batch whose POST may or may not have reached the server. */
  sending(): BatchRecord | undefined {
    return this.data.open.find((r) => r.st === 'sending');
  }

  knownJobIds(): Set<string> {
    const s = new Set<string>();
    for (const j of this.data.jobs) if (j) s.add(j);
    for (const r of this.data.open) if (r.job) s.add(r.job);
    return s;
  }

  /** Records a batch as being sent (call save() before the POST). */
  beginSend(rec: Omit<BatchRecord, 'st' | 'at'>): BatchRecord {
    this.data.open = this.data.open.filter((r) => r.i !== rec.i);
    const full: BatchRecord = { ...rec, st: 'sending', at: new Date().toISOString() };
    this.data.open.push(full);
    this.data.open.sort((a, b) => a.i - b.i);
    return full;
  }

  /** The POST answered with a job. */
  sent(i: number, jobId: string): void {
    const r = this.data.open.find((x) => x.i === i);
    if (!r) return;
    r.st = 'sent';
    r.job = jobId;
    this.data.jobs[i] = jobId;
    for (let k = 0; k < i; k++) if (this.data.jobs[k] === undefined) this.data.jobs[k] = null;
    this.markDirty();
  }

  /** The batch provably never reached the server: forget it (it will be sent again). */
  forget(i: number): void {
    this.data.open = this.data.open.filter((r) => r.i !== i);
    this.markDirty();
  }

  /** The batch's job finished. Folds finished batches at the front into the prefix. */
  finished(i: number, result: { status: string; ok: number; bad: number; createdAt?: string }): void {
    const r = this.data.open.find((x) => x.i === i);
    if (!r) return;
    r.st = 'done';
    r.status = result.status;
    r.ok = result.ok;
    r.bad = result.bad;
    this.seen(result.createdAt);
    const p = this.data.prefix;
    this.data.open.sort((a, b) => a.i - b.i);
    while (this.data.open.length && this.data.open[0]!.i === p.batches && this.data.open[0]!.st === 'done') {
      const d = this.data.open.shift()!;
      p.batches++;
      p.rows += d.n;
      p.ok += d.ok ?? 0;
      p.bad += d.bad ?? 0;
      p.to = d.to;
      if ((d.bad ?? 0) > 0 && d.job) this.data.withErrors.push([d.i, d.job, d.bad!]);
    }
    this.markDirty();
  }

  /** Notes the creation time (server clock) of one of our jobs. */
  seen(createdAt: string | undefined): void {
    if (!createdAt) return;
    const last = this.data.lastCreatedAt;
    if (!last || Date.parse(createdAt) > Date.parse(last)) this.data.lastCreatedAt = createdAt;
  }

  /** Totals over every done batch (prefix and open). */
  doneTotals(): { batches: number; rows: number; ok: number; bad: number } {
    const p = this.data.prefix;
    const t = { batches: p.batches, rows: p.rows, ok: p.ok, bad: p.bad };
    for (const r of this.data.open) {
      if (r.st !== 'done') continue;
      t.batches++;
      t.rows += r.n;
      t.ok += r.ok ?? 0;
      t.bad += r.bad ?? 0;
    }
    return t;
  }

  markDirty(): void {
    this.dirty = true;
  }

  /** Saves within a second if something changed (job completions need not be written at once). */
  saveSoon(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.dirty) void this.save().catch(() => undefined);
    }, 1000);
    this.timer.unref();
  }

  /** Writes the state atomically; saves are serialised. */
  save(): Promise<void> {
    const next = this.saving.then(() => this.write());
    this.saving = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.saving;
  }

  private async write(): Promise<void> {
    this.dirty = false;
    if (!this.dirReady) {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      this.dirReady = true;
    }
    this.data.updatedAt = new Date().toISOString();
    const text = `${JSON.stringify(this.data)}\n`;
    const tmp = `${this.path}.${process.pid}.tmp`;
    const fh = await open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await rename(tmp, this.path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    await fsyncDir(dirname(this.path));
  }
}

async function fsyncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Not supported everywhere (Windows); the rename itself is still atomic.
  }
}
