import { InvalidArgumentError, Option } from 'commander';
import { action } from '../action.js';
import { positiveInt } from '../listing.js';
import type { RegisterGroup } from '../types.js';
import type { ServeOptions } from './serve.js';
import { configCommand } from './config.js';

/** A TCP port: 0 (any free one) to 65535. */
function port(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n > 65_535) throw new InvalidArgumentError('--http takes a port number (0 picks a free one).');
  return n;
}

/**
 * `vap mcp` is a group that is also a verb: `vap mcp` serves the Model Context Protocol, `vap mcp
 * config` prints a client's configuration. The server and the SDK (src/mcp/) are loaded only when
 * `vap mcp` runs, never for its help or for `vap mcp config`.
 */
export const register: RegisterGroup = (group, makeContext) => {
  group
    .option('--allow-writes', 'allow the tools that change the platform (each destructive one also needs confirm = the id it changes)')
    .addOption(
      new Option('--http <port>', 'serve Streamable HTTP on 127.0.0.1:<port> (0: a free port) instead of stdio; a bearer token is printed once').argParser(
        port,
      ),
    )
    .option('--max-result <chars>', 'cut results larger than this many characters, saying how to read the rest (default 40000)', positiveInt('--max-result'))
    .addHelpText(
      'after',
      `
Examples:
  $ vap mcp                                   (stdio: what an assistant's client starts)
  $ vap mcp --allow-writes --profile staging
  $ vap mcp --http 8123                       (prints the URL and a bearer token once)
  $ vap mcp config --client claude`,
    )
    .action(
      action<ServeOptions>(makeContext, async (_args, opts, ctx) => {
        const { run } = await import('./serve.js');
        await run(opts, ctx);
      }),
    );
  group.addCommand(configCommand(makeContext));
};
