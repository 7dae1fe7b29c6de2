import { CliError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { GitHubConnectionError, GitHubHttpError, type GitHubClient } from './client.js';
import { GITHUB_COMMENT_LIMIT } from './limits.js';
import { repoPath, type PullRequestTarget } from './target.js';

/**
 * One pull-request comment per marker, kept up to date: the token's own comment whose first line
 * is the marker is edited in place, else one is created. Nobody else's comment is ever edited, so
 * that a marker pasted into it is not taken over.
 */

export { GITHUB_COMMENT_LIMIT };

/** Who the Actions token (GITHUB_TOKEN of a workflow) writes comments as; it cannot read GET /user. */
export const ACTIONS_BOT = 'github-actions[bot]';

/** A marker line: one HTML comment, hidden when GitHub renders the Markdown. */
const MARKER_LINE = /^<!--[ \t]*([^\s](?:(?!--)[^\r\n])*?)[ \t]*-->$/;

export interface CommentResult {
  action: 'created' | 'updated';
  id: number;
  url: string;
}

interface IssueComment {
  id: number;
  body?: string | null;
  html_url?: string;
  user?: { login?: string } | null;
}

/** The first line of a body (GitHub may hand bodies back with CRLF). */
function firstLine(body: string): string {
  const end = body.search(/\r?\n/);
  return end < 0 ? body : body.slice(0, end);
}

/** The marker on a body's first line, if that line is one HTML comment (`<!-- vap-evals suite=ev_123 -->`). */
export function markerOf(body: string): string | undefined {
  const line = firstLine(body.replace(/^\uFEFF/, '')).trim();
  return MARKER_LINE.test(line) ? line : undefined;
}

/** `--marker <name>` as its line: `<!-- name -->`. A name that would end the comment early is refused. */
export function markerLine(name: string): string {
  const n = name.trim();
  const line = `<!-- ${n} -->`;
  if (!n || n.includes('--') || /[\r\n>]/.test(n) || !MARKER_LINE.test(line))
    throw new UsageError(`--marker "${name}" cannot be a hidden marker`, 'use letters, digits and = . : / _ (e.g. --marker vap-plan)');
  return line;
}

/**
 * The body as posted: `marker` as its first line (added when missing), cut at a line, saying so,
 * when over GitHub's limit (vap's report fits itself; a hand-written file may not). Counted in
 * UTF-16 units, never fewer than GitHub's characters.
 */
export function commentBody(text: string, marker: string, limit = GITHUB_COMMENT_LIMIT): { body: string; cut: boolean } {
  const clean = text.replace(/^\uFEFF/, '');
  let body = markerOf(clean) === marker ? clean : `${marker}\n${clean}`;
  if (body.length <= limit) return { body, cut: false };
  const note = `\n\n_This comment was cut to fit GitHub's ${limit.toLocaleString('en-US')}-character limit._\n`;
  let end = body.lastIndexOf('\n', limit - note.length);
  if (end <= marker.length) end = limit - note.length;
  // Never between the two halves of a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(body.charAt(end - 1))) end--;
  body = `${body.slice(0, end)}${note}`;
  return { body, cut: true };
}

/** Who the token writes as: GET /user's login, or github-actions[bot] when the token may not read it (403, as the Actions token). */
export async function tokenAuthor(gh: GitHubClient): Promise<{ login: string; how: 'user' | 'actions' }> {
  try {
    const res = await gh.request<{ login?: unknown }>('GET', '/user');
    if (typeof res.data?.login === 'string' && res.data.login) return { login: res.data.login, how: 'user' };
    throw new CliError('GitHub answered GET /user without a login', ExitCode.FAILURE, 'pass --author <login>: the user the token writes comments as');
  } catch (err) {
    if (err instanceof GitHubHttpError && err.status === 403 && !err.rateLimited) return { login: ACTIONS_BOT, how: 'actions' };
    throw explain(err, "read the token's user (GET /user)");
  }
}

/** Creates the comment, or edits the token author's comment that carries the marker. */
export async function upsertComment(
  gh: GitHubClient,
  target: PullRequestTarget,
  marker: string,
  body: string,
  author: string,
  warn: (message: string) => void = () => undefined,
): Promise<CommentResult> {
  const base = `${repoPath(target)}/issues`;
  const where = `pull request #${target.number} of ${target.owner}/${target.repo}`;
  const mine: IssueComment[] = [];
  let others = 0;
  try {
    for await (const page of gh.pages<IssueComment>(`${base}/${target.number}/comments`)) {
      for (const c of page) {
        if (typeof c?.body !== 'string' || markerOf(c.body) !== marker) continue;
        if (sameLogin(c.user?.login, author)) mine.push(c);
        else others++;
      }
    }
  } catch (err) {
    throw explain(err, `list the comments of ${where}`, target);
  }
  if (others) warn(`${others} comment${others === 1 ? '' : 's'} by another author carr${others === 1 ? 'ies' : 'y'} the marker ${marker}; left alone`);
  if (mine.length > 1) warn(`${mine.length} comments by ${author} carry the marker ${marker}; the oldest is updated, the others are left alone`);
  try {
    if (mine[0]) {
      const res = await gh.request<IssueComment>('PATCH', `${base}/comments/${mine[0].id}`, { body });
      return { action: 'updated', id: res.data?.id ?? mine[0].id, url: res.data?.html_url ?? mine[0].html_url ?? '' };
    }
    const res = await gh.request<IssueComment>('POST', `${base}/${target.number}/comments`, { body });
    if (typeof res.data?.id !== 'number') throw new CliError(`GitHub answered ${res.status} to the new comment on ${where} without its id`);
    return { action: 'created', id: res.data.id, url: res.data.html_url ?? '' };
  } catch (err) {
    throw explain(err, mine[0] ? `edit comment ${mine[0].id} on ${where}` : `comment on ${where}`, target);
  }
}

/** GitHub logins are case-insensitive. */
function sameLogin(a: string | undefined, b: string): boolean {
  return typeof a === 'string' && a.toLowerCase() === b.toLowerCase();
}

/** A GitHub error as one line that names the problem and the fix. */
export function explain(err: unknown, doing: string, target?: PullRequestTarget): unknown {
  if (err instanceof GitHubConnectionError)
    return new CliError(`could not ${doing}: ${err.message}`, ExitCode.FAILURE, 'check GITHUB_API_URL and the network, then run the step again');
  if (!(err instanceof GitHubHttpError)) return err;
  const said = `GitHub answered ${err.status}: ${err.message}`;
  if (err.status >= 300 && err.status < 400) {
    const to = err.location ? `to ${err.location}` : 'without a Location';
    return new CliError(
      `could not ${doing}: GitHub redirected ${to} (${said}); a redirect is not followed, the token never goes with one`,
      ExitCode.FAILURE,
      'check GITHUB_API_URL, and --repo or GITHUB_REPOSITORY: a renamed or moved repository answers 301, pass its new owner/name',
    );
  }
  if (err.rateLimited) return new CliError(`could not ${doing}: rate limited (${said})`, ExitCode.FAILURE, 'run the step again later');
  switch (err.status) {
    case 401:
      return new CliError(`GitHub refused the token (${said})`, ExitCode.AUTH, 'check GITHUB_TOKEN: pass ${{ github.token }} or a token that has not expired');
    case 403: {
      const needs = err.acceptedPermissions ? ` (the endpoint needs ${err.acceptedPermissions})` : '';
      return new CliError(
        `the token may not ${doing} (${said})${needs}`,
        ExitCode.AUTH,
        'give the job permissions: pull-requests: write (a pull request from a fork gets a read-only token)',
      );
    }
    case 404:
      return new CliError(
        `could not ${doing}: not found (${said})`,
        ExitCode.FAILURE,
        target
          ? `check the repository ${target.owner}/${target.repo} (--repo, GITHUB_REPOSITORY) and the pull request #${target.number} (--pr), and that the token can see them`
          : 'check GITHUB_API_URL',
      );
    case 410:
      return new CliError(`could not ${doing}: ${said}`, ExitCode.FAILURE, "the repository's issues and pull requests may be disabled");
    case 422:
      return new CliError(`GitHub refused the comment (${said})`, ExitCode.FAILURE, 'check the file: GitHub takes at most 65,536 characters');
    default:
      return new CliError(`could not ${doing} (${said})`, ExitCode.FAILURE, 'run the step again');
  }
}
