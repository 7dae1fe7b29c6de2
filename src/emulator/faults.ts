import { badRequest } from './errors.js';

/** A fault armed through the control path: the next `count` matching requests misbehave. */
export interface Fault {
  id: number;
  /** HTTP method to match; any when absent. */
  method?: string;
  /** Exact path, or a prefix ending in `*`. The query string is ignored. */
  path: string;
  /** Answer this status with the error envelope instead of handling the request. */
  status?: number;
  /** Sent as Retry-After (seconds, or an HTTP date). */
  retryAfter?: string;
  /** Wait this long (real milliseconds) before handling or answering. */
  delayMs?: number;
  /** Close the connection without answering. */
  drop?: boolean;
  /** How many requests it applies to (default 1). */
  remaining: number;
}

export class FaultTable {
  private faults: Fault[] = [];
  private nextId = 1;

  add(input: Record<string, unknown>): Fault {
    const path = input.path;
    if (typeof path !== 'string' || !path.startsWith('/')) throw badRequest('path must be a string starting with /');
    const status = input.status === undefined ? undefined : Number(input.status);
    if (status !== undefined && (!Number.isInteger(status) || status < 100 || status > 599)) throw badRequest('status must be an HTTP status code');
    const count = input.count === undefined ? 1 : Number(input.count);
    if (!Number.isInteger(count) || count < 1) throw badRequest('count must be a positive integer');
    const delayMs = input.delayMs === undefined ? undefined : Number(input.delayMs);
    if (delayMs !== undefined && !(delayMs >= 0)) throw badRequest('delayMs must be a non-negative number');
    if (status === undefined && delayMs === undefined && !input.drop) throw badRequest('a fault needs status, delayMs or drop');
    const fault: Fault = {
      id: this.nextId++,
      method: typeof input.method === 'string' ? input.method.toUpperCase() : undefined,
      path,
      status,
      retryAfter: input.retryAfter === undefined ? undefined : String(input.retryAfter),
      delayMs,
      drop: Boolean(input.drop),
      remaining: count,
    };
    this.faults.push(fault);
    return fault;
  }

  /** Takes one use of the first fault matching the request, if any. */
  take(method: string, path: string): Fault | undefined {
    const i = this.faults.findIndex((f) => (!f.method || f.method === method) && matches(f.path, path));
    if (i < 0) return undefined;
    const f = this.faults[i]!;
    f.remaining--;
    if (f.remaining <= 0) this.faults.splice(i, 1);
    return f;
  }

  get size(): number {
    return this.faults.length;
  }

  list(): Fault[] {
    return [...this.faults];
  }

  clear(): void {
    this.faults = [];
  }
}

function matches(pattern: string, path: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : pattern === path;
}

/** A failure of the data directory's disk, armed through the control path for the next journal write. */
export interface JournalFaultInput {
  code: 'ENOSPC' | 'EIO';
  during: 'write' | 'sync';
  torn: boolean;
}

/** `POST /_emulator/faults/journal` body: `{ code?: "ENOSPC" | "EIO", during?: "write" | "sync", torn?: boolean }`. */
export function parseJournalFault(input: Record<string, unknown>): JournalFaultInput {
  for (const k of Object.keys(input))
    if (k !== 'code' && k !== 'during' && k !== 'torn') throw badRequest(`unknown field ${JSON.stringify(k)}: a journal fault takes code, during and torn`);
  const code = input.code ?? 'ENOSPC';
  if (code !== 'ENOSPC' && code !== 'EIO') throw badRequest('code must be "ENOSPC" or "EIO"');
  const during = input.during ?? 'write';
  if (during !== 'write' && during !== 'sync') throw badRequest('during must be "write" or "sync"');
  const torn = input.torn ?? false;
  if (typeof torn !== 'boolean') throw badRequest('torn must be true or false');
  if (torn && during !== 'write') throw badRequest('torn applies to during: "write" only (a failed sync follows a whole line)');
  return { code, during, torn };
}
