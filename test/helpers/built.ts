import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { testStateDir } from './state-dir.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/vap.js', import.meta.url));

/** e2e tests run the built binary; `npm test` builds first. */
export function assertBuilt(): void {
  if (!existsSync(new URL('../../dist/cli.js', import.meta.url))) throw new Error('dist/ is missing: run `npm run build` first (npm test does it)');
}

export interface VapResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/vap.js ...args` as a user would (stdout and stderr piped), with a clean environment plus `env`. */
export async function vap(args: string[], opts: { env?: Record<string, string>; input?: string; cwd?: string; timeout?: number } = {}): Promise<VapResult> {
  const r = await execa('node', [BIN, ...args], {
    reject: false,
    extendEnv: false,
    cwd: opts.cwd,
    timeout: opts.timeout,
    ...(opts.input === undefined ? { stdin: 'ignore' as const } : { input: opts.input }),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', VAP_STATE_DIR: testStateDir(), ...opts.env },
  });
  return { exitCode: r.exitCode ?? 1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** Inputs (source files and packages) bundled into each output file of dist/. */
export function bundleInputs(): Map<string, string[]> {
  const meta = JSON.parse(readFileSync(new URL('../../dist/meta.json', import.meta.url), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  return new Map(Object.entries(meta.outputs).map(([out, o]) => [out, Object.keys(o.inputs)]));
}
