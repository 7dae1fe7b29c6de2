import { execFile } from 'node:child_process';
import { CliError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';

/**
 * What `vap bisect` reads from git without checking anything out: the commits that touched an agent's folder, and its files at each.
 * git runs with an argument array (never a shell), literal pathspecs, a time limit and bounded output; a revision is validated before git sees it.
 */

/** The most a git answer may hold (a listing of commits, or one file). */
const MAX_OUTPUT = 8 * 1024 * 1024;
const TIMEOUT_MS = 30_000;
/** A file of the agent's folder larger than this is not read (the project's own limit). */
export const MAX_BLOB_BYTES = 2 * 1024 * 1024;
/** The most commits a search reads. */
export const MAX_COMMITS = 2000;

export class GitFailed extends Error {
  constructor(
    message: string,
    readonly code: number | string | undefined,
  ) {
    super(message);
  }
}

/** Runs git in `cwd`; its stdout, or GitFailed with its first line of stderr. */
export function git(cwd: string, args: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        cwd,
        timeout: TIMEOUT_MS,
        maxBuffer: MAX_OUTPUT,
        signal,
        encoding: 'utf8',
        env: { ...process.env, GIT_LITERAL_PATHSPECS: '1', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
      },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const e = err as NodeJS.ErrnoException & { code?: number | string };
        if (e.code === 'ENOENT') return reject(new CliError('git is not installed, or not on PATH: vap bisect reads the history with it', ExitCode.FAILURE));
        if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return reject(new GitFailed(`git ${args[0]} said more than ${MAX_OUTPUT} bytes`, e.code));
        reject(
          new GitFailed(
            String(stderr || e.message)
              .split('\n')[0]!
              .trim(),
            e.code,
          ),
        );
      },
    );
  });
}

/** A revision as given on the command line: refused when git could take it for an option, or it holds a control character. */
export function checkRev(flag: string, rev: string): string {
  const r = rev.trim();
  const fix = `give ${flag} a commit, branch or tag, e.g. ${flag} HEAD~10`;
  if (!r) throw new UsageError(`${flag} is empty`, fix);
  if (r.startsWith('-')) throw new UsageError(`${flag} "${r.slice(0, 40)}" starts with "-": not a revision`, fix);
  if (r.length > 256 || /[\u0000-\u001f\u007f]/.test(r)) throw new UsageError(`${flag} is not a revision git could name`, fix);
  return r;
}

export interface Repo {
  /** The top of the work tree (git runs there). */
  top: string;
  /** The project folder relative to it, with a trailing slash ('' at the top). */
  prefix: string;
}

/** The repository holding the project folder. */
export async function repoOf(root: string, signal?: AbortSignal): Promise<Repo> {
  let out: string;
  try {
    out = await git(root, ['rev-parse', '--show-toplevel', '--show-prefix'], signal);
  } catch (err) {
    if (err instanceof GitFailed)
      throw new UsageError(
        `the project ${root} is not in a git repository (${err.message})`,
        "run vap bisect in a clone of the repository that holds the project; `vap agents bisect` searches the platform's versions instead",
      );
    throw err;
  }
  const [top, prefix = ''] = out.split('\n');
  return { top: top!, prefix };
}

/** A revision's commit id, or a usage error naming it. */
export async function resolveRev(repo: Repo, flag: string, rev: string, signal?: AbortSignal): Promise<string> {
  const r = checkRev(flag, rev);
  try {
    return (await git(repo.top, ['rev-parse', '--verify', '--quiet', `${r}^{commit}`], signal)).trim();
  } catch (err) {
    if (err instanceof GitFailed)
      throw new UsageError(
        `${flag} ${r}: no such commit in this repository`,
        'give a commit, branch or tag that `git log` shows (fetch it first in a shallow clone)',
      );
    throw err;
  }
}

export interface Commit {
  sha: string;
  short: string;
  author: string;
  date: string;
  subject: string;
  /** A merge (more than one parent): reverted with `-m 1`. */
  merge: boolean;
}

const FORMAT = '--format=%H%n%h%n%P%n%an%n%aI%n%s';

function commitsOf(out: string): Commit[] {
  return out
    .split('\0')
    .filter((r) => r.trim())
    .map((r) => {
      const [sha, short, parents, author, date, subject] = r.replace(/^\n/, '').split('\n');
      return { sha: sha!, short: short!, author: author ?? '', date: date ?? '', subject: subject ?? '', merge: (parents ?? '').trim().split(' ').length > 1 };
    });
}

/** The good commit, then the commits after it up to bad that touched `path` (first parent, oldest first). */
export async function historyOf(
  repo: Repo,
  path: string,
  good: { rev: string; sha: string },
  bad: { rev: string; sha: string },
  signal?: AbortSignal,
): Promise<Commit[]> {
  if (good.sha === bad.sha)
    throw new UsageError(
      `--good ${good.rev} and --bad ${bad.rev} are the same commit`,
      'give the last commit known good as --good and a later, bad one as --bad',
    );
  try {
    await git(repo.top, ['merge-base', '--is-ancestor', good.sha, bad.sha], signal);
  } catch (err) {
    if (err instanceof GitFailed && err.code === 1)
      throw new UsageError(`--good ${good.rev} is not an ancestor of --bad ${bad.rev}`, 'give as --good a commit in the history of --bad (swapped them?)');
    throw err;
  }
  const [first] = commitsOf(await git(repo.top, ['log', '-z', '-1', FORMAT, good.sha, '--'], signal));
  const after = commitsOf(await git(repo.top, ['log', '-z', '--first-parent', '--reverse', FORMAT, `${good.sha}..${bad.sha}`, '--', path], signal));
  if (!after.length)
    throw new UsageError(`no commit after ${good.rev} up to ${bad.rev} touched ${path}`, 'widen the range: an earlier --good, or a later --bad');
  if (after.length > MAX_COMMITS)
    throw new UsageError(
      `${after.length} commits after ${good.rev} up to ${bad.rev} touched ${path}; vap bisect reads at most ${MAX_COMMITS}`,
      'narrow the range: a later --good, or an earlier --bad',
    );
  return [first!, ...after];
}

export interface TreeFile {
  path: string;
  blob: string;
  size: number;
  /** A regular file (not a link, not a submodule). */
  regular: boolean;
}

/** The files under `dir` at a commit, with their blob ids and sizes. */
export async function filesAt(repo: Repo, sha: string, dir: string, signal?: AbortSignal): Promise<TreeFile[]> {
  const out = await git(repo.top, ['ls-tree', '-r', '-z', '--long', '--full-tree', sha, '--', dir], signal);
  const files: TreeFile[] = [];
  for (const entry of out.split('\0')) {
    const m = /^(\d+) (\w+) ([0-9a-f]+) +(\d+|-)\t(.*)$/s.exec(entry);
    if (!m) continue;
    files.push({ path: m[5]!, blob: m[3]!, size: m[4] === '-' ? 0 : Number(m[4]), regular: m[2] === 'blob' && (m[1] === '100644' || m[1] === '100755') });
  }
  return files;
}

/** A blob's text (read once per id). */
export function blobReader(repo: Repo, signal?: AbortSignal): (blob: string) => Promise<string> {
  const seen = new Map<string, Promise<string>>();
  return (blob) => {
    let p = seen.get(blob);
    if (!p) seen.set(blob, (p = git(repo.top, ['cat-file', 'blob', blob], signal)));
    return p;
  };
}
