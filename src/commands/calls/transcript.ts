import { Command } from 'commander';
import { getTranscript, type TranscriptMessage } from '../../api/calls.js';
import { formatCallDuration } from '../../calls/format.js';
import type { Context } from '../../context.js';
import { resolveCallId } from '../../ids/resolve.js';
import { safeText } from '../../ui/safe-text.js';
import { renderChat } from '../../ui/chat.js';
import { withPolicy } from '../../ui/columns.js';
import { terminalWidth } from '../../ui/width.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

export function transcriptCommand(makeContext: ContextFactory): Command {
  return new Command('transcript')
    .description("Print a call's transcript as a chat (agent and caller)")
    .argument('<callId>', 'the call id, or its start as a table shows it')
    .addHelpText(
      'after',
      `
On a terminal the transcript reads as a chat, agent and caller each in a colour of
their own. Piped, one message per line: ordinal, role, text (TSV). --json gives the
transcript as the API returns it; -o ndjson one message per line.

Examples:
  $ vap calls transcript 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e
  $ vap calls transcript 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e --json
  $ vap calls transcript 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e | grep -i lawyer`,
    )
    .action(action(makeContext, ([callId], _opts, ctx) => run(callId!, ctx)));
}

export async function run(ref: string, ctx: Context): Promise<void> {
  const callId = await resolveCallId(ctx, ref);
  const api = await ctx.api();
  const t = await getTranscript(api, callId, ctx.signal);
  const format = ctx.out.format;
  if (ctx.globals.query || (format === 'json' && !ctx.globals.quiet)) {
    await ctx.out.data(t);
    return;
  }
  const empty = `No transcript for call ${t.callId}: transcripts exist for calls the agent handled, once they are under way.`;
  if (ctx.out.human) {
    if (t.messages.length === 0) {
      ctx.io.stderr.write(`${safeText(empty)}\n`);
      return;
    }
    const [chalk, { messageText }] = await Promise.all([ctx.stdoutStyle(), import('../../ui/fit.js')]);
    const width = Math.min(100, terminalWidth(ctx.io.stdout, ctx.env));
    const head = chalk.dim(
      messageText(
        safeText(`Call ${t.callId} · ${t.messageCount} message${t.messageCount === 1 ? '' : 's'}${t.duration ? ` · ${formatCallDuration(t.duration)}` : ''}`),
        width,
      ),
    );
    ctx.io.stdout.write(`${head}\n\n${renderChat(t.messages, { width, chalk }).join('\n')}\n`);
    return;
  }
  await ctx.out.list<TranscriptMessage>(t.messages, {
    columns: withPolicy<TranscriptMessage>(
      [
        { header: 'ordinal', value: (m) => m.ordinal },
        { header: 'role', value: (m) => m.role },
        { header: 'text', value: (m) => m.text },
      ],
      { keep: ['role', 'text'] },
    ),
    id: (m) => m.ordinal,
    empty,
  });
}
