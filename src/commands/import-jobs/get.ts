import { Command } from 'commander';
import { getImportJob } from '../../api/contacts.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { printJob } from './shared.js';

export function getCommand(makeContext: ContextFactory): Command {
  return new Command('get')
    .alias('show')
    .description('Show an import job: status, progress and the rows that failed')
    .argument('<jobId>', 'import job id')
    .addHelpText(
      'after',
      `
Examples:
  $ vap import-jobs get job_123
  $ vap import-jobs get job_123 --json
  $ vap import-jobs get job_123 --query "errors[].row"`,
    )
    .action(action<object>(makeContext, ([id], _opts, ctx) => run(id!, ctx)));
}

export async function run(id: string, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const job = await getImportJob(api, id, ctx.signal);
  await printJob(job, ctx);
}
