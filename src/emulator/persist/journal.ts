import { randomBytes } from 'node:crypto';
import { closeSync, constants, fdatasync, fstatSync, ftruncate, openSync, unlink, writev } from 'node:fs';
import { open, rename, unlink as unlinkAsync, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import {
  createJournal,
  FILE_MODE,
  journalName,
  LEGACY,
  SNAPSHOT,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  syncDir,
  type DataDir,
  type JournalOp,
  type Meta,
} from './files.js';

export type { JournalOp } from './files.js';

const writevAsync = promisify(writev);
const fdatasyncAsync = promisify(fdatasync);
const ftruncateAsync = promisify(ftruncate);

/** Snapshot bytes buffered before each write (compaction yields to the event loop at every write). */
const SNAPSHOT_CHUNK = 1024 * 1024;
const YIELD_EVERY = 2000;

export interface JournalOptions {
  compactMinBytes: number;
  compactRatio: number;
  warn: (line: string) => void;
  /** Every record of the state, read while it keeps changing. */
  records: () => Iterable<[key: string, id: string, value: unknown]>;
  /** Commits the changes made so far and waits until they are durable. */
  prepare: () => Promise<void>;
  meta: () => Meta;
  /** Called once, at once, when a group write fails: nothing more is written after it. */
  failed: (err: Error) => void;
}

/** A failure the next group write meets (`POST /_emulator/faults/journal`): a full or failing disk on demand. */
export interface JournalFault {
  code: 'ENOSPC' | 'EIO';
  /** Fail the write itself, or the fdatasync after the whole line was written. */
  during: 'write' | 'sync';
  /** With `during: 'write'`: every byte of the line but its newline is written first, as a disk filling up mid-line leaves it. */
  torn: boolean;
}

interface Waiter {
  batch: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * The append-only journal with group commit: batches appended during a write and its fdatasync go
 * out together as one line, so a crash can only cut the last line short. Compaction follows
 * Redis's AOF rewrite (src/emulator/README.md).
 */
export class Journal {
  private fd: number;
  private gen: number;
  private bytes: number;
  /** The number of the last record in the current journal file (records are numbered from 1 in each). */
  private records: number;
  private snapshotBytes: number;
  private pieces: string[] = [];
  private appended = 0;
  private written = 0;
  private chain: Promise<void> = Promise.resolve();
  private writeScheduled = false;
  private readonly waiters: Waiter[] = [];
  private readonly callbacks: Array<{ batch: number; fn: () => void }> = [];
  private compacting: Promise<void> | undefined;
  /** After a failed compaction, the next try waits until the journal has grown this much more. */
  private retryAfterBytes = 0;
  private closed = false;
  /** The write that failed: once set, nothing more is written, every later batch is refused and no callback runs. */
  failed: Error | undefined;
  /** Armed by a test through the control path: the next group write fails with it. */
  fault: JournalFault | undefined;

  constructor(
    private readonly dir: DataDir,
    private readonly opts: JournalOptions,
  ) {
    this.gen = dir.gen;
    this.bytes = dir.journalBytes;
    this.records = dir.journalRecords;
    this.snapshotBytes = dir.snapshotBytes;
    // The file exists with its header (openDataDir made sure): opened without O_CREAT, so a
    // journal is never created here without one.
    this.fd = openSync(join(dir.path, journalName(this.gen)), constants.O_WRONLY | constants.O_APPEND);
  }

  /** Nothing appended is waiting for its write. */
  get idle(): boolean {
    return this.written === this.appended;
  }

  /** Queues a batch (the ops as they are now); it is written by the next group write. */
  append(ops: JournalOp[]): void {
    if (this.closed || this.failed) return;
    const json = ops.length > 0 ? JSON.stringify(ops) : '';
    this.pieces.push(json.slice(1, -1));
    this.appended++;
    if (!this.writeScheduled) {
      this.writeScheduled = true;
      this.chain = this.chain.then(() => this.writeGroup());
    }
  }

  /** Resolves once every batch appended so far is on disk. */
  durable(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    const batch = this.appended;
    if (this.written >= batch || this.closed) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ batch, resolve, reject }));
  }

  /** Runs fn once the next batch (not yet appended) is on disk; never, if it is refused. */
  afterNext(fn: () => void): void {
    if (this.failed) return;
    this.callbacks.push({ batch: this.appended + 1, fn });
  }

  /** Runs fn once every batch appended so far is on disk; never, if one is refused. */
  afterCurrent(fn: () => void): void {
    if (this.failed) return;
    if (this.written >= this.appended) return fn();
    this.callbacks.push({ batch: this.appended, fn });
  }

  /**
   * Stops the journal for good: a batch was refused (its write failed, or it could not be
   * encoded). Every batch not yet on disk is refused with it, and the callbacks waiting for one
   * never run (an event of a refused change is never streamed or delivered).
   */
  fail(cause: Error): void {
    if (this.failed) return;
    this.failed = new Error(`could not write the journal in ${this.dir.path} (${cause.message})`);
    // Batches already queued stay queued: the group write that takes them refuses them.
    this.callbacks.length = 0;
    this.opts.warn(
      `${this.failed.message}: the changes not yet saved were refused, and every request is answered 503 persistence_failed from now on; free space on that disk (or choose another --data-dir) and restart the emulator, which serves everything acknowledged`,
    );
    this.opts.failed(this.failed);
  }

  private async writeGroup(): Promise<void> {
    this.writeScheduled = false;
    const pieces = this.pieces;
    this.pieces = [];
    const upTo = this.appended;
    if (pieces.length === 0) return;
    let refused = this.failed !== undefined;
    if (!this.failed && !this.closed) {
      try {
        const m = this.opts.meta();
        const body = Buffer.from(
          `{"n":${this.records + 1},"t":${m.simNowMs},"ids":${JSON.stringify(m.idCounters)},"o":[${pieces.filter((p) => p !== '').join(',')}]}`,
        );
        const head = Buffer.from(`${crc32(body).toString(16).padStart(8, '0')} `);
        const line = [head, body, NEWLINE];
        const total = head.length + body.length + 1;
        const fault = this.fault;
        this.fault = undefined;
        if (fault?.during === 'write') {
          if (fault.torn) await writeAll(this.fd, [head, body], total - 1);
          throw diskError(fault.code, 'write');
        }
        await writeAll(this.fd, line, total);
        if (fault) throw diskError(fault.code, 'fdatasync');
        await fdatasyncAsync(this.fd);
        this.records++;
        this.bytes += total;
      } catch (err) {
        refused = true;
        this.fail(err as Error);
        await this.takeBack();
      }
    }
    this.settle(upTo, refused);
    if (
      !this.failed &&
      !this.closed &&
      !this.compacting &&
      this.bytes >= Math.max(this.opts.compactMinBytes, this.snapshotBytes * this.opts.compactRatio, this.retryAfterBytes)
    ) {
      void this.compact();
    }
  }

  /**
   * A refused line may be in the file, whole or cut short (a whole one would be replayed, and
   * one cut just before its newline is kept as written whole): the file goes back to the size
   * it had, durably, so that no restart shows what was answered 503.
   */
  private async takeBack(): Promise<void> {
    try {
      await ftruncateAsync(this.fd, this.bytes);
      await fdatasyncAsync(this.fd);
    } catch (err) {
      this.opts.warn(
        `could not cut the refused record back out of ${join(this.dir.path, journalName(this.gen))} (${(err as Error).message}): a restart may show changes that were answered 503`,
      );
    }
  }

  /** Answers the batches up to `upTo`: durable, or refused with the failure. */
  private settle(upTo: number, refused: boolean): void {
    this.written = upTo;
    while (this.waiters.length > 0 && this.waiters[0]!.batch <= upTo) {
      const w = this.waiters.shift()!;
      if (refused) w.reject(this.failed!);
      else w.resolve();
    }
    while (this.callbacks.length > 0 && this.callbacks[0]!.batch <= upTo) this.callbacks.shift()!.fn();
  }

  /** Rewrites the state as a new snapshot; the journals it replaces are deleted. Safe to call at any time. */
  compact(): Promise<void> {
    this.compacting ??= this.rewrite().finally(() => {
      this.compacting = undefined;
    });
    return this.compacting;
  }

  private async rewrite(): Promise<void> {
    const dir = this.dir.path;
    const tmp = join(dir, `${SNAPSHOT}.${process.pid}.tmp`);
    let out: FileHandle | undefined;
    try {
      // 1. A new journal: every change from now on goes there (after the writes already queued).
      // Its header names the snapshot being written and the size the old journal ends at.
      const oldGen = this.gen;
      const id = randomBytes(8).toString('hex');
      await this.run(async () => {
        if (this.failed) throw this.failed;
        const headerBytes = await createJournal(dir, oldGen + 1, { snapshot: id, prev: { gen: oldGen, bytes: fstatSync(this.fd).size } });
        const fd = openSync(join(dir, journalName(oldGen + 1)), constants.O_WRONLY | constants.O_APPEND);
        closeSync(this.fd);
        this.fd = fd;
        this.gen = oldGen + 1;
        this.bytes = headerBytes;
        this.records = 0;
      });
      // 2. Every record, a chunk at a time: requests are served between chunks. A record
      // changed meanwhile is written as it is when read, and its change is in the new journal.
      out = await open(tmp, 'w', FILE_MODE);
      let crc = 0;
      let size = 0;
      let count = 0;
      let chunk: string[] = [];
      let chunkBytes = 0;
      const flush = async () => {
        const buf = Buffer.from(chunk.join(''));
        chunk = [];
        chunkBytes = 0;
        crc = crc32(buf, crc);
        size += buf.length;
        await out!.writeFile(buf);
      };
      chunk.push(`${JSON.stringify({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, id, journal: this.gen, savedAt: new Date().toISOString() })}\n`);
      for (const [key, id, value] of this.opts.records()) {
        const line = `${JSON.stringify([key, id, value])}\n`;
        chunk.push(line);
        chunkBytes += line.length;
        count++;
        if (chunkBytes >= SNAPSHOT_CHUNK) await flush();
        else if (count % YIELD_EVERY === 0) await yieldToLoop();
        if (this.closed) throw new Error('the emulator is closing');
      }
      await flush();
      // 3. Everything the snapshot read is durable in the new journal; the id counters now cover it.
      await this.opts.prepare();
      chunk.push(`${JSON.stringify({ end: true, records: count, crc32: crc, meta: this.opts.meta() })}\n`);
      await flush();
      await out.datasync();
      await out.close();
      out = undefined;
      // 4. Into place, durably; then what it replaces goes.
      await rename(tmp, join(dir, SNAPSHOT));
      await syncDir(dir);
      this.snapshotBytes = size;
      for (let g = oldGen; g >= 1; g--) {
        const gone = await unlinkAsync(join(dir, journalName(g))).then(
          () => true,
          (err: NodeJS.ErrnoException) => err.code !== 'ENOENT',
        );
        if (!gone) break;
      }
      await unlinkAsync(join(dir, LEGACY)).catch(() => {});
      this.retryAfterBytes = 0;
    } catch (err) {
      this.retryAfterBytes = this.bytes + Math.max(this.opts.compactMinBytes, 1024 * 1024);
      if (out) await out.close().catch(() => {});
      unlink(tmp, () => {});
      if (!this.closed) this.opts.warn(`could not compact the state in ${dir} (${(err as Error).message}); the journal keeps growing until the next try`);
    }
  }

  /** Runs `task` between two group writes (nothing is being written while it runs). */
  private run(task: () => Promise<void>): Promise<void> {
    const p = this.chain.then(task);
    this.chain = p.catch(() => {});
    return p;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.compacting;
    await this.chain;
    closeSync(this.fd);
  }
}

const NEWLINE = Buffer.from('\n');

const DISK_MESSAGES = { ENOSPC: 'no space left on device', EIO: 'i/o error' };

/** The error a write or an fdatasync gets from a full or failing disk, as Node gives it. */
function diskError(code: JournalFault['code'], syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${DISK_MESSAGES[code]}, ${syscall}`), { code, syscall });
}

async function writeAll(fd: number, bufs: Buffer[], total: number): Promise<void> {
  let done = (await writevAsync(fd, bufs)).bytesWritten;
  while (done < total) {
    // A short write: continue from where it stopped.
    let skip = done;
    const rest: Buffer[] = [];
    for (const b of bufs) {
      if (skip >= b.length) {
        skip -= b.length;
        continue;
      }
      rest.push(skip > 0 ? b.subarray(skip) : b);
      skip = 0;
    }
    done += (await writevAsync(fd, rest)).bytesWritten;
  }
}
