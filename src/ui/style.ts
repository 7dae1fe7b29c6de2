import type { ChalkInstance } from 'chalk';

let chalkModule: typeof import('chalk') | undefined;

/** A chalk instance with colour on or off, loaded on first use. */
export async function loadChalk(color: boolean): Promise<ChalkInstance> {
  chalkModule ??= await import('chalk');
  return new chalkModule.Chalk({ level: color ? 1 : 0 });
}

/** Whether colour is wanted on a stream: NO_COLOR, --no-color and non-TTY turn it off; FORCE_COLOR turns it on. */
export function colorEnabled(opts: { flag: boolean; isTTY: boolean; env: Record<string, string | undefined> }): boolean {
  if (!opts.flag) return false;
  if (opts.env.NO_COLOR !== undefined && opts.env.NO_COLOR !== '') return false;
  const force = opts.env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (opts.env.TERM === 'dumb') return false;
  return opts.isTTY;
}
