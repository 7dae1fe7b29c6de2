import { Command } from 'commander';
import { getCall } from '../../api/calls.js';
import { CALL_DETAIL_FIELDS, renderCallDetail } from '../../calls/detail.js';
import type { Context } from '../../context.js';
import { resolveCallId } from '../../ids/resolve.js';
import { terminalWidth } from '../../ui/width.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

export function getCommand(makeContext: ContextFactory): Command {
  return new Command('get')
    .description('Show a call: its facts, then its analysis with anything that needs attention first')
    .argument('<callId>', 'the call id, or its start as `vap calls list` shows it')
    .addHelpText(
      'after',
      `
On a terminal, a crisis, a legal threat or a do-not-call request is flagged first (in
red), then the summary, sentiment, human contact, callback, resolution and
objectives. --json gives the call as the API returns it, analysis included.

Examples:
  $ vap calls get 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e
  $ vap calls get 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e --json
  $ vap calls get 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e --query analysis.doNotCall`,
    )
    .action(action(makeContext, ([callId], _opts, ctx) => run(callId!, ctx)));
}

export async function run(ref: string, ctx: Context): Promise<void> {
  const callId = await resolveCallId(ctx, ref);
  const api = await ctx.api();
  const call = await getCall(api, callId, ctx.signal);
  if (ctx.out.human && !ctx.globals.query) {
    const chalk = await ctx.stdoutStyle();
    ctx.io.stdout.write(`${renderCallDetail(call, chalk, Math.min(100, terminalWidth(ctx.io.stdout, ctx.env)), ctx.present)}\n`);
    return;
  }
  await ctx.out.item(call, { fields: CALL_DETAIL_FIELDS });
}
