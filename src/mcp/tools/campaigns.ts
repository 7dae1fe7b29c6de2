import { z } from 'zod';
import {
  getAnalyticsOverview,
  getAnalyticsSummary,
  getCampaignAnalytics,
  getInboundAnalytics,
  getRealtimeAnalytics,
  getRunAnalytics,
} from '../../api/analytics.js';
import { CAMPAIGN_DIRECTIONS, CAMPAIGNS_MAX_PAGE_SIZE, getCampaign, listCampaignsPage, listRuns, pauseCampaign, startCampaign } from '../../api/campaigns.js';
import { limitOf, listInput, listOutput, openCursor, readRange } from '../paging.js';
import * as S from '../schemas.js';
import { defineTool } from '../tool.js';
import { CAMPAIGN_STATUSES } from '../../spec/calls.js';

const campaignId = z.string().min(1).describe('The campaign id (a UUID, from vap_campaigns_list).');
const confirm = z.string().optional().describe('The campaign id again, to confirm the change once the user agreed to it.');
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD');

export const campaignTools = [
  defineTool({
    name: 'vap_campaigns_list',
    title: 'List campaigns',
    description:
      'Outbound, inbound and API campaigns: name, status (draft, active, paused, completed), direction, contact list and contact count. search matches the name.',
    input: {
      status: z.enum(CAMPAIGN_STATUSES as [string, ...string[]]).optional(),
      direction: z.enum(CAMPAIGN_DIRECTIONS as [string, ...string[]]).optional(),
      search: z.string().optional(),
      ...listInput,
    },
    output: z.object({ campaigns: z.array(S.campaign), total: S.num }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const { pos, filters } = openCursor(env.tool, a.cursor, { status: a.status, direction: a.direction, search: a.search });
      const offset = pos.o ?? 0;
      const limit = limitOf(a.limit);
      const r = await readRange(
        (page, pageSize) => listCampaignsPage(env.api, { page, pageSize, ...(filters as object) }, env.signal),
        offset,
        limit,
        Math.min(limit, CAMPAIGNS_MAX_PAGE_SIZE),
      );
      return listOutput({ tool: env.tool, key: 'campaigns', filters }, r.items, r.more, (n) => ({ o: offset + n }), r.total);
    },
  }),

  defineTool({
    name: 'vap_campaigns_get',
    title: 'Get a campaign',
    description: "One campaign's configuration and status, and its runs (each period in which it was active, with its calls placed and completed).",
    input: { campaignId },
    output: z.object({ campaign: S.campaign, runs: z.array(S.campaignRun) }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const [campaign, runs] = await Promise.all([getCampaign(env.api, a.campaignId, env.signal), listRuns(env.api, a.campaignId, env.signal)]);
      return { data: { campaign, runs } };
    },
  }),

  defineTool({
    name: 'vap_campaigns_analytics',
    title: "A campaign's analytics",
    description:
      "A campaign's figures. view metrics (default): call counts, human contact, objective success and callback rates, sentiment, duration, do-not-call rate and cost, for a date range or one run (runId); summary: the headline figures; realtime: active and queued calls now; inbound: answered, missed, wait and handle times, calls by hour.",
    input: {
      campaignId,
      view: z.enum(['metrics', 'summary', 'realtime', 'inbound']).optional(),
      dateFrom: date.optional(),
      dateTo: date.optional(),
      runId: z.string().min(1).optional().describe('One run of the campaign (metrics only).'),
    },
    output: z.object({ view: z.string(), analytics: z.looseObject({}) }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const view = a.view ?? 'metrics';
      const range = { dateFrom: a.dateFrom, dateTo: a.dateTo };
      const analytics =
        view === 'summary'
          ? await getAnalyticsSummary(env.api, a.campaignId, env.signal)
          : view === 'realtime'
            ? await getRealtimeAnalytics(env.api, a.campaignId, env.signal)
            : view === 'inbound'
              ? await getInboundAnalytics(env.api, a.campaignId, env.signal)
              : a.runId
                ? await getRunAnalytics(env.api, a.campaignId, a.runId, range, env.signal)
                : await getCampaignAnalytics(env.api, a.campaignId, range, env.signal);
      return { data: { view, analytics } };
    },
  }),

  defineTool({
    name: 'vap_analytics_overview',
    title: 'The workspace at a glance',
    description:
      'Workspace-wide figures: campaigns (all, active), calls and their total duration, average human contact and objective success rates, and the best campaign.',
    input: {},
    output: z.object({ overview: z.looseObject({}) }),
    idempotent: true,
    openWorld: false,
    async run(_a, env) {
      return { data: { overview: await getAnalyticsOverview(env.api, env.signal) } };
    },
  }),

  defineTool({
    name: 'vap_campaigns_start',
    title: 'Start a campaign',
    description: 'Starts a draft or paused campaign: an outbound one begins calling its contacts.',
    input: { campaignId, confirm },
    output: z.object({ campaign: S.campaign }),
    idempotent: true,
    openWorld: true,
    write: {
      changes: 'makes the campaign active: an outbound campaign starts placing real calls to its contacts',
      undo: 'pause it with vap_campaigns_pause (calls already placed are not undone)',
      destructive: true,
      confirm: (a) => ({ id: a.campaignId, what: 'campaign' }),
    },
    async run(a, env) {
      const campaign = await startCampaign(env.api, a.campaignId, env.signal);
      return {
        data: { campaign },
        undo: `campaign ${a.campaignId} is active; to stop it, call vap_campaigns_pause with campaignId ${a.campaignId} and confirm ${a.campaignId}`,
      };
    },
  }),

  defineTool({
    name: 'vap_campaigns_pause',
    title: 'Pause a campaign',
    description: 'Pauses an active campaign: calls in progress complete, no new call begins.',
    input: { campaignId, confirm },
    output: z.object({ campaign: S.campaign }),
    idempotent: true,
    openWorld: false,
    write: {
      changes: 'pauses the campaign: no new call begins',
      undo: 'start it again with vap_campaigns_start',
      destructive: true,
      confirm: (a) => ({ id: a.campaignId, what: 'campaign' }),
    },
    async run(a, env) {
      const campaign = await pauseCampaign(env.api, a.campaignId, env.signal);
      return {
        data: { campaign },
        undo: `campaign ${a.campaignId} is paused; to resume it, call vap_campaigns_start with campaignId ${a.campaignId} and confirm ${a.campaignId}`,
      };
    },
  }),
];
