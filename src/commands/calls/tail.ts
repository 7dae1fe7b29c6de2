import { Command, Option } from 'commander';
import { EVENT_TYPE_NAMES } from '../../spec/event-types.js';
import { completes } from '../../completion/takes.js';
import type { Context, GlobalOptions } from '../../context.js';
import { checkTypes, commandLine, FINAL_CALL_EVENT, followEvents, globalFlags, parseLastEventId, parseTypeList } from '../../events/follow.js';
import { createPrinter } from '../../events/printer.js';
import { resolveCallId } from '../../ids/resolve.js';
import { action } from '../action.js';
import { wideOption } from '../listing.js';
import { durationOption } from '../duration.js';
import type { ContextFactory } from '../types.js';

export interface CallTailOptions {
  types?: string[];
  lastEventId?: string;
  exitOn?: string;
  timeout?: number;
  follow?: boolean;
  history?: boolean;
  wide?: boolean;
}

export function tailCommand(makeContext: ContextFactory): Command {
  return new Command('tail')
    .description('Follow one call live: its status, the transcript as it is spoken, and the after-call insights')
    .argument('<callId>', 'the call id, or its start as a table shows it')
    .addOption(
      completes(
        new Option('--types <a,b>', 'only these event types (checked against the catalog: `vap events types`)').argParser((v: string, prev?: string[]) =>
          parseTypeList(v, prev),
        ),
        EVENT_TYPE_NAMES,
      ),
    )
    .option('--last-event-id <id>', 'resume after this event', parseLastEventId)
    .option('--no-history', "only what happens from now on (by default the call's events so far come first)")
    .option('--follow', `keep listening after the call's final event (${FINAL_CALL_EVENT})`)
    .addOption(completes(new Option('--exit-on <type>', 'stop (exit 0) after the first event of this type'), EVENT_TYPE_NAMES))
    .option('--timeout <duration>', 'stop with exit 124 after this long (30s, 10m, 1h)', durationOption('--timeout', { min: 1 }))
    .addOption(wideOption('full ids on a terminal (a UUID shows its first eight digits otherwise)'))
    .addHelpText(
      'after',
      `
On a terminal the transcript reads as a chat (agent and caller in colours of their
own, each line wrapped under its own text) between the call's status lines; a
crisis, legal threat or do-not-call request in the analysis is a line of its own,
marked "!" in bold red, as in \`vap calls get\`. --json gives NDJSON (id, type,
callId, data), and TSV when piped (roles in the API's words: agent, user). The call's events so far are shown first (--no-history skips
them). The tail ends by itself after ${FINAL_CALL_EVENT}, the last after-call event,
which can come minutes after the call ends; --follow keeps it open. Drops are
reconnected and replayed as in \`vap events tail\`; when it stops before the call is
over, the last event id and the command that resumes go to stderr.

Exit codes: 0 the call is over (or --exit-on matched), 1 unknown call, 2 unknown
type, 4 key refused, 124 --timeout, 130 Ctrl-C.

Examples:
  $ vap calls tail call_8f2k1m
  $ vap calls tail call_8f2k1m --types call.transcript.updated
  $ vap calls tail call_8f2k1m --exit-on call.ended
  $ vap calls tail call_8f2k1m --json > call.ndjson`,
    )
    .action(action<CallTailOptions>(makeContext, ([callId], opts, ctx) => run(callId!, opts, ctx)));
}

export async function run(ref: string, opts: CallTailOptions & GlobalOptions, ctx: Context): Promise<void> {
  // A value shaped like no call id is sent as given: the server says whether its stream exists.
  const callId = await resolveCallId(ctx, ref, { lenient: true });
  const api = await ctx.api();
  const asked = opts.types?.length ? [...opts.types] : undefined;
  await checkTypes(
    api,
    [
      { flag: '--types', types: asked ?? [] },
      { flag: '--exit-on', types: opts.exitOn ? [opts.exitOn] : [] },
    ],
    { stream: 'call', signal: ctx.signal },
  );
  const endAfterAnalysis = !opts.follow;
  // The server filters; what the tail needs to know when to end is asked for too, and
  // shown only if it was asked for.
  const types = asked ? [...asked] : undefined;
  const hidden = new Set<string>();
  for (const t of [opts.exitOn, endAfterAnalysis ? FINAL_CALL_EVENT : undefined]) {
    if (types && t && !types.includes(t)) {
      types.push(t);
      if (t !== opts.exitOn) hidden.add(t);
    }
  }
  // Voice activity changes at every turn; in the chat view it is shown only when asked for by name.
  const showVoice = Boolean(asked?.includes('call.voice.updated'));
  const print = await createPrinter(ctx, 'call', (r) => r.type === 'call.voice.updated' && !showVoice, { wide: opts.wide });
  const lastEventId = opts.lastEventId ?? (opts.history === false ? undefined : '0');
  await followEvents(ctx, api, {
    stream: 'call',
    callId,
    label: `call ${callId}`,
    types,
    lastEventId,
    announceResume: opts.lastEventId !== undefined,
    exitOn: opts.exitOn,
    timeoutMs: opts.timeout,
    endAfterAnalysis,
    handle: (event) => (hidden.has(event.type) ? undefined : print(event)),
    flush: print.flush,
    resumeCommand: (lastId) =>
      commandLine([
        'vap',
        ...globalFlags(opts),
        'calls',
        'tail',
        callId,
        ...(opts.types?.length ? ['--types', opts.types.join(',')] : []),
        ...(opts.follow ? ['--follow'] : []),
        ...(opts.wide ? ['--wide'] : []),
        '--last-event-id',
        lastId,
      ]),
  });
}
