import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { FILE_MODE, StateFileError, startWriteError } from './errors.js';

/**
 * The lock of a data directory: a second emulator refuses to start, a dead one's lock is taken
 * over. Hand-written: proper-lockfile judges staleness by age on a timer, so a restart after a
 * SIGKILL would wait, and its lock cannot say whose it is (src/emulator/README.md).
 */

export const LOCK = 'state.lock';
/** Held for the instant of a takeover, so that two emulators never both replace a stale lock. */
export const LOCK_TAKEOVER = 'state.lock.takeover';

interface LockInfo {
  pid: number;
  host: string;
  boot?: string;
  startedAt: string;
  token: string;
}

export interface DataDirLock {
  file: string;
  /** Removes the lock if it is still this process's. */
  release(): void;
}

export function acquireLock(dir: string): DataDirLock {
  const file = join(dir, LOCK);
  const mine: LockInfo = { pid: process.pid, host: hostname(), boot: bootId(), startedAt: new Date().toISOString(), token: randomBytes(8).toString('hex') };
  const lock: DataDirLock = {
    file,
    release() {
      const held = readLock(file);
      if (held !== undefined && held !== 'gone' && held.token === mine.token) unlinkQuietly(file);
    },
  };
  for (let attempt = 0; attempt < 20; attempt++) {
    if (createExclusive(dir, file, mine)) return lock;
    const held = readLock(file);
    if (held === 'gone') continue;
    if (held === undefined) {
      // Being written this instant by another emulator, or left empty by one that died
      // between creating and writing it: stale once it is a few seconds old.
      if (!olderThan(file, 5000)) {
        pause(50);
        continue;
      }
    } else if (alive(held)) {
      const where = held.host === mine.host ? '' : ` on ${held.host}`;
      throw new StateFileError(
        dir,
        `is in use by another emulator (pid ${held.pid}${where}, started ${held.startedAt})`,
        `stop that emulator first, or pass another --data-dir; if no emulator uses it, delete ${file}`,
      );
    }
    takeOver(dir, file, held, mine);
  }
  throw new StateFileError(
    dir,
    'could not be locked (its lock file keeps changing)',
    `make sure no other emulator is starting on it, then try again; if none is, delete ${file}`,
  );
}

/** Replaces a stale lock, under the takeover lock so that only one emulator replaces it. */
function takeOver(dir: string, file: string, stale: LockInfo | undefined, mine: LockInfo): void {
  const claim = join(dir, LOCK_TAKEOVER);
  if (!createExclusive(dir, claim, mine)) {
    const other = readLock(claim);
    // Another emulator is taking it over right now, or one died doing so.
    if (other === 'gone' || (other !== undefined && alive(other)) || (other === undefined && !olderThan(claim, 5000))) return pause(50);
    unlinkQuietly(claim);
    return;
  }
  try {
    const now = readLock(file);
    const same = now === undefined || now === 'gone' ? now === stale : now.token === stale?.token;
    if (same) unlinkQuietly(file);
  } finally {
    unlinkQuietly(claim);
  }
}

function createExclusive(dir: string, file: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw startWriteError(dir, err, file);
  }
  // A lock that could not be written whole (a full disk) is removed at once: an empty or cut
  // lock left behind would hold off every later start for seconds, or for good.
  let failure: unknown;
  try {
    const text = Buffer.from(`${JSON.stringify(info)}\n`);
    if (writeSync(fd, text) !== text.length) failure = Object.assign(new Error('no space left on device, write'), { code: 'ENOSPC' });
  } catch (err) {
    failure = err;
  }
  try {
    closeSync(fd);
  } catch (err) {
    failure ??= err;
  }
  if (failure !== undefined) {
    unlinkQuietly(file);
    throw startWriteError(dir, failure, file);
  }
  return true;
}

/** The lock's content; 'gone' when there is no file, undefined when it does not read as a lock. */
function readLock(file: string): LockInfo | 'gone' | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : undefined;
  }
  try {
    const v = JSON.parse(text) as LockInfo;
    if (Number.isInteger(v.pid) && v.pid > 0 && typeof v.host === 'string' && typeof v.token === 'string') return v;
  } catch {
    // not a lock
  }
  return undefined;
}

/** True unless the process is known to be gone (only a lock of this host can be checked). */
function alive(info: LockInfo): boolean {
  if (info.host !== hostname()) return true;
  const boot = bootId();
  if (boot !== undefined && info.boot !== undefined && info.boot !== boot) return false;
  try {
    process.kill(info.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

let boot: string | undefined | null = null;
/** Linux's boot id (a lock from before the last boot is stale whatever its pid); undefined elsewhere. */
function bootId(): string | undefined {
  if (boot === null) {
    try {
      boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
    } catch {
      boot = undefined;
    }
  }
  return boot;
}

function olderThan(file: string, ms: number): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > ms;
  } catch {
    return true;
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
