import { Command } from 'commander';
import { cancelCall, getCall, type Call } from '../../api/calls.js';
import { BadRequestError, ConflictError, UnprocessableEntityError } from '../../api/errors.js';
import { CALL_TSV_COLUMNS } from '../../calls/format.js';
import type { Context } from '../../context.js';
import { resolveCallId } from '../../ids/resolve.js';
import { CliError } from '../../errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

export function cancelCommand(makeContext: ContextFactory): Command {
  return new Command('cancel')
    .description('Cancel a queued call (a call already dialled completes normally)')
    .argument('<callId>', 'the call id, or its start as a table shows it')
    .addHelpText(
      'after',
      `
Only queued calls (scheduled ones included) can be cancelled. A call that has been
initiated, is ringing or in progress completes normally; cancel refuses it (exit 1)
and says its status.

Examples:
  $ vap calls cancel 0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e
  $ vap calls list --status queued --campaign 6f1c2a9e-… -q | xargs -n1 vap calls cancel`,
    )
    .action(action(makeContext, ([callId], _opts, ctx) => run(callId!, ctx)));
}

const ACTIVE = new Set(['initiated', 'ringing', 'in_progress']);

export async function run(ref: string, ctx: Context): Promise<void> {
  const callId = await resolveCallId(ctx, ref);
  const api = await ctx.api();
  const statusNow = () =>
    getCall(api, callId, ctx.signal).then(
      (c) => c,
      () => undefined,
    );
  let call: Call | undefined;
  try {
    call = await cancelCall(api, callId, ctx.signal);
  } catch (err) {
    // A refusal: 409 on the emulator; the spec shows no status code, so 400/422 read the same way.
    if (!(err instanceof ConflictError || err instanceof BadRequestError || err instanceof UnprocessableEntityError)) throw err;
    // The refusal names the status when the server gives it (details.status); else the call says.
    const given = (err.details as { status?: unknown } | undefined)?.status;
    const status = typeof given === 'string' ? given : await statusNow().then((c) => (c ? String(c.status) : undefined));
    if ((status === undefined || status === 'queued') && !(err instanceof ConflictError)) throw err;
    throw new CliError(refusal(callId, status));
  }
  // The spec shows no response body for cancel, and its state table says a call already
  // initiated stays "unchanged": a body without the call (or 204) is checked by reading the
  // call, and a call that is not cancelled afterwards is a refusal.
  if (!call || typeof call !== 'object' || typeof call.status !== 'string') call = (await statusNow()) ?? call;
  if (call && typeof call === 'object' && typeof call.status === 'string' && call.status !== 'cancelled') {
    throw new CliError(refusal(callId, call.status));
  }
  const shown: Call = call && typeof call === 'object' ? call : ({ id: callId, status: 'cancelled' } as Call);
  await ctx.out.item(shown, { fields: CALL_TSV_COLUMNS });
  await ctx.success(`Cancelled call ${shown.id ?? callId}${shown.calleeName ? ` to ${shown.calleeName}` : ''}; it will not be dialled`);
}

export function refusal(callId: string, status: string | undefined): string {
  if (status && ACTIVE.has(status)) {
    return `call ${callId} cannot be cancelled: it is ${status.replace('_', ' ')}; only queued calls can be cancelled, and a call already initiated completes normally`;
  }
  if (status) return `call ${callId} cannot be cancelled: it is already ${status}; only queued calls can be cancelled`;
  return `call ${callId} cannot be cancelled: only queued calls can be cancelled, and a call already initiated completes normally`;
}
