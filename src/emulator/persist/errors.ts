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
