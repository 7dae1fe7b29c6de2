/** What `GET /_emulator/requests` lists for one API request. */
export interface RequestLogEntry {
  method: string;
  path: string;
  status?: number;
  at: string;
  userAgent?: string;
  /** Which auth header form was sent (never the key). */
  auth: 'bearer' | 'x-api-key' | 'both' | 'none';
}

interface Slot {
  method: string;
  path: string;
  status: number;
  atMs: number;
  userAgent: string | undefined;
  auth: RequestLogEntry['auth'];
}

export const MAX_LOG = 2000;

/**
 * The last MAX_LOG API requests, in a ring buffer: adding one costs the same however full
 * the log is (no trimming), and the timestamp is formatted only when the log is read.
 */
export class RequestLog {
  private readonly slots: Array<Slot | undefined> = new Array(MAX_LOG);
  private next = 0;
  private count = 0;

  /** `now`: the clock the entries are stamped with (the emulator's simulated one). */
  constructor(private readonly now: () => number = Date.now) {}

  add(method: string, path: string, status: number, userAgent: string | undefined, auth: RequestLogEntry['auth']): void {
    const s = this.slots[this.next];
    if (s) {
      s.method = method;
      s.path = path;
      s.status = status;
      s.atMs = this.now();
      s.userAgent = userAgent;
      s.auth = auth;
    } else {
      this.slots[this.next] = { method, path, status, atMs: this.now(), userAgent, auth };
    }
    this.next = (this.next + 1) % MAX_LOG;
    if (this.count < MAX_LOG) this.count++;
  }

  /** Oldest first. */
  entries(): RequestLogEntry[] {
    const out: RequestLogEntry[] = [];
    const start = (this.next - this.count + MAX_LOG) % MAX_LOG;
    for (let i = 0; i < this.count; i++) {
      const s = this.slots[(start + i) % MAX_LOG]!;
      out.push({ method: s.method, path: s.path, status: s.status, at: new Date(s.atMs).toISOString(), userAgent: s.userAgent, auth: s.auth });
    }
    return out;
  }

  clear(): void {
    this.count = 0;
    this.next = 0;
  }
}
