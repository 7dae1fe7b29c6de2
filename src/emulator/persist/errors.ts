import { basename } from 'node:path';

/** A state file or data directory the emulator cannot start on: the message names the file and what to do. */
export class StateFileError extends Error {
  constructor(
    readonly file: string,
    reason: string,
    fix = 'the emulator will not start on a partial state: restore the file from a backup, or start with another --data-dir',
  ) {
    super(`${file} ${reason}; ${fix}`);
    this.name = 'StateFileError';
  }
}

/** Files are created 0600 in a 0700 folder: they hold webhook secrets and contacts. */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** What the errors of a disk that takes no more writes mean, said in a start's one line. */
const DISK: Record<string, [meaning: string, fix: string]> = {
  ENOSPC: ['its disk is full', 'free space on that disk, or pass another --data-dir'],
  EDQUOT: ['its disk quota is used up', 'free space on that disk, or pass another --data-dir'],
  EROFS: ['its file system is read-only', 'pass a --data-dir on a disk you can write to'],
  EIO: ['its disk failed to write', 'check that disk, or pass another --data-dir'],
};

/** True for an error of the file system (a code such as ENOSPC or EACCES), not of vap. */
export function isFsError(err: unknown): err is NodeJS.ErrnoException {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

/**
 * A write at start that the data directory refused (a full disk, a read-only one): one line
 * naming the folder, the file and the fix. Anything else is returned as it is.
 */
export function startWriteError(dir: string, err: unknown, file?: string): unknown {
  if (err instanceof StateFileError || !isFsError(err)) return err;
  const code = err.code!;
  const what = file ?? err.path;
  const where = what ? ` while writing ${basename(what)}` : '';
  const disk = DISK[code];
  if (disk) return new StateFileError(dir, `cannot be written: ${disk[0]} (${code}${where})`, disk[1]);
  return new StateFileError(dir, `cannot be written (${code}${where})`, 'pass a --data-dir you can write to');
}
