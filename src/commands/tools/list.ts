import { Command } from 'commander';
import type { Context } from '../../context.js';
import { AGENTS_READ, toolsOfAgents, whereToolIdsAre, type SeenTool } from '../../tools/seen.js';
import { withPolicy } from '../../ui/columns.js';
import type { Column } from '../../ui/format.js';
import { count } from '../../ui/values.js';
import { action } from '../action.js';
import { wideOption } from '../listing.js';
import type { ContextFactory } from '../types.js';

interface ListOptions {
  all?: boolean;
}

export const TOOL_COLUMNS: Column<SeenTool>[] = withPolicy<SeenTool>(
  [
    { header: 'id', value: (t) => t.id },
    { header: 'name', value: (t) => t.name },
    { header: 'agents', value: (t) => count(t.agentCount) },
  ],
  { keep: ['id', 'name'] },
);

export function listCommand(makeContext: ContextFactory): Command {
  return new Command('list')
    .alias('ls')
    .description('List the tools vap can see, with their ids: those of the agents this key can read')
    .option('--all', `read every agent (by default the first ${AGENTS_READ}, those a tool name is looked for among)`)
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
The API has no tool listing: a tool is seen on the agents that have it. The ids are what
\`agents create --tool\` and \`agents tools --set\` take (a name works too, for a tool listed
here). A tool no agent has yet is not listed: its id is on the product's tool page. Piped,
one tool per line: id, name, how many of the agents read have it (TSV); --json gives
\`[{ id, name, agentCount }]\`.

Examples:
  $ vap tools list
  $ vap tools list --all --json
  $ vap tools list -q`,
    )
    .action(action<ListOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: ListOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const seen = await toolsOfAgents(api, { all: opts.all, signal: ctx.signal });
  const none =
    seen.agentsRead === 0
      ? 'No tools seen: this key can read no agent yet (the API lists tools only through agents).'
      : `No tools seen: none of the ${count(seen.agentsRead).human(ctx.present)} agents this key can read has a tool (the API lists tools only through agents).`;
  if (seen.tools.length === 0 && ctx.out.human) {
    // Said through the context, which wraps it between words on a terminal (a listing's empty line is not wrapped).
    ctx.info(`${none} Give a tool by its id, ${whereToolIdsAre(api.baseUrl)}.`);
    return;
  }
  await ctx.out.list(seen.tools, { columns: TOOL_COLUMNS });
  if (!seen.complete && seen.tools.length > 0) {
    const of = seen.agentsTotal !== undefined ? ` of ${seen.agentsTotal}` : '';
    ctx.info(`The tools of the first ${seen.agentsRead}${of} agents; --all reads every agent.`);
  }
}
