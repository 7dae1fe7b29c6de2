import { Command } from 'commander';
import { listVersionsPage, VERSIONS_MAX_PAGE_SIZE, type AgentVersion } from '../../api/agents.js';
import { paginate } from '../../api/paginate.js';
import type { Context } from '../../context.js';
import { withPolicy } from '../../ui/columns.js';
import type { Column } from '../../ui/format.js';
import { action } from '../action.js';
import { addListingOptions, paginateOptions, type ListingOptions } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { time } from '../../ui/values.js';

/** VERSION, CHANGE, BY, AT, CURRENT (`*` in a table, true/false when piped), NOTE (the fields changed, in a person's words on a terminal; where a rollback went, and why). */
export function versionColumns(human: boolean): Column<AgentVersion>[] {
  return withPolicy<AgentVersion>(
    [
      { header: 'version', value: (v) => v.versionNumber },
      { header: 'change', value: (v) => v.changeType },
      { header: 'by', value: (v) => v.changedByName },
      { header: 'at', value: (v) => time(v.changedAt) },
      { header: 'current', value: (v) => (human ? (v.isCurrent ? '*' : '') : v.isCurrent) },
      { header: 'note', value: (v) => note(v, human) },
    ],
    { keep: ['version', 'change', 'current'], dropFirst: ['by'] },
  );
}

/** The words a person reads for the API's field names of an agent (piped, the API's own stay). */
const FIELD_WORDS: Record<string, string> = { toolIds: 'tools', voiceId: 'voice', currentVersion: 'version' };

/** A changed field as a person reads it: `toolIds` is `tools`; another camelCase name becomes words (`fooBar`: `foo bar`). */
function fieldWord(field: string): string {
  return FIELD_WORDS[field] ?? field.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

function note(v: AgentVersion, human: boolean): string {
  if (v.changeType === 'rollback' && v.rolledBackTo !== undefined) return `to version ${v.rolledBackTo}${v.reason ? `: ${v.reason}` : ''}`;
  const names = (v.changedFields ?? []).map((f) => (human ? fieldWord(f) : f));
  const fields = [...new Set(names)].join(', ');
  // A change may carry a reason too (`vap push --reason`; an extension, as on rollback).
  return v.reason ? `${fields}${fields ? ': ' : ''}${v.reason}` : fields;
}

export function versionsCommand(makeContext: ContextFactory): Command {
  return addListingOptions(new Command('versions').description('List the versions of an agent, newest first').argument('<agentId>', 'the agent id'))
    .addHelpText(
      'after',
      `
Every change to an agent is a numbered version; the current one is marked.

Examples:
  $ vap agents versions ag_3k9x0c1m2p8q7r4t
  $ vap agents versions ag_3k9x0c1m2p8q7r4t --all --json
  $ vap agents versions ag_3k9x0c1m2p8q7r4t -q --limit 1        (the current version number)`,
    )
    .action(action<ListingOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(agentId: string, opts: ListingOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const items = paginate((req) => listVersionsPage(api, agentId, req, ctx.signal), paginateOptions(opts, VERSIONS_MAX_PAGE_SIZE));
  await ctx.out.list(items, { columns: versionColumns(ctx.out.human), id: (v) => v.versionNumber, empty: `Agent ${agentId} has no versions.` });
}
