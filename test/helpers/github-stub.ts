import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A stub of the part of GitHub's REST API that `vap github comment` uses (it is GitHub's
// API, not ours, so a stub is the right test double): GET /user, a pull request's issue
// comments (listed by pages with a Link header, as GitHub pages them), creating one, and
// editing one. It serves under a path prefix, as GitHub Enterprise Server does (/api/v3),
// so that a test can see GITHUB_API_URL honoured, and records every request. A test can
// arm a redirect (3xx with a Location) for the next request of a method and path.

export interface StubComment {
  id: number;
  body: string;
  user: { login: string; type: string };
  html_url: string;
  created_at: string;
  updated_at: string;
}

export interface StubRequest {
  method: string;
  path: string;
  authorization?: string;
  accept?: string;
  apiVersion?: string;
  body?: unknown;
}

/** Who each token is: a user (GET /user answers with the login), the Actions token (403 on GET /user), or refused (401). */
export const TOKENS: Record<string, { login: string; actions?: boolean }> = {
  'user-token': { login: 'vap-ci' },
  'actions-token': { login: 'github-actions[bot]', actions: true },
  'read-only-token': { login: 'reader' },
};

export interface GitHubStub {
  /** The API URL to give as GITHUB_API_URL (with its /api/v3 prefix). */
  apiUrl: string;
  requests: StubRequest[];
  /** Comments per `owner/repo#number`. */
  comments: Map<string, StubComment[]>;
  add(repo: string, number: number, login: string, body: string): StubComment;
  list(repo: string, number: number): StubComment[];
  /** The next `method` request whose path (after the prefix, without the query) is `path` is answered `status` with `location`. */
  redirect(r: { method: string; path: string; status: number; location: string }): void;
  close(): Promise<void>;
}

export async function startGitHubStub(opts: { prefix?: string } = {}): Promise<GitHubStub> {
  const prefix = opts.prefix ?? '/api/v3';
  const requests: StubRequest[] = [];
  const comments = new Map<string, StubComment[]>();
  let nextId = 1000;
  let origin = '';
  const redirects: Array<{ method: string; path: string; status: number; location: string }> = [];
  const add = (repo: string, number: number, login: string, body: string): StubComment => {
    const key = `${repo}#${number}`;
    const id = nextId++;
    const now = new Date(Date.UTC(2025, 5, 1, 10, 0, id % 60)).toISOString();
    const c: StubComment = {
      id,
      body,
      user: { login, type: login.endsWith('[bot]') ? 'Bot' : 'User' },
      html_url: `https://github.example/${repo}/pull/${number}#issuecomment-${id}`,
      created_at: now,
      updated_at: now,
    };
    comments.set(key, [...(comments.get(key) ?? []), c]);
    return c;
  };
  const send = (res: ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(data));
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const body = raw ? (JSON.parse(raw) as unknown) : undefined;
      requests.push({
        method: req.method ?? '',
        path: url.pathname + url.search,
        authorization: req.headers.authorization,
        accept: req.headers.accept,
        apiVersion: req.headers['x-github-api-version'] as string | undefined,
        body,
      });
      if (!url.pathname.startsWith(`${prefix}/`)) return send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
      const path = url.pathname.slice(prefix.length);
      const r = redirects.findIndex((x) => x.method === req.method && x.path === path);
      if (r >= 0) {
        const [{ status, location }] = redirects.splice(r, 1) as [(typeof redirects)[number]];
        return send(
          res,
          status,
          {
            message: status === 301 ? 'Moved Permanently' : 'Found',
            url: location,
            documentation_url: 'https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects',
          },
          { location },
        );
      }
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const who = TOKENS[token];
      if (!who) return send(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
      if (req.method === 'GET' && path === '/user') {
        if (who.actions)
          return send(res, 403, {
            message: 'Resource not accessible by integration',
            documentation_url: 'https://docs.github.com/rest/users/users#get-the-authenticated-user',
          });
        return send(res, 200, { login: who.login, id: 1, type: 'User' });
      }
      let m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(path);
      if (m) {
        const repo = `${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}`;
        if (repo !== 'octo/agents') return send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/issues/comments' });
        const number = Number(m[3]);
        if (req.method === 'GET') {
          const all = comments.get(`${repo}#${number}`) ?? [];
          const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
          const page = Number(url.searchParams.get('page') ?? 1);
          const last = Math.max(1, Math.ceil(all.length / perPage));
          const link = (p: number, rel: string) => `<${origin}${prefix}${path}?per_page=${perPage}&page=${p}>; rel="${rel}"`;
          const links = page < last ? [link(page + 1, 'next'), link(last, 'last')] : [];
          if (page > 1) links.unshift(link(1, 'first'), link(page - 1, 'prev'));
          return send(res, 200, all.slice((page - 1) * perPage, page * perPage), links.length ? { link: links.join(', ') } : {});
        }
        if (req.method === 'POST') {
          if (token === 'read-only-token')
            return send(
              res,
              403,
              { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com/rest/issues/comments#create-an-issue-comment' },
              { 'x-accepted-github-permissions': 'issues=write; pull_requests=write' },
            );
          const text = (body as { body?: unknown } | undefined)?.body;
          if (typeof text !== 'string' || text.length > 65_536)
            return send(res, 422, {
              message: 'Validation Failed',
              errors: [{ resource: 'IssueComment', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' }],
            });
          return send(res, 201, add(repo, number, who.login, text));
        }
      }
      m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(path);
      if (m && req.method === 'PATCH') {
        const id = Number(m[3]);
        const c = [...comments.values()].flat().find((x) => x.id === id);
        if (!c) return send(res, 404, { message: 'Not Found' });
        // The stub lets a token edit only its own user's comments (GitHub lets maintainers edit others': vap must never try).
        if (c.user.login !== who.login) return send(res, 403, { message: 'Must have admin rights to Repository.' });
        const text = (body as { body?: unknown } | undefined)?.body;
        if (typeof text !== 'string' || text.length > 65_536) return send(res, 422, { message: 'Validation Failed' });
        c.body = text;
        c.updated_at = new Date().toISOString();
        return send(res, 200, c);
      }
      return send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${origin}${prefix}`,
    requests,
    comments,
    add,
    list: (repo, number) => comments.get(`${repo}#${number}`) ?? [],
    redirect: (r) => void redirects.push(r),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
