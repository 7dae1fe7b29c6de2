import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readdirSync, readSync, type Dirent, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { UsageError } from '../errors.js';
import { canonicalJson, shortHash, type Kind } from './model.js';
import { isSlug, MAX_FILE_BYTES, slugProblem, symlinkError, tooLarge } from './paths.js';
import type { Problem } from './problems.js';
import { normalise, type TextForm } from './text-form.js';

/**
 * The first step of reading a project: the layout listed and every file read and digested, nothing parsed (see README.md).
 * A link anywhere is a problem, never followed; every name is a safe slug; a file is opened with O_NOFOLLOW, must be a
 * regular file of at most MAX_FILE_BYTES, and is read without its BOM and CRLF line endings (text-form.ts).
 */

/** The version of the project's file format (vap.yaml's `version`, and part of every file digest). */
export const FORMAT_VERSION = 1;

/** A file of the project as scanned: its text and digest, or why it could not be read. */
export type ScannedFile = ReadFile | (FileJob & { problem: string });

/** A file of the layout to read: agents/<slug>/agent.md, agents/<agentSlug>/evals/<slug>.yaml, webhooks/<slug>.yaml. */
export interface FileJob {
  kind: Kind;
  file: string;
  slug: string;
  agentSlug?: string;
}

export interface ReadFile extends FileJob {
  text: string;
  form: TextForm;
  digest: string;
}

export interface Scan {
  /** Problems of the layout (links, names, stray files). */
  problems: Problem[];
  /** The files, agents' and their suites' first, in the order found. */
  files: ScannedFile[];
}

/**
 * The digest of a file's text as read for a profile. Only a webhook's URL takes the
 * profile's vars, so only a webhook's digest depends on them.
 */
export function fileDigest(kind: Kind, text: string, vars: Record<string, string>): string {
  return shortHash(`vap/${FORMAT_VERSION}\0${kind}\0${kind === 'webhook' ? canonicalJson(vars) : ''}\0${text}`);
}

/** Files read between two turns of the event loop (at least; an agent's files are read together). */
const FILES_PER_TURN = 4;

/**
 * Scans the project, letting I/O in every few files so requests in flight are answered meanwhile (a worker thread gains
 * nothing: the plan keeps the machine busy). Order: each agent's agent.md, then its suites; then the webhooks. A folder of
 * agents/ without agent.md is not an agent (a pull keeps a removed agent's folder that holds the user's files).
 */
export async function scanProject(root: string, vars: Record<string, string>, listing?: Dirent[]): Promise<Scan> {
  const scan: Scan = { problems: [], files: [] };
  const { problems, files } = scan;
  // The platform's answers are let in before the folders are listed, and between files.
  await yieldToIO();
  let sinceTurn = 0;
  for (const slug of agentFolders(root, problems, listing)) {
    // agent.md opened straight away (no lstat first): missing, the folder is not an agent.
    const agent = scanFile(root, { kind: 'agent', file: `agents/${slug}/agent.md`, slug }, vars);
    if (!agent) continue;
    files.push(agent);
    sinceTurn++;
    for (const job of suiteFiles(root, slug, problems)) {
      files.push(scanFile(root, job, vars) ?? { ...job, problem: 'is missing' });
      sinceTurn++;
    }
    if (sinceTurn >= FILES_PER_TURN) {
      sinceTurn = 0;
      await yieldToIO();
    }
  }
  for (const job of webhookFiles(root, problems)) files.push(scanFile(root, job, vars) ?? { ...job, problem: 'is missing' });
  return scan;
}

const yieldToIO = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The folders of agents/ that may be agents (real folders with a slug for a name); the rest are problems. */
function agentFolders(root: string, problems: Problem[], listing?: Dirent[]): string[] {
  const out: string[] = [];
  if (linkedFolder(root, 'agents', problems)) return out;
  for (const d of listing ?? dirEntries(join(root, 'agents'))) {
    if (d.name.startsWith('.')) continue;
    if (d.isSymbolicLink()) {
      linkProblem(problems, `agents/${d.name}`);
      continue;
    }
    if (!d.isDirectory()) {
      problems.push({ file: `agents/${d.name}`, message: 'agents/ holds one folder per agent (agents/<slug>/agent.md); move or remove this file' });
      continue;
    }
    const bad = slugProblem(d.name);
    if (bad) {
      problems.push({ file: `agents/${d.name}`, message: `a folder name is the agent's slug, and this one is not a safe slug: ${bad}` });
      continue;
    }
    out.push(d.name);
  }
  return out;
}

/** The suite files of an agent's evals/ (an lstat first: never listed through a link); the rest are problems. */
function suiteFiles(root: string, slug: string, problems: Problem[]): FileJob[] {
  const rel = `agents/${slug}/evals`;
  const evalsDir = under(root, rel);
  const evals = entryAt(evalsDir);
  if (evals?.isSymbolicLink()) linkProblem(problems, rel);
  if (!evals?.isDirectory()) return [];
  const out: FileJob[] = [];
  for (const e of dirEntries(evalsDir)) {
    if (e.name.startsWith('.')) continue;
    if (e.isSymbolicLink()) {
      linkProblem(problems, `agents/${slug}/evals/${e.name}`);
      continue;
    }
    if (!e.isFile() || !e.name.endsWith('.yaml')) {
      problems.push({ file: `agents/${slug}/evals/${e.name}`, message: 'evals/ holds one <suite>.yaml per eval suite; move or remove this' });
      continue;
    }
    const suiteSlug = e.name.slice(0, -'.yaml'.length);
    const bad = slugProblem(suiteSlug);
    if (bad) {
      problems.push({
        file: `agents/${slug}/evals/${e.name}`,
        message: `a suite file's name (before .yaml) is its slug, and this one is not a safe slug: ${bad}`,
      });
      continue;
    }
    out.push({ kind: 'suite', file: `agents/${slug}/evals/${e.name}`, slug: suiteSlug, agentSlug: slug });
  }
  return out;
}

/** The endpoint files of webhooks/; the rest are problems. */
function webhookFiles(root: string, problems: Problem[]): FileJob[] {
  const out: FileJob[] = [];
  if (linkedFolder(root, 'webhooks', problems)) return out;
  for (const e of dirEntries(join(root, 'webhooks'))) {
    if (e.name.startsWith('.')) continue;
    if (e.isSymbolicLink()) {
      linkProblem(problems, `webhooks/${e.name}`);
      continue;
    }
    if (!e.isFile() || !e.name.endsWith('.yaml')) {
      problems.push({ file: `webhooks/${e.name}`, message: 'webhooks/ holds one <slug>.yaml per endpoint; move or remove this' });
      continue;
    }
    const slug = e.name.slice(0, -'.yaml'.length);
    const bad = slugProblem(slug);
    if (bad) {
      problems.push({ file: `webhooks/${e.name}`, message: `a webhook file's name (before .yaml) is its slug, and this one is not a safe slug: ${bad}` });
      continue;
    }
    out.push({ kind: 'webhook', file: `webhooks/${e.name}`, slug });
  }
  return out;
}

/** Reads a file of the layout: its text and digest, why it cannot be read, or undefined when it does not exist (a system error is thrown). */
function scanFile(root: string, job: FileJob, vars: Record<string, string>): ScannedFile | undefined {
  let read: { text: string; form: TextForm } | undefined;
  try {
    read = readProjectFile(root, job.file);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return { ...job, problem: err.message.startsWith(`${job.file} `) ? err.message.slice(job.file.length + 1) : err.message };
  }
  if (!read) return undefined;
  return { ...job, text: read.text, form: read.form, digest: fileDigest(job.kind, read.text, vars) };
}

/**
 * Folder and file names only: which agents and webhooks have files (nothing is read). The
 * listing of agents/ is kept (`listing`), for the scan that follows to take instead of
 * listing the folder again.
 */
export function listPresence(root: string): { agents: Set<string>; webhooks: boolean; listing: Dirent[] } {
  const listing = dirEntries(join(root, 'agents'));
  const agents = new Set<string>();
  for (const d of listing) if (d.isDirectory() && isSlug(d.name)) agents.add(d.name);
  const webhooks = dirEntries(join(root, 'webhooks')).some((e) => !e.name.startsWith('.') && e.name.endsWith('.yaml'));
  return { agents, webhooks, listing };
}

// The project's files are read synchronously: hundreds of small files are read faster
// one after the other than through the thread pool (open, stat, read, close each). A
// folder's entries say whether each is a link, a folder or a file (no stat of each).
function dirEntries(path: string): Dirent[] {
  try {
    return readdirSync(path, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw err;
  }
}

/** What is at a path, the path itself (a link is not followed); undefined when nothing is there. */
function entryAt(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** A folder of the layout (agents/, webhooks/, agents/<slug>/evals/) that exists and is a link: a problem. */
function linkedFolder(root: string, rel: string, problems: Problem[]): boolean {
  try {
    if (!lstatSync(join(root, rel)).isSymbolicLink()) return false;
  } catch {
    return false;
  }
  problems.push({ file: rel, message: `${symlinkError(rel).message.slice(rel.length + 1)}; replace it with a real folder` });
  return true;
}

const linkProblem = (problems: Problem[], rel: string) =>
  problems.push({ file: rel, message: 'is a symbolic link; vap never reads, writes or removes through one: replace it with the real file or folder' });

/**
 * The text of a project file (its BOM and CRLF line endings taken off, see text-form.ts):
 * a regular file, not a link, at most MAX_FILE_BYTES; undefined when it does not exist.
 */
function readProjectFile(root: string, file: string): { text: string; form: TextForm } | undefined {
  const abs = under(root, file);
  // Opened with O_NOFOLLOW where there is one: a link is refused by the open itself (ELOOP),
  // and the size and type come from the open file (no lstat before it). O_NONBLOCK: a FIFO
  // in the project's place of a file is opened without waiting for a writer, then refused.
  if (O_NOFOLLOW === undefined) {
    let st;
    try {
      st = lstatSync(abs);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    if (st.isSymbolicLink()) throw symlinkError(file);
  }
  let fd: number;
  try {
    fd = openSync(abs, fsConstants.O_RDONLY | (O_NOFOLLOW ?? 0) | (O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw symlinkError(file);
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UsageError(`${file} is not a file`, 'move it out of the way');
    if (st.size > MAX_FILE_BYTES) throw tooLarge(file, st.size, MAX_FILE_BYTES);
    return normalise(readSize(fd, st.size));
  } finally {
    closeSync(fd);
  }
}

/**
 * The text of an open file of `size` bytes (its size when opened: what it holds then). Read
 * into a buffer of that size: readFileSync would ask for the size again and read once more
 * to find the end, two more system calls for each of thousands of files.
 */
function readSize(fd: number, size: number): string {
  const buf = Buffer.allocUnsafe(size);
  let n = 0;
  while (n < size) {
    const got = readSync(fd, buf, n, size - n, n);
    if (got === 0) break;
    n += got;
  }
  return buf.toString('utf8', 0, n);
}

/**
 * The absolute path of a project-relative path the scan built from checked slugs (no `.`,
 * `..` or separator in a segment): the root and the path joined as they are, as path.join
 * would give them, without normalising thousands of paths a scan.
 */
function under(root: string, rel: string): string {
  return root.endsWith(sep) ? root + rel : root + sep + rel;
}

const O_NOFOLLOW: number | undefined = (fsConstants as { O_NOFOLLOW?: number }).O_NOFOLLOW;
const O_NONBLOCK: number | undefined = (fsConstants as { O_NONBLOCK?: number }).O_NONBLOCK;
