import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { access, constants, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isConnectionCut } from '../api/errors.js';
import { CliError, UsageError } from '../errors.js';
import { LiveLine } from '../ui/live-line.js';
import { safeText } from '../ui/safe-text.js';

/**
 * Saving a downloaded stream (`calls audio`, `voices preview`) without buffering it: to a file,
 * whole or not at all (a temporary file beside it, renamed once every announced byte arrived),
 * or to stdout with back-pressure.
 */

export type Progress = (received: number, total: number | undefined) => void;

/** Before anything is sent: the directory exists and is writable, and the target is not a directory. */
export async function checkWritable(file: string, flag = '-O'): Promise<void> {
  const target = resolve(file);
  const dir = dirname(target);
  try {
    await access(dir, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot write ${flag} ${file}: ${code === 'ENOENT' ? `the directory ${dir} does not exist` : `the directory ${dir} is not writable`}`);
  }
  const st = await stat(target).catch(() => undefined);
  if (st?.isDirectory()) throw new UsageError(`cannot write ${flag} ${file}: it is a directory`);
}

function counter(onChunk: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      onChunk(chunk.length);
      done(null, chunk);
    },
  });
}

function checkLength(received: number, expected: number | undefined): void {
  if (expected !== undefined && received !== expected) {
    throw new CliError(`the download ended after ${received} of ${expected} bytes`, undefined, 'nothing was kept; run the command again');
  }
}

/** Streams `body` into `file` through a temporary file; returns the bytes written. */
export async function saveToFile(
  body: AsyncIterable<Uint8Array> & NodeJS.ReadableStream,
  file: string,
  opts: { signal?: AbortSignal; expectedBytes?: number; onProgress?: Progress },
): Promise<number> {
  const target = resolve(file);
  const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.part`);
  let received = 0;
  try {
    await pipeline(
      body,
      counter((n) => {
        received += n;
        opts.onProgress?.(received, opts.expectedBytes);
      }),
      createWriteStream(tmp, { flags: 'wx' }),
      { signal: opts.signal },
    );
    checkLength(received, opts.expectedBytes);
    await rename(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw cutOff(err, received, opts.expectedBytes, 'nothing was kept; run the command again');
  }
  return received;
}

/** A body cut off by the connection, as a one-line error (nothing kept); other errors as they are. */
function cutOff(err: unknown, received: number, expected: number | undefined, hint: string): unknown {
  if (!isConnectionCut(err)) return err;
  const of = expected !== undefined ? ` after ${received} of ${expected} bytes` : ` after ${received} bytes`;
  return new CliError(`the connection closed before the download was complete${of}`, undefined, hint);
}

/** Copies `body` to an open stream (stdout) with back-pressure, leaving it open; returns the bytes. */
export async function copyToStream(
  body: AsyncIterable<Uint8Array>,
  out: Writable,
  opts: { signal?: AbortSignal; expectedBytes?: number; onProgress?: Progress },
): Promise<number> {
  let received = 0;
  try {
    for await (const chunk of body) {
      opts.signal?.throwIfAborted();
      received += chunk.length;
      opts.onProgress?.(received, opts.expectedBytes);
      if (!out.write(chunk)) await once(out, 'drain', { signal: opts.signal });
    }
  } catch (err) {
    throw cutOff(err, received, opts.expectedBytes, 'what was written is incomplete; run the command again');
  }
  checkLength(received, opts.expectedBytes);
  return received;
}

/** The byte count a response announced (`content-length`), when it gave a valid one. */
export function announcedLength(headers: Record<string, string | string[] | undefined>): number | undefined {
  const raw = headers['content-length'];
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (v === undefined || !/^\d+$/.test(v.trim())) return undefined;
  return Number(v);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1048576).toFixed(1)} MiB`;
}

/** Files at least this large show a progress line on a terminal's stderr. */
export const PROGRESS_MIN_BYTES = 1024 * 1024;

/**
 * A one-line progress meter on stderr (`\r` redrawn at most every 100 ms); `done()`
 * clears the line. When the size is unknown it counts bytes, and shows itself only
 * once `minUnknown` bytes have arrived (a small download stays silent).
 */
export function progressLine(stderr: Writable, label: string, minUnknown = 0): { update: Progress; done: () => void } {
  let last = 0;
  const line = new LiveLine(stderr);
  const draw = (received: number, total: number | undefined) => {
    const pct = total ? ` (${Math.floor((received / total) * 100)}%)` : '';
    line.draw(`${safeText(label)} ${formatBytes(received)}${total ? ` of ${formatBytes(total)}` : ''}${pct}`);
  };
  return {
    update(received, total) {
      if (total === undefined && received < minUnknown) return;
      const now = Date.now();
      if (now - last < 100 && received !== total) return;
      last = now;
      draw(received, total);
    },
    done() {
      line.clear();
    },
  };
}
