import { Command, Option } from 'commander';
import { WEBHOOK_EVENT_TYPE_NAMES } from '../../spec/event-types.js';
import { completes } from '../../completion/takes.js';
import { createWebhookEndpoint, type CreatedWebhookEndpoint } from '../../api/webhooks.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { checkName, checkUrl, checkWebhookEventTypes, collectEvents, eventList, showSecretOnce } from './shared.js';
import { SecretFile } from '../../webhooks/secret-file.js';

interface CreateOptions {
  name: string;
  url: string;
  events?: string[];
  secretFile?: string;
}

export function createCommand(makeContext: ContextFactory): Command {
  return new Command('create')
    .description('Create a webhook endpoint; its signing secret is shown once (or written to --secret-file)')
    .requiredOption('--name <name>', 'a name for the endpoint')
    .requiredOption('--url <url>', 'where deliveries are POSTed: a public http(s) URL')
    .addOption(
      completes(
        new Option('--events <types>', 'event types to deliver, comma-separated (repeatable); see `vap events types`').argParser(collectEvents),
        WEBHOOK_EVENT_TYPE_NAMES,
      ),
    )
    .option('--secret-file <file>', 'write the secret to this file (mode 0600) instead of printing it')
    .addHelpText(
      'after',
      `
The secret signs every delivery (header X-Service-Signature: t=…,v1=…; check one
with \`vap webhooks verify\`). It is returned only now: save it, or pass --secret-file.
Types delivered on the call stream only (transcript and voice updates) cannot be
subscribed to; follow them with \`vap calls tail <callId>\`.

Examples:
  $ vap webhooks create --name CRM --url https://crm.example.com/hooks/vap --events call.ended,call.analysis.completed
  $ vap webhooks create --name CI --url https://ci.example.com/hook --events eval.run.completed --secret-file ./vap-secret -q`,
    )
    .action(action<CreateOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: CreateOptions, ctx: Context): Promise<void> {
  const name = checkName(opts.name);
  const url = checkUrl(opts.url);
  const events = eventList(opts.events);
  if (ctx.globals.quiet && !opts.secretFile) {
    throw new UsageError('-q prints only the id, and the secret is shown only now', 'add --secret-file <file> to keep the secret');
  }
  const secretFile = opts.secretFile ? await SecretFile.prepare(opts.secretFile) : undefined;
  let created: CreatedWebhookEndpoint;
  try {
    const api = await ctx.api();
    await checkWebhookEventTypes(api, events, ctx.signal);
    created = await createWebhookEndpoint(api, { name, url, events });
  } catch (err) {
    await secretFile?.abort();
    throw err;
  }
  await showSecretOnce(ctx, created, secretFile);
  await ctx.success(`Created webhook endpoint ${created.name} (${created.id}) for ${events.length} event type${events.length === 1 ? '' : 's'}`);
}
