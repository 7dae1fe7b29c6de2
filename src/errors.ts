import { ExitCode, type ExitCodeValue } from './exit-codes.js';

/** An error the CLI reports as one line and maps to an exit code. */
export class CliError extends Error {
  readonly exitCode: ExitCodeValue;
  readonly hint?: string;
  constructor(message: string, exitCode: ExitCodeValue = ExitCode.FAILURE, hint?: string) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.hint = hint;
  }
}

/** Bad flag, argument or input. Nothing was sent. Exit 2. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.USAGE, hint);
    this.name = 'UsageError';
  }
}

/** No key, or the key was refused. Exit 4. */
export class AuthRequiredError extends CliError {
  constructor(message = 'no API key found', hint = 'run `vap auth login`, or set VAP_API_KEY') {
    super(message, ExitCode.AUTH, hint);
    this.name = 'AuthRequiredError';
  }
}

/** A quality gate failed. Exit 3. */
export class GateError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.GATE);
    this.name = 'GateError';
  }
}

/** A --wait or watch ran past its --timeout. Exit 124. */
export class WaitTimeoutError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.TIMEOUT);
    this.name = 'WaitTimeoutError';
  }
}

/** Ctrl-C. Exit 130. */
export class InterruptedError extends CliError {
  constructor(message = 'interrupted') {
    super(message, ExitCode.INTERRUPTED);
    this.name = 'InterruptedError';
  }
}

/** Exits with a code and no message (the command already said what it had to). */
export class SilentExit extends CliError {
  constructor(exitCode: ExitCodeValue) {
    super('', exitCode);
    this.name = 'SilentExit';
  }
}

/**
 * Standard output could not be written (ENOSPC, EIO, a closed descriptor...): one line and
 * exit 1. A closed pipe (EPIPE) is not an error and never becomes one of these.
 */
export class OutputError extends CliError {
  readonly code?: string;
  constructor(cause: unknown) {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    super(`cannot write to standard output: ${writeProblem(cause)}`, ExitCode.FAILURE, 'check where the output goes (a full disk, a closed file)');
    this.name = 'OutputError';
    this.code = code;
  }
}

function writeProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const known: Record<string, string> = {
    ENOSPC: 'no space left on the device',
    EDQUOT: 'the disk quota is exceeded',
    EFBIG: 'the file is too large',
    EIO: 'an input/output error',
    EBADF: 'it is closed',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'the file system is read-only',
  };
  if (code && known[code]) return `${known[code]} (${code})`;
  return code ?? ((err as Error | undefined)?.message || 'unknown error');
}
