import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa, type Options } from 'execa';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/vap.js', import.meta.url));

/** e2e tests run the built binary; `npm test` builds first. */
export function assertBuilt(): void {
  if (!existsSync(new URL('../../dist/cli.js', import.meta.url))) throw new Error('dist/ is missing: run `npm run build` first (npm test does it)');
}

/** Runs `node bin/vap.js ...args` as a user would, with a clean environment plus `env`. */
export function vap(args: string[], opts: Options & { env?: Record<string, string> } = {}) {
  return execa('node', [BIN, ...args], {
    reject: false,
    extendEnv: false,
    stdin: 'ignore',
    ...opts,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...opts.env },
  });
}

/** Inputs (source files and packages) bundled into each output file of dist/. */
export function bundleInputs(): Map<string, string[]> {
  const meta = JSON.parse(readFileSync(new URL('../../dist/meta.json', import.meta.url), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  return new Map(Object.entries(meta.outputs).map(([out, o]) => [out, Object.keys(o.inputs)]));
}
