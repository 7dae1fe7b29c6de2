import type { Writable } from 'node:stream';
import { ApiError, ConnectionError } from './api/errors.js';
import { CliError, SilentExit } from './errors.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';

/** The one place where an error becomes a message on stderr and an exit code. */
export function reportError(err: unknown, stderr: Writable, opts: { debug: boolean }): ExitCodeValue {
  const { code, message } = describe(err);
  if (message) stderr.write(`error: ${message}\n`);
  if (opts.debug && err instanceof Error && err.stack && !(err instanceof CliError)) stderr.write(`${err.stack}\n`);
  return code;
}

export function describe(err: unknown): { code: ExitCodeValue; message: string } {
  if (err instanceof SilentExit) return { code: err.exitCode, message: '' };
  if (err instanceof CliError) return { code: err.exitCode, message: err.hint ? `${err.message}; ${err.hint}` : err.message };
  if (err instanceof ApiError) {
    const rid = err.requestId ? `, request id ${err.requestId}` : '';
    if (err.status === 401) {
      return { code: ExitCode.AUTH, message: `the API refused the key: ${err.message} (HTTP 401${rid}); run \`vap auth login\` with a valid key` };
    }
    if (err.status === 403) {
      return { code: ExitCode.AUTH, message: `the key may not do this: ${err.message} (HTTP 403${rid})` };
    }
    return { code: ExitCode.FAILURE, message: `${err.message} (HTTP ${err.status}${rid})` };
  }
  if (err instanceof ConnectionError) {
    return { code: ExitCode.FAILURE, message: `${err.message}; check --base-url / VAP_BASE_URL, or start a local emulator with \`vap emulator start\`` };
  }
  const name = (err as Error | undefined)?.name;
  if (name === 'AbortError' || name === 'ExitPromptError') return { code: ExitCode.INTERRUPTED, message: 'interrupted' };
  const message = err instanceof Error ? err.message : String(err);
  return { code: ExitCode.FAILURE, message: `${message} (run with --verbose or VAP_DEBUG=1 for details)` };
}
