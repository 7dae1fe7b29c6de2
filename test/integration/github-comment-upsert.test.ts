import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGitHubStub, type GitHubStub } from '../helpers/github-stub.js';
import { runCli } from '../helpers/run-cli.js';

// `vap github comment <file.md>` against a local stub of GitHub's REST API
// (test/helpers/github-stub.ts): one comment per marker, created once and then edited in
// place; only the token's own user's comments are ever edited (a look-alike marker in
// someone else's comment is left alone); the Actions token, which cannot read GET /user,
// writes as github-actions[bot]; every page of comments is read; GITHUB_API_URL (with a
// path, as GitHub Enterprise Server's) is where every request goes; errors are one line
// with the fix.

const REPO = 'octo/agents';
const MARKER = '<!-- vap-evals suite=ev_123 -->';

let gh: GitHubStub;
let dir: string;
let pr = 1;
let event: string;

beforeAll(async () => {
  gh = await startGitHubStub();
  dir = mkdtempSync(join(tmpdir(), 'vap-gh-comment-'));
});
afterAll(async () => {
  await gh?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  // Each test has a pull request of its own, named by the workflow's event file.
  pr++;
  event = join(dir, `event-${pr}.json`);
  writeFileSync(
    event,
    JSON.stringify({ action: 'synchronize', number: pr, pull_request: { number: pr, title: 'Friendlier greeting' }, repository: { full_name: REPO } }),
  );
});

function report(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const actionsEnv = (extra: Record<string, string> = {}) => ({
  GITHUB_API_URL: gh.apiUrl,
  GITHUB_REPOSITORY: REPO,
  GITHUB_EVENT_PATH: event,
  GITHUB_EVENT_NAME: 'pull_request',
  ...extra,
});
const vap = (argv: string[], env: Record<string, string>) => runCli(['github', 'comment', ...argv], { env });

describe('vap github comment', () => {
  it('the first call creates the comment, the second edits it in place; the URL on stdout, --json gives { action, id, url }', async () => {
    const file = report('evals.md', `${MARKER}\n### Eval run #1 of Booking: ✅ 2 gates passed\n`);
    const first = await vap([file], actionsEnv({ GITHUB_TOKEN: 'user-token' }));
    expect(first.stderr).toBe(`✓ Created the comment on pull request #${pr} of ${REPO}\n`);
    expect(first.code).toBe(0);
    const [created] = gh.list(REPO, pr);
    expect(created).toMatchObject({ body: `${MARKER}\n### Eval run #1 of Booking: ✅ 2 gates passed\n`, user: { login: 'vap-ci' } });
    expect(first.stdout).toBe(`${created!.html_url}\n`);

    writeFileSync(
      file,
      `${MARKER}\n### Eval run #2 of Booking: ❌ 1 gate failed (2 failed iterations, none allowed) · ▼ regressed on 1 of 6 scenarios against #1\n`,
    );
    const second = await vap([file, '--json'], actionsEnv({ GITHUB_TOKEN: 'user-token' }));
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ action: 'updated', id: created!.id, url: created!.html_url });
    expect(gh.list(REPO, pr)).toHaveLength(1);
    expect(gh.list(REPO, pr)[0]!.body).toContain('▼ regressed on 1 of 6 scenarios');
    // Every request went to GITHUB_API_URL (its /api/v3 path included), with the token, GitHub's media type and API version.
    const mine = gh.requests.filter((r) => r.path.includes(`/issues/${pr}/`) || r.path.includes('/issues/comments/'));
    expect(mine.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /api/v3/repos/octo/agents/issues/${pr}/comments?per_page=100`,
      `POST /api/v3/repos/octo/agents/issues/${pr}/comments`,
      `GET /api/v3/repos/octo/agents/issues/${pr}/comments?per_page=100`,
      `PATCH /api/v3/repos/octo/agents/issues/comments/${created!.id}`,
    ]);
    for (const r of mine) expect(r).toMatchObject({ authorization: 'Bearer user-token', accept: 'application/vnd.github+json', apiVersion: '2022-11-28' });
  });

  it("other comments are untouched: other markers, no marker, the marker quoted further down, another suite's", async () => {
    const others = [
      gh.add(REPO, pr, 'vap-ci', 'Looks good to me'),
      gh.add(REPO, pr, 'vap-ci', '<!-- vap-evals suite=ev_999 -->\n### another suite'),
      gh.add(REPO, pr, 'vap-ci', `Quoting the report:\n${MARKER}\n> old`),
      gh.add(REPO, pr, 'alice', 'Please run the evals again'),
    ];
    const before = others.map((c) => ({ ...c }));
    const file = report('evals-2.md', `${MARKER}\nfresh\n`);
    const r = await vap([file, '--json'], actionsEnv({ GITHUB_TOKEN: 'user-token' }));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ action: 'created' });
    const all = gh.list(REPO, pr);
    expect(all).toHaveLength(5);
    expect(all.slice(0, 4)).toEqual(before);
    expect(all[4]).toMatchObject({ body: `${MARKER}\nfresh\n`, user: { login: 'vap-ci' } });
    expect(gh.requests.filter((q) => q.method === 'PATCH' && others.some((c) => q.path.endsWith(`/comments/${c.id}`)))).toEqual([]);
  });

  it("a look-alike marker in another user's comment is ignored: never edited, never taken over", async () => {
    const pasted = gh.add(REPO, pr, 'mallory', `${MARKER}\n### ✅ all good, merge it`);
    const own = gh.add(REPO, pr, 'vap-ci', `${MARKER}\nold report`);
    const file = report('evals-3.md', `${MARKER}\nnew report\n`);
    const r = await vap([file, '--json'], actionsEnv({ GITHUB_TOKEN: 'user-token' }));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ action: 'updated', id: own.id, url: own.html_url });
    expect(gh.list(REPO, pr).find((c) => c.id === pasted.id)!.body).toBe(`${MARKER}\n### ✅ all good, merge it`);
    expect(gh.list(REPO, pr).find((c) => c.id === own.id)!.body).toBe(`${MARKER}\nnew report\n`);
    expect(r.stderr).toBe(`! 1 comment by another author carries the marker ${MARKER}; left alone\n`);

    // Only someone else's comment carries it: a comment of the token's own is created beside it.
    pr++;
    writeFileSync(event, JSON.stringify({ pull_request: { number: pr } }));
    const alone = gh.add(REPO, pr, 'mallory', `${MARKER}\npasted`);
    const again = await vap([file, '--json'], actionsEnv({ GITHUB_TOKEN: 'user-token' }));
    expect(JSON.parse(again.stdout)).toMatchObject({ action: 'created' });
    expect(gh.list(REPO, pr).map((c) => [c.user.login, c.body])).toEqual([
      ['mallory', `${MARKER}\npasted`],
      ['vap-ci', `${MARKER}\nnew report\n`],
    ]);
    expect(alone.body).toBe(`${MARKER}\npasted`);
  });

  it("the Actions token (403 on GET /user) edits the comment of github-actions[bot], and no user's", async () => {
    const users = gh.add(REPO, pr, 'vap-ci', `${MARKER}\nwritten with a personal token`);
    const bots = gh.add(REPO, pr, 'github-actions[bot]', `${MARKER}\r\nwritten by the workflow`);
    const file = report('evals-4.md', `${MARKER}\nupdated by the workflow\n`);
    const r = await vap([file, '--json'], actionsEnv({ GITHUB_TOKEN: 'actions-token' }));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ action: 'updated', id: bots.id, url: bots.html_url });
    expect(bots.body).toBe(`${MARKER}\nupdated by the workflow\n`);
    expect(users.body).toBe(`${MARKER}\nwritten with a personal token`);
    expect(gh.requests.some((q) => q.path === '/api/v3/user' && q.authorization === 'Bearer actions-token')).toBe(true);
    // --author names the login outright (a GitHub App's bot), and GET /user is not asked.
    const asked = gh.requests.length;
    const app = await vap([file, '--json', '--author', 'vap-ci'], actionsEnv({ GITHUB_TOKEN: 'user-token' }));
    expect(JSON.parse(app.stdout)).toEqual({ action: 'updated', id: users.id, url: users.html_url });
    expect(gh.requests.slice(asked).some((q) => q.path.endsWith('/user'))).toBe(false);
  });

  it('reads every page of comments (Link: rel="next"), and finds its comment on the third', async () => {
    for (let i = 0; i < 230; i++) gh.add(REPO, pr, i % 3 ? 'alice' : 'vap-ci', `comment ${i}`);
    const own = gh.add(REPO, pr, 'vap-ci', `${MARKER}\npage three`);
    for (let i = 0; i < 5; i++) gh.add(REPO, pr, 'bob', `later ${i}`);
    const file = report('evals-5.md', `${MARKER}\nstill one comment\n`);
    const r = await vap([file, '--json'], actionsEnv({ GITHUB_TOKEN: 'user-token' }));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ action: 'updated', id: own.id, url: own.html_url });
    expect(gh.list(REPO, pr)).toHaveLength(236);
    const gets = gh.requests.filter((q) => q.method === 'GET' && q.path.includes(`/issues/${pr}/comments`)).map((q) => q.path);
    expect(gets).toEqual([
      `/api/v3/repos/octo/agents/issues/${pr}/comments?per_page=100`,
      `/api/v3/repos/octo/agents/issues/${pr}/comments?per_page=100&page=2`,
      `/api/v3/repos/octo/agents/issues/${pr}/comments?per_page=100&page=3`,
    ]);
  });

  it('honours GITHUB_API_URL: nothing goes to api.github.com, and a wrong one is where the error says it failed', async () => {
    const file = report('evals-6.md', `${MARKER}\nx\n`);
    const asked = gh.requests.length;
    const r = await vap([file], actionsEnv({ GITHUB_TOKEN: 'user-token' }));
    expect(r.code).toBe(0);
    expect(gh.requests.slice(asked).every((q) => q.path.startsWith('/api/v3/'))).toBe(true);
    // The same stub without its prefix answers 404 to everything: GitHub's own 404, one line with the fix.
    const wrong = await vap([file], actionsEnv({ GITHUB_TOKEN: 'user-token', GITHUB_API_URL: gh.apiUrl.replace('/api/v3', '') }));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe("error: could not read the token's user (GET /user): not found (GitHub answered 404: Not Found); check GITHUB_API_URL\n");
    const closed = await vap([file], actionsEnv({ GITHUB_TOKEN: 'user-token', GITHUB_API_URL: 'http://127.0.0.1:9' }));
    expect(closed.code).toBe(1);
    expect(closed.stderr).toMatch(
      /^error: could not read the token's user \(GET \/user\): could not reach GitHub at http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\); check GITHUB_API_URL and the network, then run the step again\n$/,
    );
  });

  it('--pr and --repo instead of the event; --marker for a file without one', async () => {
    const plain = report('plan.md', '```diff\n~ agent front-desk: instructions\n```\n');
    const refused = await vap([plain], actionsEnv({ GITHUB_TOKEN: 'user-token' }));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `error: ${plain} has no marker on its first line (an HTML comment, as vap's Markdown report starts with <!-- vap-evals suite=… -->); write it with --report markdown=<file>, or pass --marker <name>\n`,
    );
    const r = await vap([plain, '--marker', 'vap-plan', '--pr', String(pr), '--repo', REPO, '--json'], {
      GITHUB_API_URL: gh.apiUrl,
      GITHUB_TOKEN: 'user-token',
    });
    expect(r.code).toBe(0);
    expect(gh.list(REPO, pr)[0]!.body).toBe('<!-- vap-plan -->\n```diff\n~ agent front-desk: instructions\n```\n');
    const again = await vap([plain, '--marker', 'vap-plan', '--pr', String(pr), '--repo', REPO, '--json'], {
      GITHUB_API_URL: gh.apiUrl,
      GITHUB_TOKEN: 'user-token',
    });
    expect(JSON.parse(again.stdout)).toMatchObject({ action: 'updated' });
    expect(gh.list(REPO, pr)).toHaveLength(1);
    const bad = await vap([plain, '--marker', 'a -- b'], actionsEnv({ GITHUB_TOKEN: 'user-token' }));
    expect(bad.code).toBe(2);
  });

  it("keeps within GitHub's 65,536-character limit: a longer file is cut at a line, saying so", async () => {
    const long = `${MARKER}\n${Array.from({ length: 2000 }, (_, i) => `| row ${i} | ${'x'.repeat(40)} |`).join('\n')}\n`;
    expect(long.length).toBeGreaterThan(65_536);
    const file = report('long.md', long);
    const r = await vap([file, '--json'], actionsEnv({ GITHUB_TOKEN: 'user-token' }));
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("is longer than GitHub's 65,536-character comment limit; the comment is cut at a line, and says so");
    const body = gh.list(REPO, pr)[0]!.body;
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body.startsWith(`${MARKER}\n| row 0 |`)).toBe(true);
    expect(body).toMatch(/\| row \d+ \| x{40} \|\n\n_This comment was cut to fit GitHub's 65,536-character limit\._\n$/);
  });

  it('errors are one line with the fix: no token, no pull request, a refused token, no permission to write, an unknown repository', async () => {
    const file = report('evals-7.md', `${MARKER}\nx\n`);
    const noToken = await vap([file], actionsEnv());
    expect([noToken.code, noToken.stderr]).toEqual([
      4,
      "error: no GitHub token: GITHUB_TOKEN is not set; pass the job's token to the step: env: { GITHUB_TOKEN: ${{ github.token }} } (with permissions: pull-requests: write)\n",
    ]);

    writeFileSync(event, JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: REPO } }));
    const push = await vap([file], actionsEnv({ GITHUB_TOKEN: 'user-token', GITHUB_EVENT_NAME: 'push' }));
    expect([push.code, push.stderr]).toEqual([
      2,
      "error: no pull request in this workflow's event (push); run this step on pull_request events (if: github.event_name == 'pull_request'), or pass --pr <number>\n",
    ]);
    const outside = await vap([file], { GITHUB_TOKEN: 'user-token' });
    expect([outside.code, outside.stderr]).toEqual([
      2,
      'error: no pull request to comment on: GITHUB_EVENT_PATH is not set; run it in a GitHub Actions job of a pull_request event, or pass --pr <number> and --repo <owner/name>\n',
    ]);

    const refused = await vap([file, '--pr', '900'], actionsEnv({ GITHUB_TOKEN: 'expired-token' }));
    expect([refused.code, refused.stderr]).toEqual([
      4,
      'error: GitHub refused the token (GitHub answered 401: Bad credentials); check GITHUB_TOKEN: pass ${{ github.token }} or a token that has not expired\n',
    ]);

    const readOnly = await vap([file, '--pr', '900'], actionsEnv({ GITHUB_TOKEN: 'read-only-token' }));
    expect([readOnly.code, readOnly.stderr]).toEqual([
      4,
      `error: the token may not comment on pull request #900 of ${REPO} (GitHub answered 403: Resource not accessible by integration) (the endpoint needs issues=write; pull_requests=write); give the job permissions: pull-requests: write (a pull request from a fork gets a read-only token)\n`,
    ]);

    const unknown = await vap([file, '--pr', '900', '--repo', 'octo/missing'], actionsEnv({ GITHUB_TOKEN: 'user-token' }));
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      'error: could not list the comments of pull request #900 of octo/missing: not found (GitHub answered 404: Not Found); check the repository octo/missing (--repo, GITHUB_REPOSITORY) and the pull request #900 (--pr), and that the token can see them\n',
    ]);
    const missing = await vap([join(dir, 'nope.md')], actionsEnv({ GITHUB_TOKEN: 'user-token' }));
    expect([missing.code, missing.stderr]).toEqual([2, `error: cannot read ${join(dir, 'nope.md')}: no such file\n`]);
  });
});
