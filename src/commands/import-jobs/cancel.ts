import { Command } from 'commander';
import { cancelImportJob, getImportJob } from '../../api/contacts.js';
import { ConflictError } from '../../api/errors.js';
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

export function cancelCommand(makeContext: ContextFactory): Command {
  return new Command('cancel')
    .description('Cancel a pending or processing import job; contacts already processed stay in the list')
    .argument('<jobId>', 'import job id')
    .addHelpText(
      'after',
      `
Examples:
  $ vap import-jobs cancel job_123
  $ vap import-jobs list --status processing -q | xargs -n1 vap import-jobs cancel`,
    )
    .action(action<object>(makeContext, ([id], _opts, ctx) => run(id!, ctx)));
}

export async function run(id: string, ctx: Context): Promise<void> {
  const api = await ctx.api();
  let res: { id: string; status: string; message: string };
  try {
    res = await cancelImportJob(api, id);
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    // The server refuses once the job has finished; say which way it finished
    // (from the error's details when the server gives the status, otherwise from the job).
    const given = (err.details as { status?: unknown } | undefined)?.status;
    const status =
      typeof given === 'string'
        ? given
        : await getImportJob(api, id, ctx.signal).then(
            (j) => j.status,
            () => undefined,
          );
    const done = status === 'completed' ? 'completed' : status === 'failed' ? 'failed' : status === 'cancelled' ? 'been cancelled' : 'finished';
    throw new CliError(`job ${id} has already ${done}; only pending or processing jobs can be cancelled`);
  }
  await ctx.out.item(res, {
    fields: [
      { header: 'id', value: (r) => r.id },
      { header: 'status', value: (r) => r.status },
      { header: 'message', value: (r) => r.message },
    ],
  });
  await ctx.success(`Cancelled import job ${res.id ?? id}; contacts already processed stay in the list`);
}
