import type { Command } from 'commander';
import type { Context, GlobalOptions } from '../context.js';
import type { ContextFactory } from './types.js';

/**
 * Wraps a verb's run function as a Commander action: positional arguments, the
 * verb's options merged with the global ones, and a Context. The context is
 * disposed of when the verb ends, however it ends.
 */
export function action<O extends object>(
  makeContext: ContextFactory,
  run: (args: string[], opts: O & GlobalOptions, ctx: Context) => Promise<void>,
): (...raw: unknown[]) => Promise<void> {
  return async (...raw: unknown[]) => {
    const cmd = raw[raw.length - 1] as Command;
    // Positions are kept (an optional argument left out is undefined); a variadic last argument is spread.
    const positional = raw.slice(0, -2);
    const last = positional[positional.length - 1];
    const args = (Array.isArray(last) ? [...positional.slice(0, -1), ...last] : positional) as string[];
    const opts = cmd.optsWithGlobals() as O & GlobalOptions;
    const ctx = makeContext(opts);
    try {
      await run(args, opts, ctx);
    } finally {
      await ctx.dispose();
    }
  };
}
