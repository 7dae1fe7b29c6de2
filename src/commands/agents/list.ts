import { Command } from 'commander';
import { listAgentsPage, AGENTS_MAX_PAGE_SIZE, type Agent } from '../../api/agents.js';
import { paginate } from '../../api/paginate.js';
import type { Context } from '../../context.js';
import { withPolicy } from '../../ui/columns.js';
import type { Column } from '../../ui/format.js';
import { action } from '../action.js';
import { addListingOptions, paginateOptions, type ListingOptions } from '../listing.js';
import type { ContextFactory } from '../types.js';

interface ListOptions extends ListingOptions {
  search?: string;
}

export const AGENT_COLUMNS: Column<Agent>[] = withPolicy<Agent>(
  [
    { header: 'id', value: (a) => a.id },
    { header: 'name', value: (a) => a.name },
    { header: 'engine', value: (a) => a.engine },
    { header: 'version', value: (a) => a.currentVersion },
    { header: 'voice', value: (a) => (a.voice ? `${a.voice.name} (${a.voice.language})` : '') },
  ],
  { keep: ['id', 'name'], dropFirst: ['voice'] },
);

export function listCommand(makeContext: ContextFactory): Command {
  return addListingOptions(new Command('list').alias('ls').description('List agents').option('--search <text>', 'match name, description or tag'))
    .addHelpText(
      'after',
      `
Examples:
  $ vap agents list
  $ vap agents list --search support --limit 100
  $ vap agents list --all -o ndjson > agents.ndjson
  $ vap agents list --json --query "[?engine=='realtime'].id"`,
    )
    .action(action<ListOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: ListOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const items = paginate((req) => listAgentsPage(api, { ...req, search: opts.search }, ctx.signal), paginateOptions(opts, AGENTS_MAX_PAGE_SIZE));
  await ctx.out.list(items, {
    columns: AGENT_COLUMNS,
    empty: opts.search ? `No agents match "${opts.search}".` : 'No agents yet. Create one with `vap agents create`.',
  });
}
