import { Command } from 'commander';
import { listEventTypes, type CatalogEntry } from '../../api/events.js';
import type { Context } from '../../context.js';
import { withPolicy } from '../../ui/columns.js';
import { listOf, type Column } from '../../ui/format.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

export const EVENT_TYPE_COLUMNS: Column<CatalogEntry>[] = withPolicy<CatalogEntry>(
  [
    // The name `--types` and `--events` take: whole, never cut as free text is.
    { header: 'type', value: (e) => e.type, flex: false },
    { header: 'delivery', value: (e) => listOf(e.delivery) },
    { header: 'description', value: (e) => e.description },
  ],
  { keep: ['type'], dropFirst: ['delivery'] },
);

export function typesCommand(makeContext: ContextFactory): Command {
  return new Command('types')
    .description('List the event types (the live catalog), and where each is delivered')
    .addHelpText(
      'after',
      `
"stream" alone means the type is on a call's own stream only (\`vap calls tail\`);
types with "webhook" can be subscribed to by webhook endpoints and \`events tail\`.

Examples:
  $ vap events types
  $ vap events types -q
  $ vap events types --json --query "[?contains(delivery, 'webhook')].type"`,
    )
    .action(action(makeContext, (_args, _opts, ctx) => run(ctx)));
}

export async function run(ctx: Context): Promise<void> {
  const api = await ctx.api();
  const events = await listEventTypes(api, ctx.signal);
  await ctx.out.list(events, { columns: EVENT_TYPE_COLUMNS, id: (e) => e.type, empty: 'The catalog is empty.' });
}
