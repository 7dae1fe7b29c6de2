import { Command } from 'commander';
import { cancelCall, getCall } from '../../api/calls.js';
import { ConflictError } from '../../api/errors.js';
import { CALL_TSV_COLUMNS } from '../../calls/format.js';
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { checkCallId } from './transcript.js';

export function cancelCommand(makeContext: ContextFactory): Command {
  return new Command('cancel')
    .description('Cancel a queued call (a call already dialled completes normally)')
    .argument('<callId>', 'the call id')
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

export async function run(callId: string, ctx: Context): Promise<void> {
  checkCallId(callId, 'cancel');
  const api = await ctx.api();
  let call;
  try {
    call = await cancelCall(api, callId, ctx.signal);
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    // The refusal names the status when the server gives it (details.status); else the call says.
    const given = (err.details as { status?: unknown } | undefined)?.status;
    const status = typeof given === 'string' ? given : await getCall(api, callId, ctx.signal).then((c) => String(c.status), () => undefined);
    throw new CliError(refusal(callId, status));
  }
  await ctx.out.item(call, { fields: CALL_TSV_COLUMNS });
  await ctx.success(`Cancelled call ${call.id ?? callId}${call.calleeName ? ` to ${call.calleeName}` : ''}; it will not be dialled`);
}

export function refusal(callId: string, status: string | undefined): string {
  if (status && ACTIVE.has(status)) {
    return `call ${callId} cannot be cancelled: it is ${status.replace('_', ' ')}; only queued calls can be cancelled, and a call already initiated completes normally`;
  }
  if (status) return `call ${callId} cannot be cancelled: it is already ${status}; only queued calls can be cancelled`;
  return `call ${callId} cannot be cancelled: only queued calls can be cancelled, and a call already initiated completes normally`;
}
