import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, isInitializeRequest, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { CliError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { safeText } from '../ui/safe-text.js';
import { createServer, timeRequests, type ServerOptions } from './server.js';
import { replyId } from './stdio-transport.js';

/** Only these hosts, in `Host` and `Origin` (any port): a page elsewhere cannot reach the server through DNS rebinding. */
export const LOCAL_HOSTNAMES: readonly string[] = ['127.0.0.1', 'localhost', '[::1]'];

/** The path of the endpoint. */
export const MCP_PATH = '/mcp';

/** The largest request body: the limit of the JSON parser the SDK's Express app puts first (body-parser's default). */
export const MAX_BODY_BYTES = 100 * 1024;

export interface HttpOptions extends ServerOptions {
  port: number;
  /** The bearer token clients must send; one is made (and printed once) when none is given (VAP_MCP_TOKEN). */
  token?: string;
}

/**
 * `vap mcp --http <port>`: Streamable HTTP on 127.0.0.1 only, behind the SDK's Host check and bearer token (compared in constant time).
 * Origin is checked here: the SDK matches only exact origins, which a port chosen at start, or a local proxy, cannot know in advance.
 * A body the parser refuses gets a JSON-RPC error, not Express's HTML page, as on stdio, so the connection stays open for the next request.
 */
export async function serveHttp(opts: HttpOptions): Promise<void> {
  const { ctx } = opts;
  const token = opts.token ?? randomBytes(32).toString('base64url');
  const expected = Buffer.from(token);
  const app = createMcpExpressApp({ host: '127.0.0.1' });
  app.use(originCheck);
  app.use(
    requireBearerAuth({
      verifier: {
        async verifyAccessToken(given: string) {
          const g = Buffer.from(given);
          if (g.length !== expected.length || !timingSafeEqual(g, expected))
            throw new InvalidTokenError("the bearer token is not this server's (it was printed when `vap mcp --http` started)");
          // The token lives as long as the server.
          return { token: given, clientId: 'local', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 86_400 };
        },
      },
    }),
  );

  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    // A batch (an array) is the SDK's to check; anything else must be one message.
    if (req.method === 'POST' && req.body !== undefined && !Array.isArray(req.body) && !JSONRPCMessageSchema.safeParse(req.body).success) {
      return jsonError(
        res,
        400,
        'Invalid Request: the body is JSON but not a JSON-RPC 2.0 message (a request, notification or response object)',
        ErrorCode.InvalidRequest,
        replyId(req.body),
      );
    }
    const id = header(req.headers['mcp-session-id']);
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      if (id) return jsonError(res, 404, 'Session not found: start a new one with an initialize request');
      if (req.method !== 'POST' || !isInitializeRequest(req.body))
        return jsonError(res, 400, 'Bad Request: no session; the first request of a session is initialize');
      const t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void sessions.set(sid, t) });
      t.onclose = () => {
        if (t.sessionId) sessions.delete(t.sessionId);
      };
      await createServer(opts).connect(t);
      if (ctx.globals.verbose) timeRequests(t, (line) => ctx.io.stderr.write(`${safeText(line)}\n`));
      transport = t;
    }
    await transport.handleRequest(req, res, req.body);
  };
  app.all(MCP_PATH, (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      ctx.io.stderr.write(`${safeText(`vap mcp: a request failed: ${(err as Error)?.message ?? String(err)}`)}\n`);
      if (!res.headersSent) jsonError(res, 500, 'Internal error');
    });
  });
  app.use(bodyError);

  const server = app.listen(opts.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  }).catch((err: NodeJS.ErrnoException) => {
    // As `vap emulator start` says it.
    if (err.code === 'EADDRINUSE')
      throw new UsageError(`port ${opts.port} is already in use`, 'pick another with --http, or --http 0 for any free one (the URL is printed)');
    throw new CliError(
      `cannot listen on 127.0.0.1:${opts.port}: ${err.code ?? err.message}`,
      ExitCode.FAILURE,
      'pick another port with --http, or --http 0 for any free one',
    );
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}${MCP_PATH}`;
  ctx.io.stdout.write(opts.token === undefined ? `${url}\nAuthorization: Bearer ${token}\n` : `${url}\n`);
  ctx.io.stderr.write(
    `vap mcp: Streamable HTTP at ${url} (127.0.0.1 only; ${opts.allowWrites ? 'writes allowed' : 'read-only'}). ` +
      (opts.token === undefined
        ? 'Clients send the token above (it is shown only now) as "Authorization: Bearer <token>". '
        : 'Clients send the token of VAP_MCP_TOKEN as "Authorization: Bearer <token>". ') +
      'Ctrl-C stops.\n',
  );

  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
  server.closeAllConnections?.();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** 403 for a request whose Origin (a browser sends one) is not a local page. No Origin (a program) passes. */
function originCheck(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const origin = header(req.headers.origin);
  if (origin === undefined) return next();
  let host: string | undefined;
  try {
    const u = new URL(origin);
    if (u.protocol === 'http:' || u.protocol === 'https:') host = u.hostname;
  } catch {
    // not a URL: refused below
  }
  if (host !== undefined && LOCAL_HOSTNAMES.includes(host)) return next();
  jsonError(res, 403, `Invalid Origin: ${safeText(origin)} (only pages served from 127.0.0.1, localhost or [::1] may call this server)`);
}

/**
 * An error of the JSON parser (body-parser, which has read the whole body by now) as a
 * JSON-RPC error with its status: 413 over the limit, 400 not JSON (-32700) or JSON that is
 * not an object or array (-32600, which the parser's strict mode refuses).
 */
function bodyError(
  err: { type?: unknown; status?: unknown; body?: unknown; message?: unknown },
  _req: IncomingMessage,
  res: ServerResponse,
  next: (err: unknown) => void,
): void {
  if (res.headersSent || typeof err !== 'object' || err === null || typeof err.type !== 'string') return next(err);
  const status = typeof err.status === 'number' && err.status >= 400 && err.status < 500 ? err.status : 400;
  if (err.type === 'entity.too.large')
    return jsonError(
      res,
      413,
      `Invalid Request: the body is over vap mcp's limit of ${MAX_BODY_BYTES} bytes for one request; it was skipped`,
      ErrorCode.InvalidRequest,
    );
  if (err.type === 'entity.parse.failed') {
    if (typeof err.body === 'string' && isJson(err.body))
      return jsonError(
        res,
        400,
        'Invalid Request: the body is JSON but not a JSON-RPC 2.0 message (a request, notification or response object)',
        ErrorCode.InvalidRequest,
      );
    return jsonError(res, 400, 'Parse error: the body is not JSON', ErrorCode.ParseError);
  }
  jsonError(res, status, safeText(String(err.message)));
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function jsonError(res: ServerResponse, status: number, message: string, code = -32000, id: string | number | null = null): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
