import { Command } from 'commander';
import { getRunAnalytics } from '../../api/analytics.js';
import { listRuns } from '../../api/campaigns.js';
import { metricGroups } from '../../campaigns/render.js';
import type { Context } from '../../context.js';
import { resolveCampaignId, resolveCampaignRunId } from '../../ids/resolve.js';
import { UsageError } from '../../errors.js';
import { action } from '../action.js';
import { wideOption } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { printAnalytics } from '../analytics-output.js';
import { isoDay, runColumns } from './shared.js';

interface RunsOptions {
  from?: string;
  to?: string;
}

export function runsCommand(makeContext: ContextFactory): Command {
  return new Command('runs')
    .description('A campaign’s runs (one per start), newest first; with a run id, that run’s metrics')
    .argument('<campaignId>', 'the campaign id (or its start, or its name)')
    .argument('[runId]', 'a run id (or its start): show its analytics')
    .option('--from <YYYY-MM-DD>', 'with a run id: only calls created on or after this day', isoDay('--from'))
    .option('--to <YYYY-MM-DD>', 'with a run id: only calls created on or before this day', isoDay('--to'))
    .addOption(wideOption())
    .addHelpText(
      'after',
      `
Examples:
  $ vap campaigns runs 0b7c…
  $ vap campaigns runs 0b7c… 5e21…
  $ vap campaigns runs 0b7c… -q | head -1 | xargs vap campaigns runs 0b7c… --json`,
    )
    .action(action<RunsOptions>(makeContext, ([id, runId], opts, ctx) => run(id!, runId, opts, ctx)));
}

export async function run(ref: string, runRef: string | undefined, opts: RunsOptions, ctx: Context): Promise<void> {
  if (!runRef && (opts.from || opts.to)) throw new UsageError('--from/--to go with a run id', 'use `vap campaigns runs <campaignId> <runId> --from …`');
  if (opts.from && opts.to && opts.from > opts.to) throw new UsageError(`--from ${opts.from} is after --to ${opts.to}`);
  const id = await resolveCampaignId(ctx, ref);
  const api = await ctx.api();
  if (!runRef) {
    const runs = await listRuns(api, id, ctx.signal);
    await ctx.out.list(runs, { columns: runColumns(ctx.out.human), empty: `Campaign ${id} has no runs yet: each \`vap campaigns start\` opens one.` });
    return;
  }
  const runId = await resolveCampaignRunId(ctx, id, runRef);
  const data = await getRunAnalytics(api, id, runId, { dateFrom: opts.from, dateTo: opts.to }, ctx.signal);
  const r = data.run;
  const title = `Campaign ${data.campaign?.name ?? id} · run ${runId}${r ? ` (${r.startedAt} to ${r.endedAt ?? 'now'})` : ''}`;
  await printAnalytics(data, ctx, { title, groups: metricGroups(data.metrics) });
}
