import { fstatSync, writeSync } from 'node:fs';
import { CommanderError } from 'commander';
import type { Env, IO } from './context.js';
import type { ContextFactory } from './commands/types.js';
import type { TextSink } from './ui/block-writer.js';
import { ExitCode } from './exit-codes.js';
import { buildProgram, commanderExitCode, describeVerbs, helpArgv, type ProgramIO, type VerbStubs } from './program.js';
import { reportError, reportOutputFailure, type MessageWrap } from './report.js';
import { setV8Flags } from './v8-flags.js';
import { version } from './version.js';

export interface MainDeps {
  io?: IO;
  env?: Env;
  /** Aborted to interrupt the command (tests); the process's SIGINT does it otherwise. */
  signal?: AbortSignal;
}

/**
 * Runs vap with argv (without node and script) and returns the exit code. The core is in this
 * entry module so that it loads as one file; each command group and everything heavy is
 * imported when a command needs it (bin/vap.js answers `--version` without loading this at all).
 */
export async function main(argv: string[], deps: MainDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  // Under GitHub Actions every write to stdout and stderr passes one filter per stream, so that
  // no line of data reads as a workflow command (src/ui/workflow-commands.ts).
  const io = env.GITHUB_ACTIONS === 'true' ? (await import('./ui/workflow-commands.js')).guardStreams(deps.io ?? processIO()) : (deps.io ?? processIO());
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    io.stdout.write(`vap ${version()}\n`);
    return ExitCode.OK;
  }

  // V8 keeps optimising undici's WebAssembly HTTP parser after a request, and the process cannot
  // exit until it is done: a one-request command does better on the baseline compiler, set at its
  // first request (none, no node:v8). Long runs (emulator, mcp, as-code) keep the optimiser.
  const word = commandWord(argv);
  const beforeFirstRequest = !KEEPS_OPTIMISER.has(word ?? '') && !deps.io ? liftoffOnly : undefined;

  const controller = new AbortController();
  if (deps.signal?.aborted) controller.abort(deps.signal.reason);
  else deps.signal?.addEventListener('abort', () => controller.abort(deps.signal?.reason), { once: true });
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(ExitCode.INTERRUPTED);
    controller.abort(new DOMException('interrupted', 'AbortError'));
  };
  if (!deps.signal) process.on('SIGINT', onSigint);
  // `vap emulator start` and `vap mcp` run until stopped: SIGTERM (a service manager, an
  // assistant's client) stops them as Ctrl-C does, so that they exit 0 rather than die.
  // Other commands keep Node's default (SIGTERM ends the process at once).
  let terminated = false;
  const onSigterm = () => {
    terminated = true;
    controller.abort(new DOMException('terminated', 'AbortError'));
  };
  const listenSigterm = (argv[0] === 'emulator' || argv[0] === 'mcp') && !deps.signal;
  if (listenSigterm) process.on('SIGTERM', onSigterm);

  // Stack traces of unexpected errors; --verbose is for requests and never prints one.
  const debug = env.VAP_DEBUG === '1';
  try {
    // The context (output, config, the HTTP client) is a file of its own, loaded when a verb runs: help never reads it.
    // On a terminal, what wraps messages to its width is loaded with it (src/ui/fit.ts); piped, never.
    const makeContext: ContextFactory = async (globals) => {
      const [{ createContext }, fit] = await Promise.all([import('./context.js'), io.stdoutIsTTY || io.stderrIsTTY ? import('./ui/fit.js') : undefined]);
      return createContext(io, env, globals, controller.signal, { beforeFirstRequest, fit });
    };
    const program = await buildProgram(argv, io, makeContext);
    await program.parseAsync(helpArgv(program, argv) ?? argv, { from: 'user' });
    return controller.signal.aborted && !terminated ? ExitCode.INTERRUPTED : ExitCode.OK;
  } catch (err) {
    if (err instanceof CommanderError) return commanderExitCode(err);
    if (controller.signal.aborted && (err as Error)?.name === 'AbortError') {
      io.stderr.write('error: interrupted\n');
      return ExitCode.INTERRUPTED;
    }
    return reportError(err, io.stderr, { debug, wrap: io.stderrIsTTY ? await messageWrap(io, env) : undefined });
  } finally {
    if (!deps.signal) process.off('SIGINT', onSigint);
    if (listenSigterm) process.off('SIGTERM', onSigterm);
  }
}

/** For the bundle (src/build/bundle.mjs writes dist/verbs.json): the stand-ins of every verb, read from the whole tree. */
export async function verbStubs(): Promise<VerbStubs> {
  const io = { stdout: process.stdout, stderr: process.stderr };
  return describeVerbs(
    await buildProgram(
      [],
      io,
      () => {
        throw new Error('not run');
      },
      true,
    ),
  );
}

/** For `npm run docs` (src/build/docs.mjs): the generated pages of docs/, from the whole tree and the sources under `root`. */
export async function docsPages(root: string): Promise<Map<string, string>> {
  const io = { stdout: process.stdout, stderr: process.stderr };
  const program = await buildProgram(
    [],
    io,
    () => {
      throw new Error('not run');
    },
    true,
  );
  return (await import('./help/docs.js')).docsPages(program, { root });
}

/** On a terminal, an error and its hint wrap at word boundaries (src/ui/width.ts, loaded only then). */
async function messageWrap(io: IO, env: Env): Promise<MessageWrap> {
  const [{ messageText }, { terminalWidth }] = await Promise.all([import('./ui/fit.js'), import('./ui/width.js')]);
  return (text, mark) => messageText(text, terminalWidth(io.stderr, env), mark);
}

/**
 * Whether bin/vap.js ends the process as soon as `main` returned and the output is written: the
 * agents-as-code commands would otherwise wait for Node to tear down their heap of resources and
 * for V8's background compilations. They write everything before `main` returns.
 */
export function exitsWhenDone(argv: readonly string[]): boolean {
  return EXIT_WHEN_DONE.has(commandWord(argv) ?? '');
}

const EXIT_WHEN_DONE = new Set(['pull', 'diff', 'plan', 'push', 'promote', 'preview']);

/** The commands that keep V8's optimising compiler for WebAssembly (see main). */
const KEEPS_OPTIMISER = new Set(['emulator', 'mcp', 'pull', 'diff', 'plan', 'push', 'promote', 'preview']);

/** The global options that take a value (their value is not the command). */
const GLOBAL_VALUES = new Set(['--profile', '--base-url', '-o', '--output', '--query']);

/** The command a command line names: its first word that is not a global option or an option's value. */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (GLOBAL_VALUES.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

async function liftoffOnly(): Promise<void> {
  setV8Flags(await import('node:v8'), '--liftoff-only');
}

/**
 * Whether a descriptor is a terminal. A pipe, a file or a socket is known not to be one from
 * fstat alone: node:tty (which loads node:net and the streams, about 1 ms) is loaded only to
 * tell a terminal from another character device (/dev/null).
 */
function isTerminal(fd: number): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return process.getBuiltinModule('node:tty').isatty(fd);
}

/** A descriptor's answer, asked once and only when wanted (help never asks about stdin or stderr). */
function terminalQuestion(fd: number): () => boolean {
  let answer: boolean | undefined;
  return () => (answer ??= isTerminal(fd));
}

function processIO(): IO & Required<Pick<ProgramIO, 'writeOut'>> {
  // A closed pipe (`vap agents list | head -1`) is not an error. Any other failed write
  // (a full disk: `vap agents list > /dev/full`) is one line on stderr and exit 1, not a
  // stack trace; nothing more can be written there anyway.
  const onStdoutError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.exit(reportOutputFailure(err, process.stderr));
  };
  // The streams are made (about 1 ms for stdin or stderr, 2.5 ms for stdout over a pipe)
  // only when a command uses them; whether they are terminals is asked of the descriptors.
  let stdout: NodeJS.WriteStream | undefined;
  const stdoutStream = () => {
    if (!stdout) {
      stdout = process.stdout;
      stdout.on('error', onStdoutError);
    }
    return stdout;
  };
  const [stdinTTY, stdoutTTY, stderrTTY] = [terminalQuestion(0), terminalQuestion(1), terminalQuestion(2)];
  // Until a command makes the stdout stream, text goes straight to the descriptor (as the stream
  // would on Linux), so a command that prints and exits never makes it; then all goes through it,
  // in order, as does what a full pipe (EAGAIN) refuses. Not on Windows, whose console wants UTF-16.
  const direct = process.platform !== 'win32';
  const stdoutText: TextSink = {
    write(text, callback) {
      if (stdout || !direct) return stdoutStream().write(text, callback);
      let rest = Buffer.from(text);
      try {
        while (rest.length > 0) rest = rest.subarray(writeSync(1, rest));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return stdoutStream().write(rest, callback);
        onStdoutError(err as NodeJS.ErrnoException);
      }
      callback?.();
      return true;
    },
    once: (event, listener) => stdoutStream().once(event, listener),
    off: (event, listener) => stdout?.off(event, listener),
  };
  return {
    get stdin() {
      return process.stdin;
    },
    get stdout() {
      return stdoutStream();
    },
    get stderr() {
      return process.stderr;
    },
    get stdinIsTTY() {
      return stdinTTY();
    },
    get stdoutIsTTY() {
      return stdoutTTY();
    },
    get stderrIsTTY() {
      return stderrTTY();
    },
    stdoutText,
    writeOut: (text) => void stdoutText.write(text),
  };
}
