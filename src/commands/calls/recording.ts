import { Command } from 'commander';
import { getRecording, type Recording } from '../../api/calls.js';
import type { Context } from '../../context.js';
import { resolveCallId } from '../../ids/resolve.js';
import { withPolicy } from '../../ui/columns.js';
import { duration, time } from '../../ui/values.js';
import { action } from '../action.js';
import { wideOption } from '../listing.js';
import type { ContextFactory } from '../types.js';

export function recordingCommand(makeContext: ContextFactory): Command {
  return new Command('recording')
    .description("List a call's recordings (sid, duration, status); download one with `vap calls audio`")
    .argument('<callId>', 'the call id, or its start as a table shows it')
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
Only calls that connected have a recording. Piped, one recording per line: sid,
duration in seconds, status, createdAt (TSV); --json gives the metadata as the API
returns it (recordings, recordingCount, audioUrl).

Examples:
  $ vap calls recording 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e
  $ vap calls recording 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e --json
  $ vap calls audio 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e --recording RE1f… -O call.wav --format wav`,
    )
    .action(action(makeContext, ([callId], _opts, ctx) => run(callId!, ctx)));
}

export async function run(ref: string, ctx: Context): Promise<void> {
  const callId = await resolveCallId(ctx, ref);
  const api = await ctx.api();
  const meta = await getRecording(api, callId, ctx.signal);
  if (ctx.globals.query || (ctx.out.format === 'json' && !ctx.globals.quiet)) {
    await ctx.out.data(meta);
    return;
  }
  const human = ctx.out.human;
  // Durations and times as the standard says (src/ui/values.ts): `1m 53s` and `3 minutes ago` on a terminal, seconds and ISO 8601 piped.
  await ctx.out.list<Recording>(meta.recordings, {
    columns: withPolicy<Recording>(
      [
        { header: 'sid', value: (r) => r.sid },
        { header: 'duration', value: (r) => duration(r.duration) },
        { header: 'status', value: (r) => r.status },
        { header: 'created', value: (r) => time(r.createdAt) },
      ],
      { keep: ['sid'], dropFirst: ['created'] },
    ),
    id: (r) => r.sid,
    empty: `Call ${meta.callId} has no recording: only calls that connected are recorded.`,
  });
  if (human && meta.recordings.length > 0) {
    ctx.info('');
    ctx.info(`Download: vap calls audio ${meta.callId} -O call-${meta.callId.slice(0, 8)}.mp3   (--format wav for WAV)`);
  }
}
