import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, writeSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, rename, rm, rmdir, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { UsageError } from '../errors.js';
import { removeStaleTemps, tempPathFor } from '../write-atomic.js';

/**
 * The one place a project-relative path becomes a file vap writes, reads or removes. The state, the files and the arguments
 * come from a repository a pull request can edit, so they are untrusted input: every slug is one safe path segment, every
 * path stays inside the root through no symbolic link, and nothing is removed recursively or unless vap wrote it.
 */

/** The longest slug (a folder or file name without `.yaml`). */
export const MAX_SLUG = 100;

/** The largest project file vap reads (agent.md, a suite's or a webhook's YAML, vap.yaml). */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;

/** The largest state file vap reads. */
export const MAX_STATE_BYTES = 64 * 1024 * 1024;

const SLUG_CHARS = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Letters, digits, `_` and `-`, starting with a letter or digit: a slug unless it is a name Windows reserves. */
const COMMON_SLUG = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
/** Names Windows reserves for devices, with or without an extension (`con`, `aux.yaml`, `COM1`). */
const RESERVED = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/** Why `s` cannot be a slug (one safe path segment), or undefined when it can. */
export function slugProblem(s: string): string | undefined {
  // The common slug (what vap makes of names), answered by two tests; anything else goes through each rule.
  if (typeof s === 'string' && s.length <= MAX_SLUG && COMMON_SLUG.test(s) && !RESERVED.test(s)) return undefined;
  if (typeof s !== 'string' || s === '') return 'it is empty';
  if (s.length > MAX_SLUG) return `it is ${s.length} characters long (at most ${MAX_SLUG})`;
  if (s === '.' || s === '..') return `"${s}" names a folder itself`;
  if (/[/\\]/.test(s)) return 'it holds a path separator';
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(s)) return 'it holds a control character';
  if (!SLUG_CHARS.test(s)) return 'it must start with a letter or digit and hold only letters, digits, ".", "_" and "-"';
  if (s.endsWith('.')) return 'it ends with "."';
  if (RESERVED.test(s)) return `"${s}" is a device name Windows reserves`;
  return undefined;
}

export function isSlug(s: string): boolean {
  return slugProblem(s) === undefined;
}

/** Whether a name is one Windows reserves (a slug made from a name avoids it). */
export function isReservedName(s: string): boolean {
  return RESERVED.test(s);
}

export const SLUG_HINT =
  'a slug is one folder or file name: letters, digits, ".", "_" and "-", starting with a letter or digit, at most 100 characters, not a device name (con, aux, nul, com1…)';

/** What a remove did with one file. */
export type RemoveOutcome = 'removed' | 'missing' | 'changed' | 'not-a-file';

/** vap's own folder in a project, and the .gitignore there that keeps its temporary files out of git. */
const VAP_DIR = '.vap';
export const VAP_IGNORE_FILE = '.vap/.gitignore';
const TEMP_PATTERN = '.*.tmp';
export const VAP_IGNORE_TEXT = `# vap's temporary files: a write cut short by a kill leaves one, which the next vap that writes here removes\n${TEMP_PATTERN}\n`;

export class ProjectFs {
  /** The project root, with the links on the way to it resolved (the root is the user's choice). */
  readonly root: string;
  /**
   * Folders (relative) already found to be real folders, or made by this process: their
   * components are not looked at again (thousands of files go into a few folders).
   */
  private readonly realDirs = new Set<string>();
  /** Folders (relative; '' the root) made by this process or swept of leftover temporary files already. */
  private readonly swept = new Set<string>();
  private vapIgnoreChecked = false;

  constructor(root: string) {
    this.root = realpathSync(resolve(root));
  }

  /** The absolute path of `rel`, refused unless it stays inside the root. */
  resolve(rel: string): string {
    const abs = resolve(this.root, rel);
    const back = relative(this.root, abs);
    if (back === '' || back === '..' || back.startsWith(`..${sep}`) || isAbsolute(back)) {
      throw new UsageError(
        `${rel} is outside the project (${this.root})`,
        'vap writes and removes only inside the folder that holds vap.yaml; check the state file and the names in it',
      );
    }
    return abs;
  }

  /**
   * Refuses a path any existing component of which (below the root) is a symbolic link;
   * returns the stats of the path itself, or undefined when it does not exist.
   */
  checkNoLinks(rel: string): Stats | undefined {
    const abs = this.resolve(rel);
    const parts = relative(this.root, abs).split(sep);
    let cur = this.root;
    let st: Stats | undefined;
    let known = '';
    // The longest leading folder already known to be real is not looked at again.
    let start = 0;
    for (let i = 0; i < parts.length - 1; i++) {
      const d = parts.slice(0, i + 1).join('/');
      if (!this.realDirs.has(d)) break;
      known = d;
      start = i + 1;
    }
    if (start > 0) cur = join(this.root, ...known.split('/'));
    for (let i = start; i < parts.length; i++) {
      cur = join(cur, parts[i]!);
      try {
        // A path that does not exist is the common case of a pull into new folders: no error is made for it.
        st = lstatSync(cur, { throwIfNoEntry: false });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
        throw err;
      }
      if (st === undefined) return undefined;
      if (st.isSymbolicLink()) throw symlinkError(relative(this.root, cur).split(sep).join('/'));
      if (i < parts.length - 1) {
        if (!st.isDirectory())
          throw new UsageError(`${relative(this.root, cur).split(sep).join('/')} is a file where vap expects a folder`, 'move it out of the way');
        this.realDirs.add(parts.slice(0, i + 1).join('/'));
      }
    }
    return st;
  }

  /** Reads a project file (no link on the way, a regular file, at most `limit` bytes); undefined when it does not exist. */
  async readText(rel: string, limit = MAX_FILE_BYTES): Promise<string | undefined> {
    const st = this.checkNoLinks(rel);
    if (!st) return undefined;
    if (!st.isFile()) throw new UsageError(`${rel} is not a file`, 'move it out of the way');
    if (st.size > limit) throw tooLarge(rel, st.size, limit);
    return readFile(this.resolve(rel), 'utf8');
  }

  /** readText, synchronously (see writeTextSync). */
  readTextSync(rel: string, limit = MAX_FILE_BYTES): string | undefined {
    const st = this.checkNoLinks(rel);
    if (!st) return undefined;
    if (!st.isFile()) throw new UsageError(`${rel} is not a file`, 'move it out of the way');
    if (st.size > limit) throw tooLarge(rel, st.size, limit);
    return readFileSync(this.resolve(rel), 'utf8');
  }

  /** Creates the folders of `relDir` one by one (none through a link). */
  async ensureDir(relDir: string): Promise<void> {
    await this.makeDirs(relDir);
    this.tidy(relDir);
  }

  /**
   * Before the first write into a folder: the temporary files a killed vap left there are
   * removed (none in a folder this process made), and in `.vap/`, its .gitignore made to
   * ignore them. Never throws: neither is a reason for a write to fail.
   */
  private tidy(relDir: string): void {
    if (relDir === VAP_DIR && !this.vapIgnoreChecked) {
      this.vapIgnoreChecked = true;
      this.ignoreTemps();
    }
    if (this.swept.has(relDir)) return;
    this.swept.add(relDir);
    try {
      removeStaleTemps(relDir === '' ? this.root : this.resolve(relDir));
    } catch {
      // a folder that cannot be listed keeps its leftovers
    }
  }

  /**
   * `.vap/.gitignore` ignores vap's temporary files (`git add .vap` commits the state, never
   * one of them): made when missing; a user's own file is kept as it is, with the line added
   * at its end only when no line of it is that pattern. Never through a link.
   */
  private ignoreTemps(): void {
    try {
      const st = this.checkNoLinks(VAP_IGNORE_FILE);
      if (st === undefined) return this.writeTextSync(VAP_IGNORE_FILE, VAP_IGNORE_TEXT);
      if (!st.isFile() || st.size > MAX_FILE_BYTES) return;
      const text = readFileSync(this.resolve(VAP_IGNORE_FILE), 'utf8');
      if (text.split('\n').some((line) => line.trim() === TEMP_PATTERN)) return;
      const eol = text.includes('\r\n') ? '\r\n' : '\n';
      const sep = text === '' || text.endsWith('\n') ? '' : eol;
      this.writeTextSync(VAP_IGNORE_FILE, `${text}${sep}${VAP_IGNORE_TEXT.replaceAll('\n', eol)}`);
    } catch {
      // a .gitignore that cannot be read or written is left as it is
    }
  }

  /** Removes a file of vap's own bookkeeping (a journal) when it exists; never through a link. */
  async removeIfExists(rel: string): Promise<void> {
    const st = this.checkNoLinks(rel);
    if (st?.isFile()) await unlink(this.resolve(rel));
  }

  private async makeDirs(relDir: string): Promise<void> {
    if (relDir === '' || relDir === '.' || this.realDirs.has(relDir)) return;
    this.checkNoLinks(relDir);
    const parts = relDir.split('/');
    let cur = '';
    for (const p of parts) {
      cur = cur ? `${cur}/${p}` : p;
      try {
        await mkdir(this.resolve(cur));
        this.swept.add(cur);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const st = await lstat(this.resolve(cur));
        if (st.isSymbolicLink()) throw symlinkError(cur);
        if (!st.isDirectory()) throw new UsageError(`${cur} is a file where vap expects a folder`, 'move it out of the way');
      }
      this.realDirs.add(cur);
    }
  }

  /**
   * writeText, synchronously: for a command that writes many small files with nothing else
   * to do meanwhile (a pull), four system calls each instead of as many trips through the
   * thread pool.
   */
  writeTextSync(rel: string, text: string, opts: { fresh?: boolean } = {}): void {
    const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
    if (!opts.fresh) {
      const st = this.checkNoLinks(rel);
      if (st && !st.isFile()) throw new UsageError(`${rel} is not a file`, 'move it out of the way');
    }
    // A fresh file (no such file a moment ago): its folders are checked as they are made, and
    // the rename below would replace, not follow, a link put there meanwhile.
    this.makeDirsSync(dir);
    this.tidy(dir);
    const target = this.resolve(rel);
    const tmp = tempPathFor(target);
    const fd = openSync(tmp, 'wx', 0o644);
    try {
      const data = Buffer.from(text, 'utf8');
      for (let done = 0; done < data.byteLength; ) done += writeSync(fd, data, done, data.byteLength - done);
      closeSync(fd);
      renameSync(tmp, target);
    } catch (err) {
      try {
        closeSync(fd);
      } catch {
        // closed already
      }
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  private makeDirsSync(relDir: string): void {
    if (relDir === '' || this.realDirs.has(relDir)) return;
    // Each folder not known yet is made, or found to exist and then looked at (a mkdir never
    // follows a link): the same checks as checkNoLinks, without an lstat before each mkdir.
    this.resolve(relDir);
    let cur = '';
    for (const p of relDir.split('/')) {
      cur = cur ? `${cur}/${p}` : p;
      if (this.realDirs.has(cur)) continue;
      try {
        mkdirSync(this.resolve(cur));
        this.swept.add(cur);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const st = lstatSync(this.resolve(cur));
        if (st.isSymbolicLink()) throw symlinkError(cur);
        if (!st.isDirectory()) throw new UsageError(`${cur} is a file where vap expects a folder`, 'move it out of the way');
      }
      this.realDirs.add(cur);
    }
  }

  /**
   * Writes a file atomically: a new temporary file beside it (O_EXCL: never an existing
   * file or link), flushed, then renamed over the target (a rename replaces a link at
   * the target; it never writes through one).
   */
  async writeText(rel: string, text: string, opts: { sync?: boolean; mode?: number } = {}): Promise<void> {
    const st = this.checkNoLinks(rel);
    if (st && !st.isFile()) throw new UsageError(`${rel} is not a file`, 'move it out of the way');
    const dir = dirname(rel.split('/').join(sep)).split(sep).join('/');
    await this.makeDirs(dir === '.' ? '' : dir);
    this.tidy(dir === '.' ? '' : dir);
    const target = this.resolve(rel);
    const tmp = tempPathFor(target);
    const fh = await open(tmp, 'wx', opts.mode ?? 0o644);
    try {
      const data = Buffer.from(text, 'utf8');
      for (let done = 0; done < data.byteLength; ) done += (await fh.write(data, done, data.byteLength - done)).bytesWritten;
      if (opts.sync) await fh.sync();
      await fh.close();
      await rename(tmp, target);
    } catch (err) {
      await fh.close().catch(() => undefined);
      await rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
  }

  /** Removes a regular file, and only while `isOurs(its text)` says its content is still the one vap wrote. */
  async removeOwnFile(rel: string, isOurs: (text: string) => boolean): Promise<RemoveOutcome> {
    const st = this.checkNoLinks(rel);
    if (!st) return 'missing';
    if (!st.isFile()) return 'not-a-file';
    if (st.size > MAX_FILE_BYTES) return 'changed';
    const text = await readFile(this.resolve(rel), 'utf8');
    if (!isOurs(text)) return 'changed';
    await unlink(this.resolve(rel));
    return 'removed';
  }

  /**
   * Removes `relDir` and then its parents up to (not including) `stopAt`, each only when it
   * is empty. Returns the folder that was kept because it holds something else, with what
   * it holds (names, at most a few), or undefined when every folder went.
   */
  async removeEmptyDirs(relDir: string, stopAt: string): Promise<{ dir: string; holds: string[] } | undefined> {
    let cur = relDir;
    while (cur && cur !== stopAt && cur !== '.') {
      const st = this.checkNoLinks(cur);
      if (st) {
        if (!st.isDirectory()) return { dir: cur, holds: [] };
        // A temporary file a killed vap left is vap's own: it does not keep the folder.
        if (!(await this.rmdirIfEmpty(cur)) && !(removeStaleTemps(this.resolve(cur)).length > 0 && (await this.rmdirIfEmpty(cur)))) {
          const names = (await readdir(this.resolve(cur))).sort();
          return { dir: cur, holds: names };
        }
      }
      const up = cur.lastIndexOf('/');
      cur = up < 0 ? '' : cur.slice(0, up);
    }
    return undefined;
  }

  /** Removes a folder when it is empty; false when it holds something. */
  private async rmdirIfEmpty(relDir: string): Promise<boolean> {
    try {
      await rmdir(this.resolve(relDir));
      this.realDirs.delete(relDir);
      this.swept.delete(relDir);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
      return false;
    }
  }

  /** Renames inside the project (neither side through a link; the target must not exist). */
  async rename(fromRel: string, toRel: string): Promise<void> {
    this.checkNoLinks(fromRel);
    if (this.checkNoLinks(toRel)) throw new UsageError(`${toRel} already exists`, 'choose a name that is not taken');
    const dir = toRel.includes('/') ? toRel.slice(0, toRel.lastIndexOf('/')) : '';
    await this.makeDirs(dir);
    await rename(this.resolve(fromRel), this.resolve(toRel));
    for (const d of [...this.realDirs]) if (d === fromRel || d.startsWith(`${fromRel}/`)) this.realDirs.delete(d);
  }
}

export function symlinkError(rel: string): UsageError {
  return new UsageError(
    `${rel} is a symbolic link; vap never reads, writes or removes through one`,
    `replace ${rel} with a real ${rel.endsWith('.md') || rel.endsWith('.yaml') || rel.endsWith('.json') ? 'file' : 'folder'}, or run vap in the project it points to`,
  );
}

export function tooLarge(rel: string, size: number, limit: number): UsageError {
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MiB`;
  return new UsageError(
    `${rel} is ${mib(size)}, over vap's limit of ${mib(limit)} for a project file`,
    'a project file holds one agent, suite or endpoint: check that this is the file you meant',
  );
}

/** The folders a project's layout fixes, which must be real folders (not links) when they exist. */
export const PROJECT_DIRS = ['agents', 'webhooks', '.vap'] as const;

/** Refuses a project whose vap.yaml, agents/, webhooks/ or .vap/ is a symbolic link, naming it. */
export function checkLayout(fs: ProjectFs): void {
  for (const d of ['vap.yaml', ...PROJECT_DIRS]) fs.checkNoLinks(d);
}
