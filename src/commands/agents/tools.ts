import { Command } from 'commander';
import { getAgentTools, setAgentTools, type Tool } from '../../api/agents.js';
import type { Context } from '../../context.js';
import type { Column } from '../../ui/format.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

export interface ToolsOptions {
  set?: string;
}

const TOOL_COLUMNS: Column<Tool>[] = [
  { header: 'id', value: (t) => t.id },
  { header: 'name', value: (t) => t.name },
];

/** `--set a,b,c`: ids split on commas, blanks dropped, duplicates collapsed; `--set ""` is the empty list. */
export function parseToolIds(value: string): string[] {
  const ids: string[] = [];
  for (const part of value.split(',')) {
    const id = part.trim();
    if (id && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

export function toolsCommand(makeContext: ContextFactory): Command {
  return new Command('tools')
    .description("Show an agent's tools, or replace the whole list with --set")
    .argument('<agentId>', 'the agent id')
    .option('--set <ids>', 'comma-separated tool ids replacing the current list in one step ("" removes every tool)')
    .addHelpText(
      'after',
      `
Examples:
  $ vap agents tools ag_3k9x0c1m2p8q7r4t
  $ vap agents tools ag_3k9x0c1m2p8q7r4t --set tool_calendar01,tool_crm02
  $ vap agents tools ag_3k9x0c1m2p8q7r4t --set ""                 (remove every tool)`,
    )
    .action(action<ToolsOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(agentId: string, opts: ToolsOptions, ctx: Context): Promise<void> {
  const ids = opts.set === undefined ? undefined : parseToolIds(opts.set);
  const api = await ctx.api();
  const tools = ids === undefined ? await getAgentTools(api, agentId, ctx.signal) : await setAgentTools(api, agentId, ids);
  await ctx.out.list(tools, { columns: TOOL_COLUMNS, empty: `Agent ${agentId} has no tools.` });
  if (ids !== undefined) {
    await ctx.success(tools.length === 0 ? `Removed every tool from agent ${agentId}` : `Agent ${agentId} now has ${tools.length} tool${tools.length === 1 ? '' : 's'}`);
  }
}
