import type { FastifyRequest } from 'fastify';
import { campaignService } from '../telephony/campaigns.js';
import { listCalls, parseCallQuery } from '../telephony/listing.js';
import { CAMPAIGN_FACETS, telephonyFor } from '../telephony/model.js';
import type { CampaignRecord } from '../telephony/types.js';
import { int, oneOf } from '../telephony/validate.js';
import { pagination, renderCall, renderCampaign, renderCampaignContact } from '../telephony/views.js';
import type { EmulatorModule } from '../types.js';
import { CAMPAIGN_STATUSES } from '../../spec/calls.js';

/**
 * Document 2: campaigns (CRUD, start/pause, contacts, queue, trigger, their calls),
 * over the simulated telephony in ../telephony/. Envelope `{ data }`; another
 * organization's campaign is a 404.
 */

type Q = Record<string, unknown>;
type P = { id: string };

const CAMPAIGNS_PAGE = { def: 20, max: 100 } as const;
const CONTACTS_PAGE = { def: 50, max: 100 } as const;

export const campaignsModule: EmulatorModule = {
  name: 'campaigns',
  register(app, env) {
    const model = telephonyFor(env);
    const svc = campaignService(env);
    const id = (req: FastifyRequest) => (req.params as P).id;
    const view = (req: FastifyRequest, c: CampaignRecord) =>
      renderCampaign(c, model.contactsOf(req.org.id, c.id).size, model.pendingContacts(req.org.id, c.id));

    app.get('/api/v1/campaigns', async (req) => {
      const q = req.query as Q;
      const page = int(q.page, 'page', 1, Number.MAX_SAFE_INTEGER) ?? 1;
      const pageSize = int(q.pageSize, 'pageSize', 1, CAMPAIGNS_PAGE.max) ?? CAMPAIGNS_PAGE.def;
      const status = oneOf(q.status, 'status', CAMPAIGN_STATUSES);
      const direction = oneOf(q.direction, 'direction', ['outbound', 'inbound'] as const);
      const search = typeof q.search === 'string' ? q.search.trim().toLowerCase() : '';
      const ws = typeof q.workspaceId === 'string' && q.workspaceId !== '' ? q.workspaceId : undefined;
      // Newest first; status, direction and workspace are facets of the index (their combination
      // names the facet), the name search reads that facet's matches once per query.
      const idx = model.campaignMap(req.org.id).ordered(CAMPAIGN_FACETS);
      const facet = `${status ? 's' : ''}${direction ? 'd' : ''}${ws !== undefined ? 'w' : ''}`;
      const value = [status, direction, ws].filter((x) => x !== undefined).join('|');
      const sel = facet ? { facet, values: [value] } : {};
      const start = (page - 1) * pageSize;
      let items: CampaignRecord[];
      let total: number;
      if (search) {
        const { positions } = idx.scan(`${facet}:${value}:${search}`, sel, (c) => c.name.toLowerCase().includes(search));
        items = idx.pageOf(positions, start, pageSize, true);
        total = positions.length;
      } else {
        items = idx.page(sel, start, pageSize, true);
        total = idx.count(sel);
      }
      return { data: { campaigns: items.map((c) => view(req, c)), pagination: pagination(page, pageSize, total) } };
    });

    app.post('/api/v1/campaigns', async (req, reply) => reply.code(201).send({ data: view(req, svc.create(req.org, req.body)) }));
    app.get('/api/v1/campaigns/:id', async (req) => ({ data: view(req, model.campaign(req.org.id, id(req))) }));
    app.patch('/api/v1/campaigns/:id', async (req) => ({ data: view(req, svc.update(req.org, id(req), req.body)) }));
    app.delete('/api/v1/campaigns/:id', async (req) => {
      svc.delete(req.org, id(req));
      return { data: { id: id(req), deleted: true } };
    });
    app.post('/api/v1/campaigns/:id/start', async (req) => ({ data: view(req, svc.start(req.org, id(req))) }));
    app.post('/api/v1/campaigns/:id/pause', async (req) => ({ data: view(req, svc.pause(req.org, id(req))) }));

    app.get('/api/v1/campaigns/:id/contacts', async (req) => {
      const c = model.campaign(req.org.id, id(req));
      const q = req.query as Q;
      const page = int(q.page, 'page', 1, Number.MAX_SAFE_INTEGER) ?? 1;
      const pageSize = int(q.pageSize, 'pageSize', 1, CONTACTS_PAGE.max) ?? CONTACTS_PAGE.def;
      const idx = model.contactIndex(req.org.id, c.id);
      return {
        data: { contacts: idx.page({}, (page - 1) * pageSize, pageSize, false).map(renderCampaignContact), pagination: pagination(page, pageSize, idx.size) },
      };
    });
    app.post('/api/v1/campaigns/:id/contacts', async (req) => ({ data: svc.addContacts(req.org, id(req), req.body) }));
    app.delete('/api/v1/campaigns/:id/contacts/:contactId', async (req) => {
      svc.removeContact(req.org, id(req), (req.params as { contactId: string }).contactId);
      return { data: { removed: true } };
    });

    app.get('/api/v1/campaigns/:id/calls', async (req) => {
      const c = model.campaign(req.org.id, id(req));
      const query = { ...(req.query as Q) };
      delete query.campaignId;
      const q = parseCallQuery(query, c.id);
      const page = listCalls(model.campaignCallIndex(req.org.id, c.id), q);
      return { data: { calls: page.calls.map(renderCall), pagination: pagination(q.page, q.pageSize, page.total), summary: page.summary } };
    });
    app.post('/api/v1/campaigns/:id/calls', async (req, reply) => {
      const calls = svc.queueCalls(req.org, id(req), req.body);
      return reply.code(201).send({ data: { calls: calls.map(renderCall), queued: calls.length } });
    });
    app.post('/api/v1/campaigns/:id/trigger', async (req, reply) => reply.code(201).send({ data: renderCall(svc.trigger(req.org, id(req), req.body)) }));
  },
};
