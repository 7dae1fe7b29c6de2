import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from './clock.js';
import type { IdGenerator } from './ids.js';
import type { Store } from './store.js';

export interface Org {
  id: string;
  name: string;
  apiKey: string;
}

export interface EmulatorOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Organizations and their keys; none gives one demo organization. */
  orgs?: Array<{ name: string; apiKey: string }>;
  timeScale?: number;
  seed?: number;
  dataDir?: string;
  /** Let webhook and file URLs point at loopback addresses (local development and tests). */
  allowLoopbackUrls?: boolean;
  /** Largest request body accepted, in bytes. */
  bodyLimit?: number;
  /** One line per request, for `vap emulator start --log`. */
  log?: (line: string) => void;
  /** One line per problem found and handled in the data directory at start (a torn last journal record, what --repair did). */
  warn?: (line: string) => void;
  /** Compact the journal into a snapshot once it holds this many bytes (default 64 MiB; tests use less). */
  compactMinBytes?: number;
  /** Start on a damaged data directory: keep what comes before the first damaged record or missing journal, move the rest aside. */
  repair?: boolean;
  /** A request's headers must arrive within this many ms (default 10 s; tests use less). */
  headersTimeoutMs?: number;
  /** The whole request, body included, must arrive within this many ms (default 30 s; tests use less). */
  requestTimeoutMs?: number;
  /** Connections one client address may hold open at once (default 256). */
  maxConnectionsPerClient?: number;
}

type StartOnly = 'dataDir' | 'log' | 'orgs' | 'warn' | 'compactMinBytes' | 'repair' | 'headersTimeoutMs' | 'requestTimeoutMs' | 'maxConnectionsPerClient';
export type ResolvedOptions = Required<Omit<EmulatorOptions, StartOnly>> & Pick<EmulatorOptions, 'dataDir' | 'log' | 'warn'>;

/** What a route module gets: state, time, ids, the organizations and the options. */
export interface ModuleEnv {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  orgs: Org[];
  options: ResolvedOptions;
  /** Registers work to run once the state is loaded (resume timers of jobs in flight). */
  onReady(fn: () => void): void;
  /** Registers cleanup to run on close (cancel timers). */
  onClose(fn: () => void | Promise<void>): void;
  /** Records a request answered outside Fastify's reply (a stream, once its headers are out) in the request log and `--log`. */
  logRequest(req: FastifyRequest, status: number): void;
}

/** A group of routes (one per resource group of the spec). */
export interface EmulatorModule {
  name: string;
  register(app: FastifyInstance, env: ModuleEnv): void | Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The organization of the API key (set by the auth hook on /api/v1 routes). */
    org: Org;
  }
}
