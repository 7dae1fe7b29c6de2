import { Command } from 'commander';
import { deleteWebhookEndpoint, getWebhookEndpoint } from '../../api/webhooks.js';
import type { Context } from '../../context.js';
import { safe } from '../../ui/safe-text.js';
import { action } from '../action.js';
import { confirmOrKeep } from '../confirm.js';
import type { ContextFactory } from '../types.js';

export function deleteCommand(makeContext: ContextFactory): Command {
  return new Command('delete')
    .alias('rm')
    .description('Delete an endpoint (its queued deliveries are abandoned); asks first on a terminal, needs --yes otherwise')
    .argument('<endpointId>', 'the endpoint id')
    .addHelpText(
      'after',
      `
Examples:
  $ vap webhooks delete we_123
  $ vap webhooks delete we_123 --yes       (in scripts and CI)`,
    )
    .action(action(makeContext, (args, _opts, ctx) => run(args[0]!, ctx)));
}

export async function run(id: string, ctx: Context): Promise<void> {
  if (!ctx.globals.yes) {
    // The prompt names the endpoint and where it delivers (read first).
    let label = `webhook endpoint ${id}`;
    if (ctx.prompter.canPrompt) {
      const ep = await getWebhookEndpoint(await ctx.api(), id, ctx.signal);
      label = safe`webhook endpoint ${ep.name} (${id}, ${ep.url})`;
    }
    if (!(await confirmOrKeep(ctx, `Delete ${label}? Its queued deliveries are abandoned.`, `nothing deleted: ${label} was kept`))) return;
  }
  const api = await ctx.api();
  const res = await deleteWebhookEndpoint(api, id);
  const g = ctx.globals;
  if (g.json || g.output || g.query || g.quiet) {
    await ctx.out.item(
      { id, deleted: res?.deleted ?? true },
      {
        fields: [
          { header: 'id', value: (r) => r.id },
          { header: 'deleted', value: (r) => r.deleted },
        ],
      },
    );
  }
  await ctx.success(`Deleted webhook endpoint ${id}; its queued deliveries were abandoned`);
}
