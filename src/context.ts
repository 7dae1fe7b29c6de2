import type { Readable, Writable } from 'node:stream';
import type { ApiClient } from './api/client.js';
import type { ConfigStore } from './config/store.js';
import { readConfig } from './config/read.js';
import {
  profileEnvName,
  checkCredentials,
  checkNumericSettings,
  missingKeyError,
  numericSetting,
  resolveCredentials,
  type Credentials,
} from './config/resolve.js';
import { AuthRequiredError } from './errors.js';
import type { Format } from './ui/format.js';
import type { TableFit } from './ui/table.js';
import type { TextSink } from './ui/block-writer.js';
import { Output } from './ui/output.js';
import { createPrompter, type Prompter } from './ui/prompter.js';
import { isAccessible, plainSpinner } from './ui/accessible.js';
import { safeMessage, safeText, type Trusted } from './ui/safe-text.js';
import { startSpinner, type Spinner } from './ui/spinner.js';
import { colorEnabled, loadChalk } from './ui/style.js';
import { presentation, ServerClock, type Presentation } from './ui/values.js';
import { terminalWidth } from './ui/width.js';
import { version } from './version.js';

/** The process's streams, or a test's. Nothing below cli.ts reads `process.*`. */
export interface IO {
  stdin: Readable;
  stdout: Writable;
  /** Where Output writes (cli.ts: stdout's descriptor until the stream is made, see there); `stdout` otherwise. */
  stdoutText?: TextSink;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
}

/** The global flags of CLI.md, as Commander parses them. */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  output?: Format;
  json?: boolean;
  query?: string;
  quiet?: boolean;
  color?: boolean;
  input?: boolean;
  yes?: boolean;
  verbose?: boolean;
  /** Exact ISO 8601 times on a terminal too (src/ui/values.ts). */
  absoluteTimes?: boolean;
  /** A listing's --wide (not a global flag, read with them): whole ids in a table on a terminal. */
  wide?: boolean;
}

export type Env = Record<string, string | undefined>;

/** What every command runs with: streams, output, prompts, config, and a lazily built API client. */
export interface Context {
  io: IO;
  env: Env;
  globals: GlobalOptions;
  out: Output;
  /** How times, durations, counts and scores are shown to a person (src/ui/values.ts). */
  present: Presentation;
  prompter: Prompter;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  credentials(): Promise<Credentials>;
  config(): Promise<ConfigStore>;
  /** The API client; fails with exit 4 when there is no key. */
  api(): Promise<ApiClient>;
  /**
   * The credentials of a named profile (the active one's when it is that profile). For
   * another profile the general VAP_API_KEY is not used (it belongs to the active one):
   * its own VAP_API_KEY_<PROFILE>, or the key stored for it.
   */
  credentialsFor(profile: string): Promise<Credentials>;
  /** An API client for a named profile (`vap promote` reads two organizations). */
  apiFor(profile: string): Promise<ApiClient>;
  spinner(text: string): Promise<Spinner>;
  /** chalk for text written to stdout (colour only when wanted there). */
  stdoutStyle(): Promise<import('chalk').ChalkInstance>;
  /** How a table on stdout fits the terminal: its width when stdout is one (undefined piped), and --wide (src/ui/table.ts). */
  tableFit(): TableFit;
  /**
   * A line of information on stderr (suppressed by -q), shown like success and warn as one safe line (src/ui/safe-text.ts),
   * so that data in it can never drive the terminal. A message marked `trusted()` (built with `safe`, vap's own colours) is printed as it is.
   */
  info(message: string | Trusted): void;
  /** "✓ message" on stderr (suppressed by -q). */
  success(message: string | Trusted): Promise<void>;
  /** "! message" on stderr. */
  warn(message: string | Trusted): Promise<void>;
  /** A line on stderr that -q does not silence (where to resume a stream, say); shown as info is. */
  note(message: string | Trusted): void;
  /**
   * A line on stderr, -q or not, that ends in a command to run (`resume with: vap …`): on a
   * terminal too narrow for it, the command goes on lines of its own, copyable whole
   * (src/ui/fit.ts messageWithCommand). Both parts are shown safe.
   */
  noteCommand(text: string, command: string): void;
  /** Release what the context opened (HTTP connections). */
  dispose(): Promise<void>;
}

export interface ContextOptions {
  /** Runs once, before the first API client is made (cli.ts: the engine flags of a short-lived process). */
  beforeFirstRequest?: () => Promise<void>;
  /**
   * src/ui/fit.ts, which wraps messages to a terminal's width: loaded by cli.ts only when
   * stdout or stderr is a terminal, so that a piped command never reads its libraries.
   * Without it, every message is one line.
   */
  fit?: typeof import('./ui/fit.js');
}

export function createContext(io: IO, env: Env, globals: GlobalOptions, signal: AbortSignal, options: ContextOptions = {}): Context {
  const colorFlag = globals.color !== false;
  const outColor = colorEnabled({ flag: colorFlag, isTTY: io.stdoutIsTTY, env });
  const errColor = colorEnabled({ flag: colorFlag, isTTY: io.stderrIsTTY, env });
  const format: Format | undefined = globals.json ? 'json' : globals.output;
  // "Now" for relative times is the server's, learned from the Date header of each response.
  const serverClock = new ServerClock();
  const present = presentation({ absoluteTimes: globals.absoluteTimes, now: () => serverClock.now() });
  // Messages on a terminal's stderr wrap at word boundaries (src/ui/fit.ts); piped, each is one line.
  const say = (text: string, mark = '') =>
    options.fit && io.stderrIsTTY ? options.fit.messageText(text, terminalWidth(io.stderr, env), mark) : `${mark}${text}`;
  const tableFit = (): TableFit => ({ width: io.stdoutIsTTY ? terminalWidth(io.stdout, env) : undefined, wide: Boolean(globals.wide) });
  // VAP_ACCESSIBLE: a spinner is plain lines instead (src/ui/accessible.ts).
  const spinner = (text: string) =>
    isAccessible(env) && io.stderrIsTTY && !globals.quiet
      ? Promise.resolve(plainSpinner(text, io.stderr))
      : startSpinner(text, { stream: io.stderr, enabled: io.stderrIsTTY && !globals.quiet, color: errColor });
  const out = new Output(io.stdoutText ?? io.stdout, () => io.stderr, {
    spinner,
    format,
    query: globals.query,
    quiet: Boolean(globals.quiet),
    color: outColor,
    stdoutIsTTY: io.stdoutIsTTY,
    present,
    fit: tableFit,
  });
  const canPrompt = io.stdinIsTTY && io.stderrIsTTY && globals.input !== false && !isCI(env);
  // Streams read when a prompt is made: stdin and stderr are made only when used (cli.ts).
  const prompter = createPrompter({
    canPrompt,
    get input() {
      return io.stdin;
    },
    get output() {
      return io.stderr;
    },
  });

  let configPromise: Promise<ConfigStore> | undefined;
  let creds: Credentials | undefined;
  let client: ApiClient | undefined;
  const others = new Map<string, ApiClient>();

  const makeClient = async (c: Credentials): Promise<ApiClient> => {
    // Settings are checked before the first request: a bad one is a usage error naming it and its source.
    checkNumericSettings(env);
    checkCredentials(c);
    if (!c.apiKey) {
      // For a profile other than the active one (promote's two sides), its own variable is the way in.
      if (c.sources.profile === 'flag' && c.profile !== (await credentials()).profile) {
        throw new AuthRequiredError(
          `no API key found for profile "${c.profile}"`,
          `set ${profileEnvName('VAP_API_KEY', c.profile)}, or store a key with \`vap auth login --profile ${c.profile}\``,
        );
      }
      throw missingKeyError(c, readConfig(env).profilesWithKeys());
    }
    await options.beforeFirstRequest?.();
    const { ApiClient } = await import('./api/client.js');
    return new ApiClient({
      baseUrl: c.baseUrl,
      apiKey: c.apiKey,
      userAgent: `vap/${version()} node/${process.versions.node}`,
      timeoutMs: numericSetting(env, 'VAP_TIMEOUT_MS'),
      log: globals.verbose ? verboseLog(io.stderr) : undefined,
      onServerDate: (date) => serverClock.learn(date),
    });
  };

  const config = () => (configPromise ??= import('./config/store.js').then(({ ConfigStore }) => new ConfigStore(env)));
  const credentials = async () =>
    (creds ??= resolveCredentials({ flags: { profile: globals.profile, baseUrl: globals.baseUrl }, env, readConfig: () => readConfig(env) }));

  const ctx: Context = {
    io,
    env,
    globals,
    out,
    present,
    prompter,
    signal,
    config,
    credentials,
    async credentialsFor(profile) {
      const active = await credentials();
      if (profile === active.profile) return active;
      return resolveCredentials({
        flags: { profile, baseUrl: globals.baseUrl },
        env: { ...env, VAP_API_KEY: undefined, VAP_PROFILE: undefined },
        readConfig: () => readConfig(env),
      });
    },
    async apiFor(profile) {
      if (profile === (await credentials()).profile) return ctx.api();
      let c = others.get(profile);
      if (!c) others.set(profile, (c = await makeClient(await ctx.credentialsFor(profile))));
      return c;
    },
    async api() {
      client ??= await makeClient(await credentials());
      return client;
    },
    stdoutStyle: () => loadChalk(outColor),
    tableFit,
    spinner,
    info(message) {
      if (!globals.quiet) io.stderr.write(`${say(safeMessage(message))}\n`);
    },
    async success(message) {
      if (globals.quiet) return;
      const chalk = await loadChalk(errColor);
      io.stderr.write(`${say(safeMessage(message), `${chalk.green('✓')} `)}\n`);
    },
    async warn(message) {
      const chalk = await loadChalk(errColor);
      io.stderr.write(`${say(safeMessage(message), `${chalk.yellow('!')} `)}\n`);
    },
    note(message) {
      io.stderr.write(`${say(safeMessage(message))}\n`);
    },
    noteCommand(text, command) {
      const [t, c] = [safeText(text), safeText(command)];
      io.stderr.write(`${options.fit && io.stderrIsTTY ? options.fit.messageWithCommand(t, c, terminalWidth(io.stderr, env)) : `${t} ${c}`}\n`);
    },
    async dispose() {
      await client?.close().catch(() => undefined);
      for (const c of others.values()) await c.close().catch(() => undefined);
    },
  };
  return ctx;
}

/** The `--verbose` log: one safe line per request, response and retry (a request id or URL is the server's text). */
function verboseLog(stderr: Writable): (line: string) => void {
  return (line) => stderr.write(`${safeText(line)}\n`);
}

export function isCI(env: Env): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}
