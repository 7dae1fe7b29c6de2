import type { Command } from 'commander';
import { checkId } from '../api/path.js';
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
    checkIdArguments(cmd, positional);
    const opts = cmd.optsWithGlobals() as O & GlobalOptions;
    const ctx = await makeContext(opts);
    try {
      await run(args, opts, ctx);
    } finally {
      await ctx.dispose();
    }
  };
}

/**
 * Arguments that name an id (`<agentId>`, `[runId]`, `<runA|evalId>`, `<contactId...>`) are
 * checked before anything runs, so that the usage error names the argument. The HTTP layer
 * checks every id again where it goes into a path (src/api/path.ts), whatever its source.
 */
export function checkIdArguments(cmd: Command, positional: unknown[]): void {
  cmd.registeredArguments.forEach((arg, i) => {
    const name = arg.name();
    if (!/Id\b|Id$|^run[AB]?\b/.test(name)) return;
    const value = positional[i];
    const label = arg.required ? `<${name}${arg.variadic ? '...' : ''}>` : `[${name}]`;
    for (const v of Array.isArray(value) ? value : [value]) if (typeof v === 'string') checkId(v, label);
  });
}
