import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli.js';
import type { IO } from '../../src/context.js';
import { testStateDir } from './state-dir.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Text given on stdin. */
  stdin?: string;
  /** Pretend stdout/stderr/stdin are terminals (tables, prompts). Default false: piped. */
  tty?: boolean;
  signal?: AbortSignal;
}

/**
 * Runs the CLI in-process with test streams, the way a user would run it but
 * without a child process: argv in, exit code and captured output out.
 * The environment is exactly `env` (plus VAP_CONFIG_DIR if given), never the test runner's;
 * VAP_STATE_DIR defaults to a temporary folder of this test process, never the user's.
 */
export async function runCli(argv: string[], opts: RunOptions = {}): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const io: IO = {
    stdin: Readable.from(opts.stdin === undefined ? [] : [opts.stdin]),
    stdout,
    stderr,
    stdinIsTTY: Boolean(opts.tty),
    stdoutIsTTY: Boolean(opts.tty),
    stderrIsTTY: Boolean(opts.tty),
  };
  const code = await main(argv, {
    io,
    env: { NO_COLOR: '1', VAP_STATE_DIR: testStateDir(), ...opts.env },
    signal: opts.signal ?? new AbortController().signal,
  });
  return { code, stdout: out, stderr: err };
}

/** Environment for a CLI run against a test emulator with an isolated config directory. */
export function cliEnv(url: string, apiKey: string, configDir?: string): Record<string, string> {
  return { VAP_BASE_URL: url, VAP_API_KEY: apiKey, ...(configDir ? { VAP_CONFIG_DIR: configDir } : {}) };
}
