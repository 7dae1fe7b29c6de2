import { pageParam, sendData } from '../envelope.js';
import { badRequest } from '../errors.js';
import { candidateView, importModelFor, importView, parseWhen, type CandidateQuery } from '../evals/imports/model.js';
import type { EmulatorModule } from '../types.js';

/**
 * Document 1, "Imports": past calls of campaigns and call centers pulled into an eval
 * suite, triaged in batches and turned into scenarios. Thin HTTP over ../evals/imports/.
 */

type PE = { agentId: string; evalId: string };
type PI = PE & { importId: string };
type Query = Record<string, string | undefined>;

/** pageParam, with `details` naming the parameter like every other 400 of this route. */
function paging(value: string | undefined, name: string, def: number, max: number): number {
  if (value !== undefined && value !== '' && !(Number.isInteger(Number(value)) && Number(value) >= 1)) {
    throw badRequest(`${name} must be an integer of at least 1`, [{ field: name, message: 'must be an integer ≥ 1' }]);
  }
  return pageParam(value, name, def, max);
}

const BASE = '/api/v1/agents/:agentId/evals/:evalId/imports';

export const evalImportsModule: EmulatorModule = {
  name: 'eval-imports',
  register(app, env) {
    const model = importModelFor(env);

    app.get<{ Params: PE }>(`${BASE}/sources`, async (req, reply) => {
      model.suite(req.org.id, req.params.agentId, req.params.evalId);
      const sources = model.sources(req.org.id);
      const view = (kind: string) => sources.filter((s) => s.kind === kind).map((s) => ({ id: s.id, name: s.name, callCount: s.calls.length }));
      return sendData(req, reply, {
        outboundCampaigns: view('outbound_campaign'),
        inboundCampaigns: view('inbound_campaign'),
        callCenters: view('call_center'),
      });
    });

    app.get<{ Params: PE; Querystring: Query }>(`${BASE}/candidates`, async (req, reply) => {
      const suite = model.suite(req.org.id, req.params.agentId, req.params.evalId);
      const q = req.query;
      if (q.sourceType !== 'campaign' && q.sourceType !== 'call_center') {
        throw badRequest('sourceType is required: campaign or call_center', [{ field: 'sourceType', message: 'must be one of: campaign, call_center' }]);
      }
      if (!q.sourceId) throw badRequest('sourceId is required', [{ field: 'sourceId', message: 'is required' }]);
      const query: CandidateQuery = { sourceType: q.sourceType, sourceId: q.sourceId, fromMs: parseWhen(q.from, 'from'), toMs: parseWhen(q.to, 'to') };
      if (q.minDuration !== undefined && q.minDuration !== '') {
        const n = Number(q.minDuration);
        if (!/^\d+$/.test(q.minDuration) || !Number.isSafeInteger(n))
          throw badRequest('minDuration must be a whole number of seconds (0 or more)', [{ field: 'minDuration', message: 'must be an integer ≥ 0' }]);
        query.minDuration = n;
      }
      if (q.direction !== undefined && q.direction !== '') {
        if (q.direction !== 'inbound' && q.direction !== 'outbound')
          throw badRequest('direction must be inbound or outbound', [{ field: 'direction', message: 'must be one of: inbound, outbound' }]);
        query.direction = q.direction;
      }
      if (q.search) query.search = q.search;
      // `meta.pagination.nextCursor` is the next page number; a client that follows the
      // cursor generically (`?cursor=<nextCursor>`) gets that page, not page 1 again.
      if (q.page && q.cursor && q.page !== q.cursor)
        throw badRequest('page and cursor disagree; pass one of them', [{ field: 'cursor', message: 'disagrees with page' }]);
      const page = paging(q.page || q.cursor, q.page ? 'page' : 'cursor', 1, Number.MAX_SAFE_INTEGER);
      const pageSize = paging(q.pageSize, 'pageSize', 25, 100);
      const all = model.candidates(req.org.id, suite.id, query);
      const slice = all.slice((page - 1) * pageSize, page * pageSize);
      const more = page * pageSize < all.length;
      return sendData(
        req,
        reply,
        { calls: slice.map(candidateView), total: all.length },
        {
          pagination: { nextCursor: more ? String(page + 1) : null, limit: pageSize, page, total: all.length },
        },
      );
    });

    app.get<{ Params: PE }>(BASE, async (req, reply) => {
      const list = model.list(req.org.id, req.params.agentId, req.params.evalId);
      return sendData(req, reply, { imports: list.map(importView) });
    });

    app.post<{ Params: PE }>(BASE, async (req, reply) => {
      const imp = model.create(req.org.id, req.params.agentId, req.params.evalId, req.body);
      return sendData(req, reply, importView(imp), { status: 201 });
    });

    app.post<{ Params: PI }>(`${BASE}/:importId/triage`, async (req, reply) => {
      const { imp, processed, remaining } = await model.triage(req.org.id, req.params.agentId, req.params.evalId, req.params.importId, req.body);
      const v = importView(imp);
      return sendData(req, reply, { import: { id: v.id, triagedCalls: v.triagedCalls, status: v.status, totalCalls: v.totalCalls }, processed, remaining });
    });

    app.get<{ Params: PI }>(`${BASE}/:importId/scenarios`, async (req, reply) => {
      return sendData(req, reply, { calls: model.triagedCalls(req.org.id, req.params.agentId, req.params.evalId, req.params.importId) });
    });

    app.post<{ Params: PI }>(`${BASE}/:importId/scenarios`, async (req, reply) => {
      return sendData(req, reply, model.createScenarios(req.org.id, req.params.agentId, req.params.evalId, req.params.importId, req.body));
    });
  },
};
