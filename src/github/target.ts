import { constants as fsConstants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Env } from '../context.js';
import { AuthRequiredError, UsageError } from '../errors.js';

/**
 * Where a pull-request comment goes, from the flags, else what GitHub Actions puts in the
 * environment: repository (GITHUB_REPOSITORY, else the event's), pull request (the event at
 * GITHUB_EVENT_PATH), token (GITHUB_TOKEN, else GH_TOKEN) and API (GITHUB_API_URL).
 */

export interface PullRequestTarget {
  owner: string;
  repo: string;
  number: number;
}

export const DEFAULT_API_URL = 'https://api.github.com';

/** One segment of a repository's path: GitHub's letters, digits, `.`, `_` and `-`. `.` and `..` are checked apart. */
const SEGMENT = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * The most of GITHUB_EVENT_PATH that is read: GitHub's event payloads stay under 25 MB, and
 * a file larger than this (or a FIFO, a device) is not the event GitHub wrote.
 */
export const EVENT_FILE_LIMIT = 25 * 1024 * 1024;

/** The event GitHub Actions wrote to GITHUB_EVENT_PATH: only what is read of it. */
interface EventPayload {
  number?: unknown;
  pull_request?: { number?: unknown };
  issue?: { number?: unknown; pull_request?: unknown };
  repository?: { full_name?: unknown };
}

export async function pullRequestTarget(opts: { repo?: string; pr?: string }, env: Env): Promise<PullRequestTarget> {
  let event: EventPayload | undefined;
  const eventPath = env.GITHUB_EVENT_PATH;
  const readEvent = async (): Promise<EventPayload | undefined> => {
    if (!eventPath) return undefined;
    const text = await readEventFile(eventPath);
    try {
      return JSON.parse(text) as EventPayload;
    } catch {
      throw new UsageError(`the event at GITHUB_EVENT_PATH (${eventPath}) is not JSON`, 'pass --pr <number> and --repo <owner/name>');
    }
  };

  let number: number;
  if (opts.pr !== undefined) {
    if (!/^\s*#?\d+\s*$/.test(opts.pr) || Number(opts.pr.replace('#', '')) < 1)
      throw new UsageError(`--pr "${opts.pr}" is not a pull request number`, 'pass --pr 42');
    number = Number(opts.pr.trim().replace('#', ''));
  } else {
    event = await readEvent();
    const found = event ? eventPullRequest(event) : undefined;
    if (found === undefined) {
      const name = env.GITHUB_EVENT_NAME;
      throw new UsageError(
        event ? `no pull request in this workflow's event${name ? ` (${name})` : ''}` : 'no pull request to comment on: GITHUB_EVENT_PATH is not set',
        event
          ? "run this step on pull_request events (if: github.event_name == 'pull_request'), or pass --pr <number>"
          : 'run it in a GitHub Actions job of a pull_request event, or pass --pr <number> and --repo <owner/name>',
      );
    }
    number = found;
  }

  let full = opts.repo ?? env.GITHUB_REPOSITORY;
  let source = opts.repo !== undefined ? '--repo' : 'GITHUB_REPOSITORY';
  if (!full) {
    event ??= await readEvent();
    const fromEvent = event?.repository?.full_name;
    if (typeof fromEvent === 'string') {
      full = fromEvent;
      source = 'the event';
    }
  }
  if (!full) throw new UsageError('no repository to comment in: GITHUB_REPOSITORY is not set', 'pass --repo <owner/name>');
  const parts = full.trim().split('/');
  if (parts.length !== 2) throw new UsageError(`${source} "${full}" is not a repository as owner/name`, 'pass --repo octo-org/agents');
  const [owner, repo] = parts as [string, string];
  for (const [what, name] of [
    ['owner', owner],
    ['repository name', repo],
  ] as const) {
    const problem = segmentProblem(name);
    if (problem) throw new UsageError(`${source} "${full}": the ${what} "${name}" ${problem}`, 'pass --repo octo-org/agents');
  }
  return { owner, repo, number };
}

/** Why a name cannot be one segment of a repository's path (owner or name), or undefined. */
function segmentProblem(name: string): string | undefined {
  if (name === '.' || name === '..') return 'is not a name (a path would resolve it away)';
  if (!SEGMENT.test(name)) return 'is not a GitHub name (1 to 100 letters, digits, ., _ and -)';
  return undefined;
}

/**
 * `/repos/{owner}/{repo}` of a target, checked again where the path is made: a segment that
 * is `.`, `..` or holds a `/` would take the request (and its token) to another endpoint.
 */
export function repoPath(target: PullRequestTarget): string {
  for (const name of [target.owner, target.repo]) {
    const problem = segmentProblem(name);
    if (problem) throw new UsageError(`"${target.owner}/${target.repo}": "${name}" ${problem}`, 'pass --repo octo-org/agents');
  }
  return `/repos/${target.owner}/${target.repo}`;
}

/**
 * The text of the event file, read only when it is a regular file of at most EVENT_FILE_LIMIT
 * bytes, and never further: opened without waiting (a FIFO has no writer), its type and size
 * asked of the open file, and a file that grows while read is cut off past the limit.
 */
async function readEventFile(path: string): Promise<string> {
  const refuse = (why: string) =>
    new UsageError(`the event at GITHUB_EVENT_PATH (${path}) ${why}`, 'run this in a GitHub Actions step, or pass --pr <number> and --repo <owner/name>');
  let fh;
  try {
    fh = await open(path, fsConstants.O_RDONLY | (O_NONBLOCK ?? 0));
  } catch (err) {
    throw new UsageError(
      `cannot read the event GITHUB_EVENT_PATH names (${path}): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      'run this in a GitHub Actions step, or pass --pr <number> and --repo <owner/name>',
    );
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw refuse('is not a regular file');
    const tooLarge = refuse(`is larger than ${EVENT_FILE_LIMIT / 1024 / 1024} MiB, the most vap reads of an event (GitHub's stay under 25 MB)`);
    if (st.size > EVENT_FILE_LIMIT) throw tooLarge;
    // Its size and one byte more: a file that has grown is read on (into a larger buffer) up to the limit.
    let buf = Buffer.allocUnsafe(st.size + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (n > EVENT_FILE_LIMIT) throw tooLarge;
        const more = Buffer.allocUnsafe(Math.min(buf.length * 2, EVENT_FILE_LIMIT + 1));
        buf.copy(more, 0, 0, n);
        buf = more;
      }
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    return buf.toString('utf8', 0, n);
  } finally {
    await fh.close();
  }
}

const O_NONBLOCK: number | undefined = (fsConstants as { O_NONBLOCK?: number }).O_NONBLOCK;

/** The pull request's number in an event: pull_request (and _target, _review, _review_comment), or an issue_comment on a pull request. */
function eventPullRequest(e: EventPayload): number | undefined {
  const n = e.pull_request?.number ?? (e.issue?.pull_request ? e.issue.number : undefined);
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** GITHUB_TOKEN (or GH_TOKEN, as the gh CLI reads it): exit 4 without one. */
export function githubToken(env: Env): string {
  const token = (env.GITHUB_TOKEN || env.GH_TOKEN || '').trim();
  if (!token)
    throw new AuthRequiredError(
      'no GitHub token: GITHUB_TOKEN is not set',
      "pass the job's token to the step: env: { GITHUB_TOKEN: ${{ github.token }} } (with permissions: pull-requests: write)",
    );
  return token;
}

/** GITHUB_API_URL, checked: an http(s) URL (GitHub Enterprise Server's ends in /api/v3). */
export function githubApiUrl(env: Env): string {
  const raw = (env.GITHUB_API_URL || DEFAULT_API_URL).trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`GITHUB_API_URL "${raw}" is not a URL`, `unset it for ${DEFAULT_API_URL}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`GITHUB_API_URL "${raw}" is not an http(s) URL`, `unset it for ${DEFAULT_API_URL}`);
  if (url.search || url.hash || url.username || url.password)
    throw new UsageError(`GITHUB_API_URL "${raw}" has a query, fragment or credentials`, "give the API's base URL only");
  return url.toString().replace(/\/+$/, '');
}
