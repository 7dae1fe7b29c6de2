import { Command, Option } from 'commander';
import { EVENT_TYPE_NAMES } from '../../spec/event-types.js';
import { completes } from '../../completion/takes.js';
import type { Context, GlobalOptions } from '../../context.js';
import { checkTypes, commandLine, followEvents, globalFlags, parseLastEventId, parseTypeList } from '../../events/follow.js';
import { createPrinter } from '../../events/printer.js';
import { action } from '../action.js';
import { wideOption } from '../listing.js';
import { durationOption } from '../duration.js';
import type { ContextFactory } from '../types.js';

export interface TailOptions {
  types?: string[];
  lastEventId?: string;
  exitOn?: string;
  timeout?: number;
  wide?: boolean;
}

export function tailCommand(makeContext: ContextFactory): Command {
  return new Command('tail')
    .description("Follow the organization's events live (every type that is not stream-only)")
    .addOption(
      completes(
        new Option('--types <a,b>', 'only these event types (checked against the catalog: `vap events types`)').argParser((v: string, prev?: string[]) =>
          parseTypeList(v, prev),
        ),
        EVENT_TYPE_NAMES,
      ),
    )
    .option('--last-event-id <id>', 'resume after this event: the missed events are replayed first', parseLastEventId)
    .addOption(completes(new Option('--exit-on <type>', 'stop (exit 0) after the first event of this type'), EVENT_TYPE_NAMES))
    .option('--timeout <duration>', 'stop with exit 124 after this long (30s, 10m, 1h)', durationOption('--timeout', { min: 1 }))
    .addOption(wideOption('full call ids on a terminal (a UUID shows its first eight digits otherwise)'))
    .addHelpText(
      'after',
      `
On a terminal, one event per line: its clock time (the exact ISO 8601 time with
--absolute-times), type, call (a UUID's first eight digits; --wide for the whole id)
and a summary, which wraps under itself when it is long; a call's crisis, legal
threat or do-not-call request follows on a line of its own, marked with "!".
NDJSON with --json (one event per line: id, type, organizationId, callId,
occurredAt, data); TSV when piped (id, occurredAt, type, callId, summary): full ids
and exact times both ways. The stream reconnects by itself after
a drop, replays what it missed (no gap, no duplicate) and says so on stderr. Whenever
it stops, the last event id and the command that resumes from it go to stderr.
Transcript and voice updates are on a call's own stream: \`vap calls tail <callId>\`.

Exit codes: 0 --exit-on matched (or stdout closed), 2 unknown type, 4 key refused,
124 --timeout, 130 Ctrl-C.

Examples:
  $ vap events tail
  $ vap events tail --types call.ended,call.analysis.completed
  $ vap events tail --json | jq -c 'select(.type == "call.ended")'
  $ vap events tail --last-event-id 1234
  $ vap events tail --wide --absolute-times
  $ vap events tail --exit-on eval.run.completed --timeout 30m`,
    )
    .action(action<TailOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: TailOptions & GlobalOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const types = opts.types?.length ? [...opts.types] : undefined;
  await checkTypes(
    api,
    [
      { flag: '--types', types: types ?? [] },
      { flag: '--exit-on', types: opts.exitOn ? [opts.exitOn] : [] },
    ],
    { stream: 'organization', signal: ctx.signal },
  );
  // An --exit-on type outside --types would never arrive: it is asked for too.
  if (types && opts.exitOn && !types.includes(opts.exitOn)) types.push(opts.exitOn);
  const print = await createPrinter(ctx, 'organization', undefined, { wide: opts.wide });
  await followEvents(ctx, api, {
    stream: 'organization',
    label: "the organization's events",
    types,
    lastEventId: opts.lastEventId,
    announceResume: opts.lastEventId !== undefined,
    exitOn: opts.exitOn,
    timeoutMs: opts.timeout,
    handle: print,
    flush: print.flush,
    resumeCommand: (lastId) =>
      commandLine([
        'vap',
        ...globalFlags(opts),
        'events',
        'tail',
        ...(opts.types?.length ? ['--types', opts.types.join(',')] : []),
        ...(opts.wide ? ['--wide'] : []),
        '--last-event-id',
        lastId,
      ]),
  });
}
