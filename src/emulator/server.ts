import { createHash, randomFillSync } from 'node:crypto';
import type { Socket } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { authenticate } from './auth.js';
import { Clock } from './clock.js';
import { errorBody, HttpError } from './errors.js';
import { FaultTable, parseJournalFault } from './faults.js';
import { IdGenerator } from './ids.js';
import { MODULES } from './modules.js';
import { Store } from './store.js';
import { RequestLog } from './request-log.js';
import type { EmulatorOptions, ModuleEnv, Org, ResolvedOptions } from './types.js';

export { StateFileError } from './persist/files.js';

export interface Emulator {
  url: string;
  host: string;
  port: number;
  orgs: Org[];
  app: FastifyInstance;
  /** The state (tests compare it with what a restart reads back). */
  store: Store;
  close(): Promise<void>;
}

const CONTROL = '/_emulator';
const JSON_TYPE = 'application/json';

export const DEFAULT_PORT = 4010;
/** A request's headers must arrive within this many ms of its first byte … */
export const HEADERS_TIMEOUT_MS = 10_000;
/** … and the whole request (headers and body) within this many. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Connections open at once from one client address; more are answered 503 and closed. */
export const MAX_CONNECTIONS_PER_CLIENT = 256;

/** The demo organization's key when no --org is given: derived from the seed, so it is stable. */
export function demoKey(seed: number): string {
  return `vap_demo_${createHash('sha256').update(`demo:${seed}`).digest('hex').slice(0, 24)}`;
}

export function orgId(name: string): string {
  return `org_${createHash('sha256').update(`org:${name}`).digest('hex').slice(0, 16)}`;
}

/** Starts an emulator of both documents; resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const opts: ResolvedOptions = {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? DEFAULT_PORT,
    timeScale: options.timeScale ?? 1,
    seed: options.seed ?? 1,
    allowLoopbackUrls: options.allowLoopbackUrls ?? false,
    bodyLimit: options.bodyLimit ?? 16 * 1024 * 1024,
    dataDir: options.dataDir,
    log: options.log,
    warn: options.warn,
  };
  const orgInputs = options.orgs?.length ? options.orgs : [{ name: 'demo', apiKey: demoKey(opts.seed) }];
  const orgs: Org[] = orgInputs.map((o) => ({ id: orgId(o.name), name: o.name, apiKey: o.apiKey }));
  const byKey = new Map(orgs.map((o) => [o.apiKey, o]));
  if (byKey.size !== orgs.length) throw new Error('two organizations were given the same API key');

  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, requestTimeout);
  const maxConnections = options.maxConnectionsPerClient ?? MAX_CONNECTIONS_PER_CLIENT;

  const store = await Store.open({ dataDir: opts.dataDir, warn: opts.warn, compactMinBytes: options.compactMinBytes, repair: options.repair });
  try {
    return await serve(opts, store, byKey, orgs, { requestTimeout, headersTimeout, maxConnections });
  } catch (err) {
    // Not listening (the port is taken): the data directory is unlocked again.
    await store.close().catch(() => {});
    throw err;
  }
}

interface Limits {
  requestTimeout: number;
  headersTimeout: number;
  maxConnections: number;
}

async function serve(opts: ResolvedOptions, store: Store, byKey: Map<string, Org>, orgs: Org[], limits: Limits): Promise<Emulator> {
  const clock = new Clock(opts.timeScale, store.restored?.simNowMs);
  const ids = new IdGenerator(opts.seed, store.restored?.idCounters);
  store.setMeta(() => ({ idCounters: ids.snapshot(), simNowMs: clock.nowMs() }));
  const faults = new FaultTable();
  const requestLog = new RequestLog(() => clock.nowMs());
  const readyHooks: Array<() => void> = [];
  const closeHooks: Array<() => void | Promise<void>> = [];
  // Background work (simulated calls, imports, eval runs, deliveries, streams) stops once: in
  // turn at close, or all at once, before any refused request is answered, when the disk fails.
  let stopped: Promise<void> | undefined;
  const stopInTurn = async () => {
    for (const fn of closeHooks) await fn();
  };
  const stopAtOnce = () =>
    Promise.allSettled(
      closeHooks.map((fn) => {
        try {
          return fn();
        } catch (err) {
          return Promise.reject(err as Error);
        }
      }),
    ).then(() => {});
  // Once a journal write fails, memory holds changes that were refused: every answer that could
  // show state is a 503 from then on (fenced below), and a restart serves what is on disk.
  let failure = store.failed;
  store.onFailure((err) => {
    failure = err;
    stopped ??= stopAtOnce();
  });

  const app = Fastify({
    bodyLimit: opts.bodyLimit,
    genReqId: requestId,
    requestIdHeader: false,
    logger: false,
    return503OnClosing: false,
    // Closing ends every connection at once (keep-alive ones a client holds open included),
    // instead of waiting for clients' keep-alive timeouts: the emulator is going away.
    forceCloseConnections: true,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: false } },
    // Slow clients: headers must arrive within headersTimeout, the whole request within
    // requestTimeout (Node checks every connectionsCheckingInterval, answering through
    // clientErrorHandler). Only receiving is limited: a response, an event stream included, is not.
    requestTimeout: limits.requestTimeout,
    http: {
      headersTimeout: limits.headersTimeout,
      requestTimeout: limits.requestTimeout,
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(limits.headersTimeout / 4) || 1000)),
    },
    // Errors the framework raises before routing (a malformed percent-encoding in the path)
    // get the one error envelope too.
    // Requests the HTTP parser cannot read at all, or not in time: the envelope, then the connection closes.
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (!socket.writable || err.code === 'ECONNRESET') return socket.destroy();
      // A response already under way on this connection: nothing can be added to it.
      if ((socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent) return socket.destroy();
      if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
        const message = `the request was not received in time: its headers must arrive within ${seconds(limits.headersTimeout)} and the whole request within ${seconds(limits.requestTimeout)}`;
        return answerRaw(socket, '408 Request Timeout', errorBody(requestId(), 'request_timeout', message), clock.httpDate());
      }
      const large = err.code === 'HPE_HEADER_OVERFLOW';
      answerRaw(
        socket,
        large ? '431 Request Header Fields Too Large' : '400 Bad Request',
        errorBody(
          requestId(),
          large ? 'headers_too_large' : 'bad_request',
          large ? 'the request headers are too large' : `the request could not be read as HTTP (${err.code ?? err.message})`,
        ),
        clock.httpDate(),
      );
    },
    frameworkErrors: (err, req, res) => {
      const bad = (err as FastifyError).code === 'FST_ERR_BAD_URL';
      const reply = res as unknown as FastifyReply;
      reply.header('x-request-id', req.id).header('date', clock.httpDate());
      void reply
        .code(bad ? 400 : ((err as FastifyError).statusCode ?? 400))
        .send(
          errorBody(
            req.id,
            bad ? 'invalid_path' : 'bad_request',
            bad
              ? `the path is not valid: ${pathForMessage(req.url)} has a malformed percent-encoding (each % must be followed by two hex digits of UTF-8)`
              : err.message,
          ),
        );
    },
  });
  // JSON bodies: an empty body sent with `content-type: application/json` (many clients set
  // it on every request, a body-less POST or DELETE included) is read as `{}`, not refused.
  // Any other content type is a 415 naming application/json (a body-less request has none).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (req, _payload, done) => {
    done(unsupportedType(req.headers['content-type']), undefined);
  });
  app.addContentTypeParser(JSON_TYPE, { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      const e = new Error(`the body is not valid JSON: ${(err as Error).message}`) as Error & { statusCode: number };
      e.statusCode = 400;
      done(e, undefined);
    }
  });

  // Connections per client address: beyond the bound a new connection is answered 503 and closed
  // (a request on it is never handled), so that slow or idle connections from one address cannot
  // use up the file descriptors and starve every other client.
  const perClient = new Map<string, number>();
  const refused = new WeakSet<Socket>();
  app.server.on('connection', (socket: Socket) => {
    const addr = clientAddress(socket.remoteAddress);
    if (addr === undefined) return;
    const n = (perClient.get(addr) ?? 0) + 1;
    if (n > limits.maxConnections) {
      refused.add(socket);
      answerRaw(
        socket,
        '503 Service Unavailable',
        errorBody(
          requestId(),
          'too_many_connections',
          `this client already has ${limits.maxConnections} connections open, the most one address may hold; close some (or reuse them with keep-alive) and try again`,
        ),
        clock.httpDate(),
      );
      return;
    }
    perClient.set(addr, n);
    socket.once('close', () => {
      const left = perClient.get(addr)! - 1;
      if (left === 0) perClient.delete(addr);
      else perClient.set(addr, left);
    });
  });

  // The organization of the request's key: declared up front, so every request object keeps one shape.
  app.decorateRequest('org', null as unknown as Org);

  // Request id on every response, as a header too; then faults and authentication for the API surface.
  app.addHook('onRequest', (req, reply, done) => {
    if (refused.has(req.raw.socket)) {
      reply.hijack();
      req.raw.socket.destroy();
      return;
    }
    reply.header('x-request-id', req.id);
    const url = req.url;
    if (failure !== undefined && showsState(url)) {
      void reply.code(503).send(errorBody(req.id, 'persistence_failed', stoppedMessage(failure)));
      return;
    }
    if (!url.startsWith('/api/')) return done();
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const fault = faults.size > 0 ? faults.take(req.method, path) : undefined;
    if (fault) {
      void applyFault(req, reply, fault).then(
        (answered) => {
          if (answered) return;
          if (failure !== undefined) {
            void reply.code(503).send(errorBody(req.id, 'persistence_failed', stoppedMessage(failure)));
            return;
          }
          try {
            req.org = authenticate(path, req.headers, byKey);
            done();
          } catch (err) {
            done(err as Error);
          }
        },
        (err: Error) => done(err),
      );
      return;
    }
    try {
      req.org = authenticate(path, req.headers, byKey);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });

  // Durable before acknowledged: a response waits until every earlier change is on disk (one
  // fsync serves every response waiting). The request log (control path excluded: tests read it
  // for what was sent) is written here too, with the status sent: one hook less per request.
  const logRequest = (req: FastifyRequest, status: number) => {
    const url = req.url;
    if (!url.startsWith(CONTROL)) {
      const q = url.indexOf('?');
      const bearer = req.headers.authorization !== undefined;
      const xKey = req.headers['x-api-key'] !== undefined;
      requestLog.add(
        req.method,
        q < 0 ? url : url.slice(0, q),
        status,
        req.headers['user-agent'],
        bearer && xKey ? 'both' : bearer ? 'bearer' : xKey ? 'x-api-key' : 'none',
      );
    }
    if (opts.log) opts.log(`${req.method} ${url} ${status}`);
  };
  app.addHook('onSend', (req, reply, payload, done) => {
    // The simulated clock's Date, like every time in a body (README; event streams set theirs).
    reply.header('date', clock.httpDate());
    if (failure !== undefined) {
      // Computed, perhaps, from changes that were refused a moment ago.
      if (showsState(req.url)) payload = refusal(req, reply, payload, failure);
      logRequest(req, reply.statusCode);
      return done(null, payload);
    }
    // The control routes that show no state (arming a journal fault among them) wait for nothing.
    if (!store.hasUnsynced || !showsState(req.url)) {
      logRequest(req, reply.statusCode);
      return done(null, payload);
    }
    store.commit().then(
      () => {
        logRequest(req, reply.statusCode);
        done(null, payload);
      },
      (err: Error) => {
        const body = refusal(req, reply, payload, err);
        logRequest(req, 503);
        done(null, body);
      },
    );
  });

  app.setErrorHandler((err: FastifyError | HttpError, req, reply) => {
    if (err instanceof HttpError) {
      if (err.headers) reply.headers(err.headers);
      return reply.code(err.status).send(errorBody(req.id, err.code, err.message, err.details));
    }
    const fe = err as FastifyError;
    if (fe.validation) {
      const where = fe.validationContext ?? 'request';
      const details = fe.validation.map((v) => ({ field: fieldOf(where, v.instancePath, v.params), message: v.message ?? 'invalid' }));
      const first = details[0];
      return reply.code(400).send(errorBody(req.id, 'validation_error', first ? `${first.field}: ${first.message}` : fe.message, details));
    }
    const status = fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500 ? fe.statusCode : 500;
    if (status === 500) opts.log?.(`internal error: ${fe.stack ?? fe.message}`);
    return reply.code(status).send(errorBody(req.id, ...frameworkError(fe, status, opts.bodyLimit)));
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorBody(req.id, 'route_not_found', `no route ${req.method} ${req.url.split('?')[0]}`));
  });

  // Control path (outside /api/v1): faults, request log, reset, simulated time.
  app.get(`${CONTROL}/health`, async () => ({
    ok: failure === undefined,
    orgs: orgs.map((o) => o.name),
    timeScale: opts.timeScale,
    now: clock.iso(),
    persistence: { dataDir: store.dataDir ?? null, failed: failure?.message ?? null },
  }));
  app.get(`${CONTROL}/faults`, async () => ({ faults: faults.list(), journal: store.journalFault ?? null }));
  app.post(`${CONTROL}/faults`, async (req, reply) => reply.code(201).send(faults.add((req.body ?? {}) as Record<string, unknown>)));
  app.delete(`${CONTROL}/faults`, async () => {
    faults.clear();
    store.armJournalFault(undefined);
    return { cleared: true };
  });
  app.post(`${CONTROL}/faults/journal`, async (req, reply) => {
    if (!store.persistent) throw new HttpError(409, 'no_data_dir', 'this emulator keeps its state in memory: a journal fault needs --data-dir');
    const fault = parseJournalFault((req.body ?? {}) as Record<string, unknown>);
    store.armJournalFault(fault);
    return reply.code(201).send({ journal: fault });
  });
  app.get(`${CONTROL}/requests`, async () => ({ requests: requestLog.entries() }));
  app.delete(`${CONTROL}/requests`, async () => {
    requestLog.clear();
    return { cleared: true };
  });
  app.post(`${CONTROL}/clock/advance`, async (req) => {
    const ms = Number((req.body as { ms?: unknown } | undefined)?.ms);
    if (!Number.isFinite(ms) || ms < 0) throw new HttpError(400, 'validation_error', 'ms must be a non-negative number');
    clock.advance(ms);
    store.noteMeta();
    return { now: clock.iso() };
  });

  const env: ModuleEnv = {
    store,
    clock,
    ids,
    orgs,
    options: opts,
    onReady: (fn) => readyHooks.push(fn),
    onClose: (fn) => closeHooks.push(fn),
    logRequest,
  };
  for (const mod of MODULES) await app.register(async (scope) => mod.register(scope, env));

  await app.listen({ host: opts.host, port: opts.port });
  for (const fn of readyHooks) fn();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const urlHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;

  return {
    url: `http://${urlHost}:${port}`,
    host: opts.host,
    port,
    orgs,
    app,
    store,
    async close() {
      await (stopped ??= stopInTurn());
      await app.close();
      await store.close();
    },
  };
}

/** What stays open once the data directory failed: the control routes that show no state. */
const OPEN_AFTER_FAILURE = /^\/_emulator\/(?:health|faults|requests)(?:[/?]|$)/;

function showsState(url: string): boolean {
  return !OPEN_AFTER_FAILURE.test(url);
}

function stoppedMessage(err: Error): string {
  return `the emulator ${err.message}: this request and every change not yet saved were refused, and it serves no state until it is restarted; free space on that disk (or choose another --data-dir) and restart it: it serves every change that was acknowledged`;
}

/** The answer turned into the 503 of a failed data directory: nothing of it goes out, neither its body nor a header naming what it made. */
function refusal(req: FastifyRequest, reply: FastifyReply, payload: unknown, err: Error): string {
  const stream = payload as { destroy?: () => void } | null;
  if (stream && typeof stream === 'object' && typeof stream.destroy === 'function') stream.destroy();
  for (const h of ['content-length', 'content-disposition', 'location', 'cache-control']) reply.removeHeader(h);
  reply.code(503).header('content-type', 'application/json; charset=utf-8');
  return JSON.stringify(errorBody(req.id, 'persistence_failed', stoppedMessage(err)));
}

/**
 * An answer written straight to the socket (no request was read, or none can be): the
 * envelope, then the connection is closed once it is sent, whatever the client goes on sending.
 */
/** An answer written on the socket itself (the request could not be handed to the app), dated by the simulated clock. */
function answerRaw(socket: Socket, status: string, body: unknown, date: string): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status}\r\ndate: ${date}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    () => socket.destroy(),
  );
}

/** The address a connection counts against (an IPv4 client seen on an IPv6 socket counts as itself). */
function clientAddress(remote: string | undefined): string | undefined {
  return remote?.startsWith('::ffff:') ? remote.slice(7) : remote;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Request ids: `req_` + 20 hex characters, cut from a pooled random buffer (one draw per 409 ids). */
const POOL = Buffer.alloc(4090);
let poolAt = POOL.length;
function requestId(): string {
  if (poolAt + 10 > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  const id = `req_${POOL.toString('hex', poolAt, poolAt + 10)}`;
  poolAt += 10;
  return id;
}

/** Answers a matching fault: true when the request was answered (or dropped). */
async function applyFault(
  req: FastifyRequest,
  reply: FastifyReply,
  fault: { delayMs?: number; drop?: boolean; status?: number; retryAfter?: string },
): Promise<boolean> {
  if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
  if (fault.drop) {
    req.raw.socket.destroy();
    return true;
  }
  if (fault.status) {
    if (fault.retryAfter !== undefined) reply.header('retry-after', fault.retryAfter);
    void reply.code(fault.status).send(errorBody(req.id, 'injected_fault', `injected fault: HTTP ${fault.status}`));
    return true;
  }
  return false;
}

function unsupportedType(contentType: string | undefined): Error {
  const type = (contentType ?? '').split(';')[0]!.trim();
  const e = new Error(
    `the body must be JSON, sent with content-type: ${JSON_TYPE}${type ? ` (this request sent ${pathForMessage(type)})` : ' (this request sent no content-type)'}`,
  ) as Error & { statusCode: number; code: string };
  e.statusCode = 415;
  e.code = 'FST_ERR_CTP_INVALID_MEDIA_TYPE';
  return e;
}

/** The code and message of an error raised by the framework (a 4xx), or of a bug (500). */
function frameworkError(fe: FastifyError, status: number, bodyLimit: number): [code: string, message: string] {
  if (status === 500) return ['internal_error', 'internal error'];
  if (status === 413) return ['payload_too_large', `the body is larger than ${bodyLimit} bytes`];
  if (status === 415) return ['unsupported_media_type', fe.message.startsWith('the body must be JSON') ? fe.message : unsupportedType(undefined).message];
  if (fe.message.startsWith('the body is not valid JSON')) return ['invalid_body', fe.message];
  if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY')
    return ['invalid_body', `the body is not valid JSON: ${fe.message}`];
  if (fe.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') return ['invalid_body', 'the body is shorter or longer than its content-length'];
  if (status === 400) return ['bad_request', fe.message];
  return ['bad_request', fe.message];
}

/** A path or header value quoted in a message: at most 200 characters, control characters escaped. */
function pathForMessage(s: string): string {
  const cut = s.length > 200 ? `${s.slice(0, 200)}…` : s;
  return JSON.stringify(cut);
}

function fieldOf(where: string, instancePath: string, params: Record<string, unknown> | undefined): string {
  const missing = params && typeof params.missingProperty === 'string' ? `/${params.missingProperty}` : '';
  const path = `${instancePath}${missing}`.replace(/^\//, '').replace(/\//g, '.');
  return path || where;
}
