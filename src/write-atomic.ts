import { randomBytes } from 'node:crypto';
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/** A file being written so that readers see the old content or the new one, never a part. */
export interface AtomicFile {
  /** Writes the content to the temporary file, closes it, and renames it over the target. */
  commit(content: string | Uint8Array): Promise<void>;
  /** Closes and removes the temporary file; the target is left as it was. */
  discard(): Promise<void>;
}

/**
 * Opens a temporary file beside `path` (creating its folder) to be committed (renamed over `path`)
 * or discarded, before the content is ready so that it is written on libuv's threads as soon as it
 * is. A killed vap's temporary files of the same target are removed first (removeStaleTemps).
 */
export async function openAtomic(path: string): Promise<AtomicFile> {
  const target = resolve(path);
  const dir = dirname(target);
  await mkdir(dir, { recursive: true });
  removeStaleTemps(dir, basename(target));
  const tmp = tempPathFor(target);
  const handle = await open(tmp, 'wx');
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  const discard = async () => {
    await close().catch(() => undefined);
    await rm(tmp, { force: true }).catch(() => undefined);
  };
  return {
    async commit(content) {
      try {
        const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
        // One write for the whole content (FileHandle.writeFile would cut it into 512 KB
        // writes, each waiting for a turn of the event loop); a short write goes on.
        for (let done = 0; done < data.byteLength; ) done += (await handle.write(data, done, data.byteLength - done)).bytesWritten;
        await close();
        await rename(tmp, target);
      } catch (err) {
        await discard();
        throw err;
      }
    },
    discard,
  };
}

/** Writes a file atomically: a temporary file beside it, then a rename (the folder is created when missing). */
export async function writeFileAtomic(path: string, content: string | Uint8Array): Promise<void> {
  await (await openAtomic(path)).commit(content);
}

/**
 * Temporary files are named `.<target name>.<pid>-<random><counter>.tmp`: the pid so that another
 * vap can tell a live writer's file from a killed one's; a per-process random part and a counter
 * (opened with O_EXCL, so a name that exists anyway is an error, never written through).
 */
let tmpPrefix: string | undefined;
let tmpCount = 0;
export function tempPathFor(target: string): string {
  tmpPrefix ??= randomBytes(6).toString('hex');
  return join(dirname(target), `.${basename(target)}.${process.pid}-${tmpPrefix}${(tmpCount++).toString(36)}.tmp`);
}

/** How long a temporary file must have been left alone before it counts as a killed writer's. */
export const STALE_TEMP_MS = 5 * 60_000;

/** A name of vap's temporary files: the target's name, then the pid and random part; or, as versions before the pid wrote them, the random part alone. */
const TEMP_NAME = /^\.(.+)\.(?:([1-9][0-9]{0,9})-)?[0-9a-f]{12}[0-9a-z]*\.tmp$/;

/**
 * Whether `name` is one of vap's temporary names (of the target `base`, when given): the
 * pid it carries, null for a name without one, undefined for any other name.
 */
export function tempOwner(name: string, base?: string): number | null | undefined {
  const m = TEMP_NAME.exec(name);
  if (!m || (base !== undefined && m[1] !== base)) return undefined;
  if (m[2] === undefined) return null;
  const pid = Number(m[2]);
  return pid <= 0x7fffffff ? pid : undefined;
}

/**
 * Removes the temporary files a killed vap left in `dir` (of targets named `base`, if given): regular
 * files with vap's temporary names, older than STALE_TEMP_MS, whose pid is not alive (so neither a live
 * vap's file nor a recent one from another pid namespace is taken). Never throws; returns the names removed.
 */
export function removeStaleTemps(dir: string, base?: string, now = Date.now()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.endsWith('.tmp') || name.charCodeAt(0) !== 0x2e) continue;
    const pid = tempOwner(name, base);
    if (pid === undefined) continue;
    try {
      const path = join(dir, name);
      const st = lstatSync(path, { throwIfNoEntry: false });
      if (!st?.isFile() || now - st.mtimeMs < STALE_TEMP_MS || (pid !== null && isAlive(pid))) continue;
      unlinkSync(path);
      removed.push(name);
    } catch {
      // gone meanwhile, or not ours to remove (permissions): left as it is
    }
  }
  return removed;
}

/** Whether a process with this id runs (one of another user answers EPERM: it runs). */
function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
