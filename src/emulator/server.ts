import { createHash, randomBytes } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { authenticate } from './auth.js';
import { Clock } from './clock.js';
import { errorBody, HttpError } from './errors.js';
import { FaultTable } from './faults.js';
import { IdGenerator } from './ids.js';
import { MODULES } from './modules.js';
import { Store } from './store.js';
import type { EmulatorOptions, ModuleEnv, Org, ResolvedOptions } from './types.js';

export interface RequestLogEntry {
  method: string;
  path: string;
  status?: number;
  at: string;
  userAgent?: string;
  /** Which auth header form was sent (never the key). */
  auth: 'bearer' | 'x-api-key' | 'both' | 'none';
}

export interface Emulator {
  url: string;
  host: string;
  port: number;
  orgs: Org[];
  app: FastifyInstance;
  close(): Promise<void>;
}

const CONTROL = '/_emulator';
const MAX_LOG = 2000;

export const DEFAULT_PORT = 4010;

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
  };
  const orgInputs = options.orgs?.length ? options.orgs : [{ name: 'demo', apiKey: demoKey(opts.seed) }];
  const orgs: Org[] = orgInputs.map((o) => ({ id: orgId(o.name), name: o.name, apiKey: o.apiKey }));
  const byKey = new Map(orgs.map((o) => [o.apiKey, o]));
  if (byKey.size !== orgs.length) throw new Error('two organizations were given the same API key');

  const store = new Store(opts.dataDir);
  const clock = new Clock(opts.timeScale, store.restored?.simNowMs);
  const ids = new IdGenerator(opts.seed, store.restored?.idCounters);
  const faults = new FaultTable();
  const requestLog: RequestLogEntry[] = [];
  const readyHooks: Array<() => void> = [];
  const closeHooks: Array<() => void | Promise<void>> = [];
  const flush = () => store.flush({ idCounters: ids.snapshot(), simNowMs: clock.nowMs() });

  const app = Fastify({
    bodyLimit: opts.bodyLimit,
    genReqId: () => `req_${randomBytes(10).toString('hex')}`,
    requestIdHeader: false,
    logger: false,
    return503OnClosing: false,
    // Closing ends every connection at once (keep-alive ones a client holds open included),
    // instead of waiting for clients' keep-alive timeouts: the emulator is going away.
    forceCloseConnections: true,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: false } },
  });

  // JSON bodies: an empty body sent with `content-type: application/json` (many clients set
  // it on every request, a body-less POST or DELETE included) is read as `{}`, not refused.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
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

  // Request id on every response, as a header too.
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  // Request log (control path excluded), for tests that check what was or was not sent.
  app.addHook('onResponse', async (req, reply) => {
    const path = req.url.split('?')[0]!;
    if (path.startsWith(CONTROL)) return;
    const bearer = Boolean(req.headers.authorization);
    const xKey = Boolean(req.headers['x-api-key']);
    requestLog.push({
      method: req.method,
      path,
      status: reply.statusCode,
      at: new Date().toISOString(),
      userAgent: req.headers['user-agent'],
      auth: bearer && xKey ? 'both' : bearer ? 'bearer' : xKey ? 'x-api-key' : 'none',
    });
    if (requestLog.length > MAX_LOG) requestLog.splice(0, requestLog.length - MAX_LOG);
    opts.log?.(`${req.method} ${req.url} ${reply.statusCode}`);
  });

  // Faults, then authentication, for the API surface.
  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0]!;
    if (!path.startsWith('/api/')) return;
    const fault = faults.take(req.method, path);
    if (fault) {
      if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
      if (fault.drop) {
        req.raw.socket.destroy();
        return reply;
      }
      if (fault.status) {
        if (fault.retryAfter !== undefined) reply.header('retry-after', fault.retryAfter);
        return reply.code(fault.status).send(errorBody(req.id, 'injected_fault', `injected fault: HTTP ${fault.status}`));
      }
    }
    req.org = authenticate(path, req.headers, byKey);
  });

  // Persist before a response to a change goes out.
  app.addHook('onSend', async () => {
    if (store.isDirty) flush();
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
    const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : status === 400 ? 'invalid_body' : status === 500 ? 'internal_error' : 'bad_request';
    const message = status === 500 ? 'internal error' : fe.message.startsWith('the body is not valid JSON') ? fe.message : fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/.test(fe.message) ? `the body is not valid JSON: ${fe.message}` : fe.message;
    return reply.code(status).send(errorBody(req.id, code, message));
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorBody(req.id, 'route_not_found', `no route ${req.method} ${req.url.split('?')[0]}`));
  });

  // Control path (outside /api/v1): faults, request log, reset, simulated time.
  app.get(`${CONTROL}/health`, async () => ({ ok: true, orgs: orgs.map((o) => o.name), timeScale: opts.timeScale, now: clock.iso() }));
  app.get(`${CONTROL}/faults`, async () => ({ faults: faults.list() }));
  app.post(`${CONTROL}/faults`, async (req, reply) => reply.code(201).send(faults.add((req.body ?? {}) as Record<string, unknown>)));
  app.delete(`${CONTROL}/faults`, async () => {
    faults.clear();
    return { cleared: true };
  });
  app.get(`${CONTROL}/requests`, async () => ({ requests: requestLog }));
  app.delete(`${CONTROL}/requests`, async () => {
    requestLog.length = 0;
    return { cleared: true };
  });
  app.post(`${CONTROL}/clock/advance`, async (req) => {
    const ms = Number((req.body as { ms?: unknown } | undefined)?.ms);
    if (!Number.isFinite(ms) || ms < 0) throw new HttpError(400, 'validation_error', 'ms must be a non-negative number');
    clock.advance(ms);
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
  };
  for (const mod of MODULES) await app.register(async (scope) => mod.register(scope, env));

  await app.listen({ host: opts.host, port: opts.port });
  for (const fn of readyHooks) fn();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const urlHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;

  // Background changes (simulated jobs) are written at least once a second.
  const timer = setInterval(() => {
    if (store.isDirty) flush();
  }, 1000);
  timer.unref();

  return {
    url: `http://${urlHost}:${port}`,
    host: opts.host,
    port,
    orgs,
    app,
    async close() {
      clearInterval(timer);
      for (const fn of closeHooks) await fn();
      await app.close();
      flush();
    },
  };
}

function fieldOf(where: string, instancePath: string, params: Record<string, unknown> | undefined): string {
  const missing = params && typeof params.missingProperty === 'string' ? `/${params.missingProperty}` : '';
  const path = `${instancePath}${missing}`.replace(/^\//, '').replace(/\//g, '.');
  return path || where;
}
