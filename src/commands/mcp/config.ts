import { Command, Option } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

export const CLIENTS = ['claude', 'cursor', 'vscode'] as const;
export type Client = (typeof CLIENTS)[number];

interface ConfigOptions {
  client: Client;
  allowWrites?: boolean;
  name: string;
}

export function configCommand(makeContext: ContextFactory): Command {
  return (
    new Command('config')
      .description("Print the configuration that connects an assistant's client to `vap mcp` (it edits no file)")
      .addOption(new Option('--client <client>', 'the client').choices(CLIENTS).makeOptionMandatory())
      .option('--allow-writes', 'configure the server to allow writes (vap mcp --allow-writes)')
      .option('--name <name>', 'the name the client shows for the server', 'vap')
      // The options of `vap mcp` itself are the server's: the global options shown are the root's.
      .configureHelp({ visibleGlobalOptions: (cmd) => (cmd.parent?.parent?.options ?? []).filter((o) => !o.hidden) })
      .addHelpText(
        'after',
        `
The snippet goes to stdout and where to put it to stderr: .mcp.json (Claude Code),
.cursor/mcp.json (Cursor) or .vscode/mcp.json (VS Code). A --profile given here is
passed on to the server. The API key is never written into it: the server reads the
profile (\`vap auth login\`), since clients start servers with little of your
environment.

Examples:
  $ vap mcp config --client claude
  $ vap mcp config --client cursor --allow-writes > .cursor/mcp.json
  $ vap --profile staging mcp config --client vscode`,
      )
      .action(action<ConfigOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)))
  );
}

/** The args of the server as the client starts it (`mcp` first: vap knows a long-running server by its first word). */
export function serverArgs(opts: { allowWrites?: boolean }, globals: GlobalOptions): string[] {
  return [
    'mcp',
    ...(opts.allowWrites ? ['--allow-writes'] : []),
    ...(globals.profile ? ['--profile', globals.profile] : []),
    ...(globals.baseUrl ? ['--base-url', globals.baseUrl] : []),
  ];
}

/** The client's configuration file, as JSON text. */
export function configFor(client: Client, name: string, args: string[]): string {
  const server = { command: 'vap', args };
  const doc =
    client === 'vscode'
      ? { servers: { [name]: { type: 'stdio', ...server } } }
      : client === 'claude'
        ? { mcpServers: { [name]: { type: 'stdio', ...server } } }
        : { mcpServers: { [name]: server } };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

const WHERE: Record<Client, (name: string, args: string[]) => string> = {
  claude: (name, args) =>
    `Claude Code: put this in .mcp.json at the project's root (shared with the team), or run \`claude mcp add ${name} -- vap ${args.join(' ')}\`.`,
  cursor: () => 'Cursor: put this in .cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project).',
  vscode: () => 'VS Code: put this in .vscode/mcp.json in the workspace (or run "MCP: Add Server…" from the command palette).',
};

export async function run(opts: ConfigOptions & GlobalOptions, ctx: Context): Promise<void> {
  const args = serverArgs(opts, ctx.globals);
  ctx.io.stdout.write(configFor(opts.client, opts.name, args));
  ctx.info(
    `${WHERE[opts.client](opts.name, args)} Merge it into the file if it has other servers. ${opts.allowWrites ? 'Writes are allowed: each destructive tool still needs confirm equal to the id it changes.' : 'The server is read-only; add --allow-writes to allow changes.'}`,
  );
}
