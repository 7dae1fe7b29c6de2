import { randomBytes } from 'node:crypto';
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
 * Opens a temporary file beside `path` (its folder created when missing), to be committed
 * (renamed over `path`) or discarded. Opened before its content is ready, so that the
 * content is written, on libuv's threads, as soon as it is.
 */
export async function openAtomic(path: string): Promise<AtomicFile> {
  const target = resolve(path);
  const dir = dirname(target);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
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
