import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { describeFsError } from '../../fs-errors.js';
import { safeText } from '../../ui/safe-text.js';
import { version } from '../../version.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

interface CommentOptions {
  pr?: string;
  repo?: string;
  marker?: string;
  author?: string;
}

export function commentCommand(makeContext: ContextFactory): Command {
  return new Command('comment')
    .description("Create or update this suite's pull-request comment by its hidden marker (GitHub REST API)")
    .argument('<file.md>', "the comment: a Markdown file whose first line is its marker (vap's Markdown report starts with <!-- vap-evals suite=… -->)")
    .option('--pr <number>', "the pull request (default: the one of the workflow's event, from GITHUB_EVENT_PATH)")
    .option('--repo <owner/name>', 'the repository (default: GITHUB_REPOSITORY)')
    .option('--marker <name>', 'identify the comment by <!-- name -->, added as the first line when the file lacks it (for a file with no marker)')
    .option('--author <login>', "the login the token writes comments as (default: GET /user's, or github-actions[bot] when the token cannot read it)")
    .addHelpText(
      'after',
      `
The comment is found by its marker, the file's first line (an HTML comment, hidden
when GitHub renders the Markdown): the one comment on the pull request that starts
with it and was written by the token's own user is edited in place; without one, a
comment is created. Comments by anyone else are never edited, even if they carry the
marker. The token's user is what GET /user names; the Actions token (GITHUB_TOKEN of a
workflow) may not read it and writes as github-actions[bot]. A file without a marker
is refused (exit 2) unless --marker names one. A body longer than GitHub's 65,536
characters is cut at a line, saying so.

Environment: GITHUB_TOKEN (or GH_TOKEN), GITHUB_API_URL (default https://api.github.com),
GITHUB_REPOSITORY, GITHUB_EVENT_PATH: GitHub Actions sets all but the token. The job
needs permissions: pull-requests: write. The event file is read only when it is a
regular file of at most 25 MiB (GitHub's event payloads stay under 25 MB); a larger
one, a FIFO or a device is refused (exit 2) without reading it. The owner and the name
of the repository (--repo, GITHUB_REPOSITORY or the event's) are each one GitHub name:
letters, digits, ., _ and -, not . or .. (exit 2 otherwise). A redirect (3xx) from
GitHub is an error naming where it pointed (exit 1): it is never followed, so the
token never goes with it.

Prints the comment's URL; --json prints { action: created|updated, id, url }.

Examples:
  $ vap evals run ev_123 --agent ag_456 --wait --report markdown=reports/evals.md
  $ vap github comment reports/evals.md
  $ vap github comment plan.md --marker vap-plan
  $ vap github comment reports/evals.md --repo octo-org/agents --pr 42 --json`,
    )
    .action(action<CommentOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(file: string, opts: CommentOptions, ctx: Context): Promise<void> {
  const [{ GitHubClient }, { commentBody, markerLine, markerOf, tokenAuthor, upsertComment }, { githubApiUrl, githubToken, pullRequestTarget }] =
    await Promise.all([import('../../github/client.js'), import('../../github/comment.js'), import('../../github/target.js')]);
  const text = await readText(file);
  const marker = opts.marker !== undefined ? markerLine(opts.marker) : markerOf(text);
  if (!marker) {
    throw new UsageError(
      `${file} has no marker on its first line (an HTML comment, as vap's Markdown report starts with <!-- vap-evals suite=… -->)`,
      'write it with --report markdown=<file>, or pass --marker <name>',
    );
  }
  if (opts.author !== undefined && !/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/.test(opts.author.trim()))
    throw new UsageError(`--author "${opts.author}" is not a GitHub login`, "pass --author github-actions[bot], or a user's login");
  const target = await pullRequestTarget(opts, ctx.env);
  const token = githubToken(ctx.env);
  const { body, cut } = commentBody(text, marker);
  if (cut) await ctx.warn(`${file} is longer than GitHub's 65,536-character comment limit; the comment is cut at a line, and says so`);

  const gh = new GitHubClient({
    apiUrl: githubApiUrl(ctx.env),
    token,
    userAgent: `vap/${version()}`,
    signal: ctx.signal,
    log: ctx.globals.verbose ? (line) => ctx.io.stderr.write(`${safeText(line)}\n`) : undefined,
  });
  try {
    const author = opts.author !== undefined ? opts.author.trim() : (await tokenAuthor(gh)).login;
    const result = await upsertComment(gh, target, marker, body, author, (m) => void ctx.warn(m));
    const g = ctx.globals;
    if (g.json || g.output || g.query) {
      await ctx.out.item(result, {
        fields: [
          { header: 'action', value: (r) => r.action },
          { header: 'id', value: (r) => r.id },
          { header: 'url', value: (r) => r.url },
        ],
        id: (r) => r.url,
      });
    } else {
      ctx.io.stdout.write(`${safeText(result.url)}\n`);
      await ctx.success(
        `${result.action === 'created' ? 'Created' : 'Updated'} the comment on pull request #${target.number} of ${target.owner}/${target.repo}`,
      );
    }
  } finally {
    await gh.close().catch(() => undefined);
  }
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${describeFsError(err)}`);
  }
}
