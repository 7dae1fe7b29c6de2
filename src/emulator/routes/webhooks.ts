import { pageParam, sendData } from '../envelope.js';
import { badRequest } from '../errors.js';
import type { EmulatorModule } from '../types.js';
import { deliveryView, endpointView, webhooksFor } from '../webhooks/service.js';

/**
 * Document 1, "Webhook endpoints": CRUD, secret rotation and the deliveries of an
 * endpoint. Thin HTTP over ../webhooks/service.ts (the dispatcher follows the event log).
 */

type Params = { endpointId: string };
type Query = Record<string, string | undefined>;
const DELIVERIES_PAGE = { def: 50, max: 200 };

export const webhooksModule: EmulatorModule = {
  name: 'webhooks',
  register(app, env) {
    const svc = webhooksFor(env);
    env.onReady(() => svc.start());
    env.onClose(() => svc.stop());

    // Control: switch the loopback allowance at run time. The URL is checked again at every
    // attempt, so an endpoint created while loopback was allowed is refused once it is not
    // (this is how the delivery-time SSRF check is tested).
    app.post('/_emulator/webhooks/allow-loopback', async (req) => {
      const allow = (req.body as { allow?: unknown } | undefined)?.allow;
      if (typeof allow !== 'boolean') throw badRequest('allow must be true or false');
      (env.options as { allowLoopbackUrls: boolean }).allowLoopbackUrls = allow;
      return { allowLoopbackUrls: allow };
    });

    app.get('/api/v1/webhook-endpoints', async (req, reply) => sendData(req, reply, { endpoints: svc.list(req.org).map(endpointView) }));

    app.post('/api/v1/webhook-endpoints', async (req, reply) => {
      const e = await svc.create(req.org, req.body);
      return sendData(req, reply, { ...endpointView(e), secret: e.secret }, { status: 201 });
    });

    app.get<{ Params: Params }>('/api/v1/webhook-endpoints/:endpointId', async (req, reply) =>
      sendData(req, reply, endpointView(svc.get(req.org, req.params.endpointId))),
    );

    app.patch<{ Params: Params }>('/api/v1/webhook-endpoints/:endpointId', async (req, reply) => {
      const e = await svc.update(req.org, req.params.endpointId, req.body);
      return sendData(req, reply, endpointView(e));
    });

    app.post<{ Params: Params }>('/api/v1/webhook-endpoints/:endpointId/rotate-secret', async (req, reply) => {
      const e = svc.rotate(req.org, req.params.endpointId);
      return sendData(req, reply, { id: e.id, secret: e.secret, secretPrefix: e.secretPrefix });
    });

    app.delete<{ Params: Params }>('/api/v1/webhook-endpoints/:endpointId', async (req, reply) => {
      svc.remove(req.org, req.params.endpointId);
      return sendData(req, reply, { deleted: true });
    });

    app.get<{ Params: Params; Querystring: Query }>('/api/v1/webhook-endpoints/:endpointId/deliveries', async (req, reply) => {
      const limit = pageParam(req.query.limit, 'limit', DELIVERIES_PAGE.def, DELIVERIES_PAGE.max);
      const page = svc.listDeliveries(req.org, req.params.endpointId, { status: req.query.status, limit, cursor: req.query.cursor });
      return sendData(req, reply, { deliveries: page.deliveries.map(deliveryView) }, { pagination: { nextCursor: page.nextCursor, limit } });
    });
  },
};
