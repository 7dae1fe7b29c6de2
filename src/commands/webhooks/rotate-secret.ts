import { Command } from 'commander';
import { getWebhookEndpoint } from '../../api/webhooks.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { safe } from '../../ui/safe-text.js';
import { action } from '../action.js';
import { confirmOrKeep } from '../confirm.js';
import type { ContextFactory } from '../types.js';
import { rotatedText, rotateSecret } from '../../webhooks/rotate.js';
import { printSecretOnce } from './shared.js';

interface RotateOptions {
  secretFile?: string;
}

export function rotateSecretCommand(makeContext: ContextFactory): Command {
  return new Command('rotate-secret')
    .description(
      'Give an endpoint a new signing secret, effective at once (the old one stops working immediately); asks first on a terminal, needs --yes otherwise',
    )
    .argument('<endpointId>', 'the endpoint id')
    .option('--secret-file <file>', 'write the new secret to this file (mode 0600) instead of printing it')
    .addHelpText(
      'after',
      `
There is no overlap: deliveries are signed with the new secret from now on, so update
the receiver at once. The new secret is shown only now, or written to --secret-file.

Examples:
  $ vap webhooks rotate-secret we_123
  $ vap webhooks rotate-secret we_123 --yes --secret-file /etc/crm/vap-secret`,
    )
    .action(action<RotateOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(id: string, opts: RotateOptions, ctx: Context): Promise<void> {
  if (ctx.globals.quiet && !opts.secretFile) {
    throw new UsageError('-q prints only the id, and the new secret is shown only now', 'add --secret-file <file> to keep the secret');
  }
  if (!ctx.globals.yes) {
    let label = id;
    if (ctx.prompter.canPrompt) {
      const ep = await getWebhookEndpoint(await ctx.api(), id, ctx.signal);
      label = safe`${ep.name} (${id})`;
    }
    if (!(await confirmOrKeep(ctx, `Rotate the secret of ${label}? The old secret stops working at once.`, `nothing rotated: ${label} keeps its secret`)))
      return;
  }
  const { endpoint, secretFile } = await rotateSecret(() => ctx.api(), id, { secretFile: opts.secretFile });
  await printSecretOnce(ctx, endpoint, secretFile);
  await ctx.success(rotatedText(endpoint.id));
}
