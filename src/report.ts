import type { Writable } from 'node:stream';
import { ApiError, ConnectionError, IncompleteResponseError } from './api/errors.js';
import { CliError, OutputError, SilentExit } from './errors.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { safeLines, safeText } from './ui/safe-text.js';

/**
 * The one place where an error becomes a message and an exit code. Only with `debug`
 * (VAP_DEBUG=1, not --verbose) and for an unexpected error is a stack printed: an expected error's
 * stack shows where vap noticed the problem, which helps no one fix it.
 */
export function reportError(err: unknown, stderr: Writable, opts: { debug: boolean; wrap?: MessageWrap }): ExitCodeValue {
  if (err instanceof OutputError) {
    if (outputFailureShown) return err.exitCode;
    outputFailureShown = true;
  }
  const { code, message } = describe(err);
  // Messages echo ids, names and the API's own words: one safe line, whatever they hold.
  if (message) stderr.write(`${opts.wrap ? opts.wrap(safeText(message), 'error: ') : `error: ${safeText(message)}`}\n`);
  if (opts.debug && err instanceof Error && err.stack && !isExpected(err)) stderr.write(`${safeLines(err.stack)}\n`);
  return code;
}

/** The error line wrapped for a terminal at word boundaries after its mark (src/ui/width.ts messageText), given when stderr is one. */
export type MessageWrap = (text: string, mark: string) => string;

/** Whether the line about a failed write to stdout was printed (it is printed once, whoever notices first). */
let outputFailureShown = false;

/**
 * A write to stdout failed outside any awaited write (the stream's 'error' event): the same
 * one line as reportError gives an OutputError, printed once; returns the exit code (1).
 */
export function reportOutputFailure(err: unknown, stderr: Writable): ExitCodeValue {
  return reportError(err instanceof OutputError ? err : new OutputError(err), stderr, { debug: false });
}

/** An error with a message of its own for the user (no stack trace, ever). */
export function isExpected(err: unknown): boolean {
  if (err instanceof CliError || err instanceof ApiError || err instanceof ConnectionError) return true;
  const name = (err as Error | undefined)?.name;
  return name === 'AbortError' || name === 'ExitPromptError';
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
  if (err instanceof IncompleteResponseError) {
    const hint = !err.idempotent
      ? `the ${err.method ?? 'request'} may have been carried out: check before running it again`
      : 'it was retried and failed each time; run the command again';
    return { code: ExitCode.FAILURE, message: `${err.message}; ${hint}` };
  }
  if (err instanceof ConnectionError) {
    return { code: ExitCode.FAILURE, message: `${err.message}; check --base-url / VAP_BASE_URL, or start a local emulator with \`vap emulator start\`` };
  }
  const name = (err as Error | undefined)?.name;
  if (name === 'AbortError' || name === 'ExitPromptError') return { code: ExitCode.INTERRUPTED, message: 'interrupted' };
  const message = err instanceof Error ? err.message : String(err);
  return { code: ExitCode.FAILURE, message: `${message} (an unexpected error; VAP_DEBUG=1 prints its stack trace)` };
}
