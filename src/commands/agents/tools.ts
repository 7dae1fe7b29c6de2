import { Command } from 'commander';
import { getAgentTools, setAgentTools } from '../../api/agents.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withPolicy } from '../../ui/columns.js';
import type { Column } from '../../ui/format.js';
import { action } from '../action.js';
import { wideOption } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { resolveTools, TOOL_LOOKUP } from './names.js';
import type { Tool } from '../../spec/agents.js';

export interface ToolsOptions {
  set?: string;
  clear?: boolean;
}

const TOOL_COLUMNS: Column<Tool>[] = withPolicy<Tool>(
  [
    { header: 'id', value: (t) => t.id },
    { header: 'name', value: (t) => t.name },
  ],
  { keep: ['id', 'name'] },
);

/** `--set a,b,c`: ids or names split on commas, blanks dropped, duplicates collapsed. */
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
    .option('--set <tools>', 'comma-separated tool ids or names replacing the current list in one step')
    .option('--clear', 'remove every tool from the agent')
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
${TOOL_LOOKUP}

Examples:
  $ vap agents tools ag_3k9x0c1m2p8q7r4t
  $ vap agents tools ag_3k9x0c1m2p8q7r4t --set tool_calendar01,tool_crm02
  $ vap agents tools ag_3k9x0c1m2p8q7r4t --set "Calendar booking,CRM lookup"
  $ vap agents tools ag_3k9x0c1m2p8q7r4t --clear                  (remove every tool)`,
    )
    .action(action<ToolsOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(agentId: string, opts: ToolsOptions, ctx: Context): Promise<void> {
  if (opts.clear && opts.set !== undefined)
    throw new UsageError('--set and --clear disagree', 'give --set id,… to replace the tools, or --clear to remove them all');
  // An empty --set (an unset shell variable, a stray comma) would silently strip every tool: clearing is asked for by name.
  if (opts.set !== undefined && parseToolIds(opts.set).length === 0) {
    throw new UsageError(`--set "${opts.set}" names no tool`, 'give the tool ids or names (--set tool_a,tool_b), or pass --clear to remove every tool');
  }
  const refs = opts.clear ? [] : opts.set === undefined ? undefined : parseToolIds(opts.set);
  const api = await ctx.api();
  // Names are looked up before anything is changed (names.ts); ids go as they are.
  const ids = refs === undefined || refs.length === 0 ? refs : (await resolveTools(api, refs, { agentId, flag: '--set', signal: ctx.signal })).ids;
  const tools = ids === undefined ? await getAgentTools(api, agentId, ctx.signal) : await setAgentTools(api, agentId, ids);
  await ctx.out.list(tools, { columns: TOOL_COLUMNS, empty: `Agent ${agentId} has no tools.` });
  if (ids !== undefined) {
    await ctx.success(
      tools.length === 0 ? `Removed every tool from agent ${agentId}` : `Agent ${agentId} now has ${tools.length} tool${tools.length === 1 ? '' : 's'}`,
    );
  }
}
