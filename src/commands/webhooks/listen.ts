import { Command, Option } from 'commander';
import { EVENT_TYPE_NAMES } from '../../spec/event-types.js';
import { completes } from '../../completion/takes.js';
import type { Context, GlobalOptions } from '../../context.js';
import { UsageError } from '../../errors.js';
import { checkTypes, commandLine, followEvents, globalFlags, parseLastEventId, parseTypeList } from '../../events/follow.js';
import { formatDuration, stampTime } from '../../ui/values.js';
import { forwardEvent, type ForwardAttempt } from '../../events/forward.js';
import { writer } from '../../events/printer.js';
import { toRecord } from '../../events/render.js';
import { tsvField } from '../../ui/format.js';
import { safeText } from '../../ui/safe-text.js';
import { version } from '../../version.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

export interface ListenOptions {
  forwardTo?: string;
  types?: string[];
  printSecret?: boolean;
  lastEventId?: string;
  maxAttempts?: number;
}

export function listenCommand(makeContext: ContextFactory): Command {
  return new Command('listen')
    .description("Forward the organization's events to a local URL, signed as webhook deliveries are")
    .option('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/hook')
    .addOption(
      completes(
        new Option('--types <a,b>', 'only these event types (checked against the catalog)').argParser((v: string, prev?: string[]) => parseTypeList(v, prev)),
        EVENT_TYPE_NAMES,
      ),
    )
    .option('--print-secret', 'print the local signing secret and exit')
    .option('--last-event-id <id>', 'resume after this event: the missed events are forwarded first', parseLastEventId)
    .option('--max-attempts <n>', 'attempts per event before giving up on it', positiveInt, 8)
    .addHelpText(
      'after',
      `
Each event is POSTed as the platform would deliver it: the body
{ id, type, organizationId, callId, occurredAt, data }, the headers
X-Service-Event-Id (the same on every retry: your idempotency key) and
X-Service-Signature (t=<unix seconds>,v1=<HMAC-SHA256 of "<t>.<body>">), signed with
a local secret (whsec_...) kept in the config, so it stays the same from run to run;
give it to your receiver (--print-secret prints it). A 408, 429, 5xx or no answer is
retried with backoff, with the same event id; another 4xx is a refusal and is not.
One line per attempt on stdout (time, type, id, status, time taken); --json for NDJSON.

Examples:
  $ vap webhooks listen --forward-to http://localhost:3000/hook
  $ vap webhooks listen --forward-to http://localhost:3000/hook --types call.ended,call.analysis.completed
  $ export WEBHOOK_SECRET=$(vap webhooks listen --print-secret)`,
    )
    .action(action<ListenOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new UsageError(`--max-attempts takes a whole number from 1 to 100, not "${v}"`);
  return n;
}

function checkUrl(value: string | undefined): string {
  if (!value) throw new UsageError('--forward-to is required', 'give the local URL to POST events to, e.g. --forward-to http://localhost:3000/hook');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--forward-to "${value}" is not a URL`, 'give an http(s) URL such as http://localhost:3000/hook');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--forward-to "${value}" is not an http(s) URL`, 'give an http(s) URL such as http://localhost:3000/hook');
  return url.toString();
}

export async function run(opts: ListenOptions & GlobalOptions, ctx: Context): Promise<void> {
  const creds = await ctx.credentials();
  const store = await ctx.config();
  const secret = store.listenSecret(creds.profile);
  if (opts.printSecret) {
    const write = writer(ctx.io.stdout);
    await write(`${secret}\n`);
    await write.flush();
    return;
  }
  const url = checkUrl(opts.forwardTo);
  const api = await ctx.api();
  await checkTypes(api, [{ flag: '--types', types: opts.types ?? [] }], { stream: 'organization', signal: ctx.signal });
  ctx.info(
    `Forwarding the organization's events to ${url}, signed with ${secret.slice(0, 10)}… (\`vap webhooks listen --print-secret\` prints the secret); Ctrl-C to stop`,
  );
  const { print, flush } = await attemptPrinter(ctx);
  const userAgent = `vap-webhooks-listen/${version()}`;
  await followEvents(ctx, api, {
    stream: 'organization',
    label: "the organization's events",
    types: opts.types?.length ? opts.types : undefined,
    lastEventId: opts.lastEventId,
    announceResume: opts.lastEventId !== undefined,
    handle: async (event) => {
      await forwardEvent(event, toRecord(event), { url, secret, userAgent, signal: ctx.signal, maxAttempts: opts.maxAttempts, onAttempt: print });
    },
    flush,
    resumeCommand: (lastId) =>
      commandLine([
        'vap',
        ...globalFlags(opts),
        'webhooks',
        'listen',
        '--forward-to',
        url,
        ...(opts.types?.length ? ['--types', opts.types.join(',')] : []),
        '--last-event-id',
        lastId,
      ]),
  });
}

/** One line per attempt: a rendered line on a terminal, NDJSON for --json, TSV when piped. */
async function attemptPrinter(ctx: Context): Promise<{ print: (a: ForwardAttempt) => Promise<void>; flush: () => Promise<void> }> {
  const write = writer(ctx.io.stdout);
  return { print: await attemptLine(ctx, write), flush: write.flush };
}

async function attemptLine(ctx: Context, write: (text: string) => Promise<void> | undefined): Promise<(a: ForwardAttempt) => Promise<void>> {
  const format = ctx.out.format;
  if (ctx.globals.quiet) return async (a) => (a.outcome === 'retry' ? undefined : write(`${safeText(a.eventId)}\n`));
  if (format === 'json' || format === 'ndjson') return async (a) => write(`${JSON.stringify(a)}\n`);
  if (format === 'tsv') {
    return async (a) =>
      write(`${[new Date().toISOString(), a.type, a.eventId, a.status ?? '', a.ms, a.outcome, a.attempt, a.error ?? ''].map(tsvField).join('\t')}\n`);
  }
  const [chalk, fit] = await Promise.all([ctx.stdoutStyle(), import('../../ui/fit.js')]);
  const width = ctx.tableFit().width;
  return async (a) => {
    const status = a.status !== undefined ? String(a.status) : 'no answer';
    const colour = a.outcome === 'delivered' ? chalk.green : a.outcome === 'retry' ? chalk.yellow : chalk.red;
    const next =
      a.outcome === 'retry'
        ? `retrying in ${formatDuration(a.retryInMs ?? 0)} (attempt ${a.attempt + 1})`
        : a.outcome === 'refused'
          ? 'refused: not retried'
          : a.outcome === 'gave_up'
            ? `gave up after ${a.attempt} attempts`
            : '';
    // The type, event id and a network error's words came from elsewhere: shown safe.
    const stamp = stampTime(undefined, ctx.present);
    const rest = `${chalk.dim(safeText(a.eventId).padStart(6))}  → ${colour(status)} ${chalk.dim(`${a.ms}ms`)}${a.error ? ` ${safeText(a.error)}` : ''}${next ? `  ${next}` : ''}`;
    let line = `${chalk.dim(stamp)}  ${safeText(a.type).padEnd(31)} ${rest}`;
    // On a terminal too narrow for the type's column: the type unpadded, the rest wrapped under it.
    if (width !== undefined && fit.displayWidth(line) > width)
      line = fit.messageText(`${safeText(a.type)} ${rest.trimStart()}`, width, `${chalk.dim(stamp)}  `);
    await write(`${line}\n`);
  };
}
