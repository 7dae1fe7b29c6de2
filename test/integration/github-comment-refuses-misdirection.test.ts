import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_FILE_LIMIT } from '../../src/github/target.js';
import { startGitHubStub, type GitHubStub } from '../helpers/github-stub.js';
import { runCli } from '../helpers/run-cli.js';

// `vap github comment` sends its token only where it was asked to, against the stub of
// GitHub's REST API (test/helpers/github-stub.ts): a repository whose owner or name is `.` or
// `..` (which a URL would resolve away, to another endpoint) is refused before anything is
// sent; a redirect is an error naming where it pointed, never followed, never a success;
// and the event file is read only when it is a regular file within the limit.

const REPO = 'octo/agents';
const MARKER = '<!-- vap-evals suite=ev_123 -->';

let gh: GitHubStub;
let dir: string;
let file: string;
let pr = 100;
let event: string;

beforeAll(async () => {
  gh = await startGitHubStub();
  dir = mkdtempSync(join(tmpdir(), 'vap-gh-misdirect-'));
  file = join(dir, 'evals.md');
  writeFileSync(file, `${MARKER}\n### Eval run #1: passed\n`);
});
afterAll(async () => {
  await gh?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  pr++;
  event = join(dir, `event-${pr}.json`);
  writeFileSync(event, JSON.stringify({ number: pr, pull_request: { number: pr }, repository: { full_name: REPO } }));
});

const env = (extra: Record<string, string> = {}) => ({
  GITHUB_API_URL: gh.apiUrl,
  GITHUB_TOKEN: 'user-token',
  GITHUB_REPOSITORY: REPO,
  GITHUB_EVENT_PATH: event,
  ...extra,
});
const vap = (argv: string[], e: Record<string, string>) => runCli(['github', 'comment', file, ...argv], { env: e });
/** The stub's origin: a redirect's target outside its API prefix. */
const origin = () => new URL(gh.apiUrl).origin;

describe('vap github comment refuses what would send its token elsewhere', () => {
  it('a repository whose owner or name is . or .. (from --repo, GITHUB_REPOSITORY or the event): exit 2 naming it, nothing sent', async () => {
    const asked = gh.requests.length;
    const cases: Array<[Record<string, string>, string[], string]> = [
      [env(), ['--repo', 'o/..'], 'error: --repo "o/..": the repository name ".." is not a name (a path would resolve it away); pass --repo octo-org/agents\n'],
      [env(), ['--repo', '../r'], 'error: --repo "../r": the owner ".." is not a name (a path would resolve it away); pass --repo octo-org/agents\n'],
      [
        env({ GITHUB_REPOSITORY: 'octo/.' }),
        [],
        'error: GITHUB_REPOSITORY "octo/.": the repository name "." is not a name (a path would resolve it away); pass --repo octo-org/agents\n',
      ],
      [
        env({ GITHUB_REPOSITORY: 'octo/a%2Fb' }),
        [],
        'error: GITHUB_REPOSITORY "octo/a%2Fb": the repository name "a%2Fb" is not a GitHub name (1 to 100 letters, digits, ., _ and -); pass --repo octo-org/agents\n',
      ],
      [
        env({ GITHUB_REPOSITORY: 'octo/agents/issues' }),
        [],
        'error: GITHUB_REPOSITORY "octo/agents/issues" is not a repository as owner/name; pass --repo octo-org/agents\n',
      ],
    ];
    for (const [e, argv, stderr] of cases) {
      const r = await vap(argv, e);
      expect([r.code, r.stderr, r.stdout]).toEqual([2, stderr, '']);
    }
    writeFileSync(event, JSON.stringify({ pull_request: { number: pr }, repository: { full_name: '../agents' } }));
    const fromEvent = await vap([], env({ GITHUB_REPOSITORY: '' }));
    expect([fromEvent.code, fromEvent.stderr]).toEqual([
      2,
      'error: the event "../agents": the owner ".." is not a name (a path would resolve it away); pass --repo octo-org/agents\n',
    ]);
    expect(gh.requests.slice(asked)).toEqual([]);
    // Names GitHub has (an Enterprise Managed User's underscore, dots) are asked for: the stub knows only octo/agents.
    const r = await vap(['--repo', 'octo_acme/agents.v2'], env());
    expect([r.code, r.stderr]).toEqual([
      1,
      `error: could not list the comments of pull request #${pr} of octo_acme/agents.v2: not found (GitHub answered 404: Not Found); check the repository octo_acme/agents.v2 (--repo, GITHUB_REPOSITORY) and the pull request #${pr} (--pr), and that the token can see them\n`,
    ]);
    expect(gh.requests.at(-1)!.path).toBe(`/api/v3/repos/octo_acme/agents.v2/issues/${pr}/comments?per_page=100`);
  });

  for (const status of [301, 302, 307]) {
    it(`a ${status} on the listing of comments is an error naming its Location; nothing follows it, no comment is posted`, async () => {
      const path = `/repos/octo/agents/issues/${pr}/comments`;
      const location = `${origin()}/elsewhere${path}`;
      gh.redirect({ method: 'GET', path, status, location });
      const asked = gh.requests.length;
      const r = await vap(['--json'], env());
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `error: could not list the comments of pull request #${pr} of ${REPO}: GitHub redirected to ${location} (GitHub answered ${status}: ${status === 301 ? 'Moved Permanently' : 'Found'}); a redirect is not followed, the token never goes with one; check GITHUB_API_URL, and --repo or GITHUB_REPOSITORY: a renamed or moved repository answers 301, pass its new owner/name\n`,
      );
      const sent = gh.requests.slice(asked);
      expect(sent.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/v3/user', `GET /api/v3${path}?per_page=100`]);
      expect(gh.requests.filter((q) => q.path.startsWith('/elsewhere'))).toEqual([]);
      expect(gh.list(REPO, pr)).toEqual([]);
    });

    it(`a ${status} on the edit of the comment is an error naming its Location, not "updated"`, async () => {
      const own = gh.add(REPO, pr, 'vap-ci', `${MARKER}\nold report`);
      const path = `/repos/octo/agents/issues/comments/${own.id}`;
      // A Location relative to the request is named whole.
      gh.redirect({ method: 'PATCH', path, status, location: `/elsewhere${path}` });
      const r = await vap(['--json'], env());
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(
        `error: could not edit comment ${own.id} on pull request #${pr} of ${REPO}: GitHub redirected to ${origin()}/elsewhere${path} (GitHub answered ${status}: `,
      );
      expect(gh.requests.filter((q) => q.path.startsWith('/elsewhere'))).toEqual([]);
      expect(own.body).toBe(`${MARKER}\nold report`);
      expect(gh.list(REPO, pr)).toHaveLength(1);
    });
  }

  it('a redirect of GET /user is an error too, not a login', async () => {
    gh.redirect({ method: 'GET', path: '/user', status: 301, location: `${origin()}/elsewhere/user` });
    const r = await vap([], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: could not read the token's user \(GET \/user\): GitHub redirected to http:\/\/127\.0\.0\.1:\d+\/elsewhere\/user \(GitHub answered 301: Moved Permanently\)/,
    );
    expect(gh.list(REPO, pr)).toEqual([]);
  });
});

describe('the event file (GITHUB_EVENT_PATH) is read only when it is a regular file of at most 25 MiB', () => {
  const refused = (path: string, why: string) =>
    `error: the event at GITHUB_EVENT_PATH (${path}) ${why}; run this in a GitHub Actions step, or pass --pr <number> and --repo <owner/name>\n`;

  it('one byte over the limit is refused, nothing sent; at the limit it is read', async () => {
    const big = join(dir, 'big-event.json');
    writeFileSync(big, '');
    truncateSync(big, EVENT_FILE_LIMIT + 1);
    const asked = gh.requests.length;
    const r = await vap([], env({ GITHUB_EVENT_PATH: big }));
    expect([r.code, r.stderr]).toEqual([2, refused(big, "is larger than 25 MiB, the most vap reads of an event (GitHub's stay under 25 MB)")]);
    expect(gh.requests.slice(asked)).toEqual([]);
    // At the limit exactly, the file is read (a JSON event padded with spaces).
    const json = JSON.stringify({ pull_request: { number: pr } });
    writeFileSync(big, json + ' '.repeat(EVENT_FILE_LIMIT - json.length));
    const ok = await vap(['--json'], env({ GITHUB_EVENT_PATH: big }));
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ action: 'created' });
  });

  it('/dev/zero and a FIFO with no writer are refused at once, not read or waited on', async () => {
    const zero = await vap([], env({ GITHUB_EVENT_PATH: '/dev/zero' }));
    expect([zero.code, zero.stderr]).toEqual([2, refused('/dev/zero', 'is not a regular file')]);
    const fifo = join(dir, 'event.fifo');
    execFileSync('mkfifo', [fifo]);
    const r = await vap([], env({ GITHUB_EVENT_PATH: fifo }));
    expect([r.code, r.stderr]).toEqual([2, refused(fifo, 'is not a regular file')]);
    const dirEvent = await vap([], env({ GITHUB_EVENT_PATH: dir }));
    expect([dirEvent.code, dirEvent.stderr]).toEqual([2, refused(dir, 'is not a regular file')]);
  });
});
