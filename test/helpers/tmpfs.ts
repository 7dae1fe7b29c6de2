import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A small tmpfs, for tests of a disk that fills up: a real ENOSPC from the kernel. Mounting
// needs root (or CAP_SYS_ADMIN); where it is not permitted the tests that need it are skipped.

/** Why a tmpfs cannot be mounted here, or undefined when it can (tried once, at load). */
export const tmpfsUnavailable: string | undefined = (() => {
  const probe = mkdtempSync(join(tmpdir(), 'vap-tmpfs-probe-'));
  try {
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { encoding: 'utf8' });
    if (r.error) return `mount cannot be run (${r.error.message})`;
    if (r.status !== 0) return `mount -t tmpfs is not permitted here (${(r.stderr || `exit ${r.status}`).trim()}); it needs root`;
    spawnSync('umount', [probe]);
    return undefined;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

export interface Tmpfs {
  /** The mount point (empty, writable). */
  dir: string;
  /** Writes a file until the disk is full (ENOSPC); returns its path. */
  fill(): string;
  unmount(): void;
}

/** Mounts a tmpfs of `bytes` bytes in a new folder under the system's temporary folder. */
export function mountTmpfs(bytes: number): Tmpfs {
  let fills = 0;
  const dir = mkdtempSync(join(tmpdir(), 'vap-tmpfs-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mount -t tmpfs failed: ${r.stderr}`);
  return {
    dir,
    fill() {
      const file = join(dir, `filler-${process.pid}-${fills++}`);
      const page = Buffer.alloc(4096, 0x61);
      const fd = openSync(file, 'a');
      try {
        // Pages, then single bytes: the disk is left without a byte to spare.
        for (const chunk of [page, page.subarray(0, 1)]) {
          for (;;) {
            try {
              writeSync(fd, chunk);
            } catch (err) {
              if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
              throw err;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
      return file;
    },
    unmount() {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
