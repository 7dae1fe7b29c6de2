import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callIndexFor } from '../analytics/call-index.js';
import { inRange, isAllTime, parseRange } from '../analytics/dates.js';
import { HOURS, inboundOf } from '../analytics/inbound.js';
import { addTally, emptyTally, isStale, metricsOf, summaryOf, tally } from '../analytics/metrics.js';
import { overviewOf } from '../analytics/overview.js';
import { trackerOf } from '../analytics/tracker.js';
import { HttpError, notFound } from '../errors.js';
import { telephonyFor } from '../telephony/model.js';
import type { CampaignRecord, RunView } from '../telephony/types.js';
import type { EmulatorModule, ModuleEnv } from '../types.js';

// Document 2, Analytics: every figure is computed at request time from the stored calls
// (../analytics/ has the rules), never stored. routes/campaigns.ts has the rest of
// /api/v1/campaigns; both use `:id` for the campaign so the router shares one node.

type Query = Record<string, unknown>;

const HOURS_MARK = '\u0000callsByHour\u0000';

function register(app: FastifyInstance, env: ModuleEnv): void {
  const model = telephonyFor(env);
  const index = callIndexFor(env);

  const campaignOf = (req: FastifyRequest): CampaignRecord => model.campaign(req.org.id, (req.params as { id: string }).id);
  const campaignRef = (c: CampaignRecord) => ({ id: c.id, name: c.name, status: c.status });
  const runView = (r: RunView) => ({ id: r.id, startedAt: r.startedAt, endedAt: r.endedAt, totalCalls: r.totalCalls, completedCalls: r.completedCalls });
  const meta = (stale: boolean) => ({ calculatedAt: env.clock.iso(), isStale: stale });

  // Metrics of the campaign's calls created within the days asked for.
  app.get('/api/v1/campaigns/:id/analytics', async (req) => {
    const range = parseRange(req.query as Query);
    const c = campaignOf(req);
    const calls = index.ofCampaign(req.org.id, c.id);
    const t = isAllTime(range) ? trackerOf(calls).tally() : tally(calls, (x) => inRange(x.createdAt, range));
    return { data: { campaign: campaignRef(c), metrics: metricsOf(t), meta: meta(isStale(t)) } };
  });

  app.get('/api/v1/campaigns/:id/analytics/summary', async (req) => {
    const c = campaignOf(req);
    const t = trackerOf(index.ofCampaign(req.org.id, c.id)).tally();
    return { data: { ...summaryOf(t), meta: meta(isStale(t)) } };
  });

  app.get('/api/v1/campaigns/:id/analytics/realtime', async (req) => {
    const c = campaignOf(req);
    const now = env.clock.nowMs();
    return { data: { ...trackerOf(index.ofCampaign(req.org.id, c.id)).realtime(now), meta: { calculatedAt: env.clock.iso(now) } } };
  });

  app.get('/api/v1/campaigns/:id/analytics/inbound', async (req, reply) => {
    const c = campaignOf(req);
    if (c.direction !== 'inbound') {
      throw new HttpError(
        422,
        'not_inbound',
        `campaign ${c.id} is an ${c.direction} campaign; inbound analytics exist for inbound campaigns only (use /analytics)`,
      );
    }
    const calls = index.ofCampaign(req.org.id, c.id);
    const t = trackerOf(calls).tally();
    const { callsByHour, ...rest } = inboundOf(calls);
    // A JS object lists "10".."23" before "00".."09" (integer-like keys first): write the hours in clock order.
    const hours = `{${HOURS.map((h) => `"${h}":${callsByHour[h]}`).join(',')}}`;
    const body = JSON.stringify({ data: { ...rest, callsByHour: HOURS_MARK, meta: meta(isStale(t)) } }).replace(JSON.stringify(HOURS_MARK), hours);
    return reply.type('application/json; charset=utf-8').send(body);
  });

  app.get('/api/v1/campaigns/:id/runs', async (req) => {
    const c = campaignOf(req);
    return { data: { runs: model.runs(req.org.id, c.id).map(runView) } };
  });

  app.get('/api/v1/campaigns/:id/runs/:runId/analytics', async (req) => {
    const range = parseRange(req.query as Query);
    const c = campaignOf(req);
    const runId = (req.params as { runId: string }).runId;
    const run = model.runs(req.org.id, c.id).find((r) => r.id === runId);
    if (!run) throw notFound('run', runId);
    const t = tally(index.ofCampaign(req.org.id, c.id), (x) => x.runId === runId && (isAllTime(range) || inRange(x.createdAt, range)));
    return { data: { campaign: campaignRef(c), run: runView(run), metrics: metricsOf(t), meta: meta(isStale(t)) } };
  });

  app.get('/api/v1/analytics/overview', async (req) => {
    const orgId = req.org.id;
    const now = env.clock.nowMs();
    const tallies = new Map<string, ReturnType<typeof emptyTally>>();
    const org = emptyTally();
    for (const [campaignId, calls] of index.groups(orgId)) {
      const t = trackerOf(calls).tally();
      tallies.set(campaignId, t);
      addTally(org, t);
    }
    const overview = overviewOf(model.campaigns(orgId), (id) => tallies.get(id) ?? emptyTally(), org, index.all(orgId)[0]?.createdAt ?? null, now);
    return { data: { ...overview, meta: { calculatedAt: env.clock.iso(now), isStale: isStale(org) } } };
  });
}

export const analyticsModule: EmulatorModule = { name: 'analytics', register };
