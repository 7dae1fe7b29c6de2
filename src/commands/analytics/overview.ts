import { Command } from 'commander';
import { getAnalyticsOverview } from '../../api/analytics.js';
import { pct, seconds, type Group } from '../../campaigns/render.js';
import { formatCount } from '../../ui/values.js';
import type { Context } from '../../context.js';
import { action } from '../action.js';
import { printAnalytics } from '../analytics-output.js';
import type { ContextFactory } from '../types.js';

export function overviewCommand(makeContext: ContextFactory): Command {
  return new Command('overview')
    .description('Every campaign at a glance: campaigns, calls, average rates and the top performer')
    .addHelpText(
      'after',
      `
Examples:
  $ vap analytics overview
  $ vap analytics overview --json --query topPerformingCampaign.id`,
    )
    .action(action(makeContext, (_args, _opts, ctx) => run(ctx)));
}

export async function run(ctx: Context): Promise<void> {
  const api = await ctx.api();
  const o = await getAnalyticsOverview(api, ctx.signal);
  const top = o.topPerformingCampaign;
  const groups: Group[] = [
    {
      title: 'Campaigns',
      rows: [
        ['Total', formatCount(o.totalCampaigns)],
        ['Active', formatCount(o.activeCampaigns)],
      ],
    },
    {
      title: 'Calls',
      rows: [
        ['Total', formatCount(o.totalCalls)],
        ['Total duration', seconds(o.totalCallDuration)],
      ],
    },
    {
      title: 'Success',
      rows: [
        ['Avg human contact rate', pct(o.avgHumanContactRate)],
        ['Avg objective success rate', pct(o.avgObjectiveSuccessRate)],
        ['Top campaign', top ? `${top.name} (${top.id}) ${pct(top.objectiveSuccessRate)}` : '—'],
      ],
    },
  ];
  await printAnalytics(o, ctx, { title: `Overview · ${o.period.from} to ${o.period.to}`, groups });
}
