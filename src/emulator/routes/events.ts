import { EVENT_TYPES, eventTypeInfo } from '../../spec/event-types.js';
import { sendData } from '../envelope.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { MAX_NESTING, nestingDepth } from '../depth.js';
import { eventLogFor } from '../events/log.js';
import { parseResume, parseTypes, streamHubFor } from '../events/streams.js';
import type { EmulatorModule, ModuleEnv, Org } from '../types.js';

/**
 * Document 1, "Event streams and catalog": the organization and call streams and the catalog, over
 * the one event log (../events/log.ts, ../events/streams.ts). Control path: publish events (POST
 * /_emulator/events; GET is the evals module's), drop/stall streams, heartbeat, open stream count.
 */

type Query = Record<string, string | undefined>;
const MAX_BURST = 100_000;
/** Events appended per turn of the event loop in a published burst. */
const BURST_CHUNK = 20;

export const eventsModule: EmulatorModule = {
  name: 'events',
  register(app, env) {
    const hub = streamHubFor(env);
    env.onClose(() => hub.closeAll());

    app.get('/api/v1/events/types', async (req, reply) =>
      sendData(req, reply, { events: EVENT_TYPES.map((t) => ({ type: t.type, description: t.description, delivery: [...t.delivery] })) }),
    );

    app.get<{ Querystring: Query }>('/api/v1/events', async (req, reply) => {
      const types = parseTypes(req.query.types, true);
      const afterSeq = parseResume(req.query.lastEventId, req.headers['last-event-id']);
      reply.hijack();
      env.logRequest(req, 200);
      hub.start({
        res: reply.raw,
        requestId: req.id,
        orgId: req.org.id,
        afterSeq,
        filter: (e) => !e.streamOnly && (!types || types.has(e.type)),
        view: (e) => ({ type: e.type, organizationId: e.organizationId, callId: e.callId, occurredAt: e.occurredAt, data: e.data }),
      });
    });

    app.get<{ Params: { callId: string }; Querystring: Query }>('/api/v1/calls/:callId/events', async (req, reply) => {
      const types = parseTypes(req.query.types, false);
      const afterSeq = parseResume(req.query.lastEventId, req.headers['last-event-id']);
      const callId = req.params.callId;
      if (!hub.callExists(req.org.id, callId)) throw notFound('call', callId);
      reply.hijack();
      env.logRequest(req, 200);
      hub.start({
        res: reply.raw,
        requestId: req.id,
        orgId: req.org.id,
        afterSeq,
        filter: (e) => e.callId === callId && (!types || types.has(e.type)),
        view: (e) => ({ type: e.type, callId: e.callId, data: e.data }),
      });
    });

    // ---- control path ----
    app.post('/_emulator/events', async (req, reply) => {
      const body = (req.body ?? {}) as { org?: unknown; type?: unknown; callId?: unknown; data?: unknown; count?: unknown; stamps?: unknown };
      const org = orgOf(env, body.org);
      if (typeof body.type !== 'string' || !eventTypeInfo(body.type)) {
        throw new HttpError(
          400,
          'unknown_event_type',
          `type: "${String(body.type)}" is not in the catalog (known: ${EVENT_TYPES.map((t) => t.type).join(', ')})`,
        );
      }
      const info = eventTypeInfo(body.type)!;
      if (body.callId !== undefined && body.callId !== null && typeof body.callId !== 'string') throw badRequest('callId must be a string');
      if (body.data !== undefined && (typeof body.data !== 'object' || body.data === null || Array.isArray(body.data)))
        throw badRequest('data must be an object');
      const count = body.count === undefined ? undefined : Number(body.count);
      if (count !== undefined && (!Number.isInteger(count) || count < 1 || count > MAX_BURST))
        throw badRequest(`count must be an integer from 1 to ${MAX_BURST}`);
      const log = eventLogFor(env);
      const data = (body.data ?? {}) as Record<string, unknown>;
      // Data nested deeper than any event needs could not be written out again (replays, webhooks, the journal).
      if (nestingDepth(data, MAX_NESTING) > MAX_NESTING)
        throw badRequest(`data: nested more than ${MAX_NESTING} levels deep (objects and arrays within each other)`, [
          { field: 'data', message: `nested more than ${MAX_NESTING} levels` },
        ]);
      const ids: string[] = [];
      // stamps: true returns each event's real append time (ms), for latency measurements.
      const stamps: number[] | undefined = body.stamps === true ? [] : undefined;
      const n = count ?? 1;
      // A burst is produced as a real source would: BURST_CHUNK events at a time, yielding to the
      // event loop between chunks so each chunk's frames reach the sockets while the rest is still
      // being produced (one synchronous loop held every write until the last event existed).
      for (let i = 1; i <= n; i++) {
        const e = log.append(org.id, {
          type: info.type,
          callId: (body.callId as string | null | undefined) ?? null,
          data: count === undefined ? { ...data } : { ...data, n: i },
          streamOnly: info.streamOnly,
        });
        ids.push(e.id);
        stamps?.push(e.realTimeMs);
        if (i % BURST_CHUNK === 0 && i < n) await new Promise<void>((r) => setImmediate(r));
      }
      return reply.code(201).send({ org: org.name, published: n, firstId: ids[0], lastId: ids[ids.length - 1], ids: n <= 1000 ? ids : undefined, stamps });
    });

    app.post('/_emulator/streams/drop', async (req) => {
      const everyMs = (req.body as { everyMs?: unknown } | undefined)?.everyMs;
      if (everyMs !== undefined && (typeof everyMs !== 'number' || !(everyMs > 0))) throw badRequest('everyMs must be a positive number');
      const open = hub.openCount;
      hub.drop(everyMs as number | undefined);
      return { dropped: open, everyMs: everyMs ?? null };
    });
    app.delete('/_emulator/streams/drop', async () => {
      hub.stopDropping();
      return { dropping: false };
    });
    app.post('/_emulator/streams/stall', async () => {
      hub.setStalled(true);
      return { stalled: true };
    });
    app.delete('/_emulator/streams/stall', async () => {
      hub.setStalled(false);
      return { stalled: false };
    });
    app.post('/_emulator/streams/heartbeat', async (req) => {
      const ms = (req.body as { ms?: unknown } | undefined)?.ms;
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 10) throw badRequest('ms must be a number of at least 10');
      hub.setHeartbeat(ms);
      return { ms };
    });
    app.get('/_emulator/streams', async () => ({ open: hub.openCount, heartbeatMs: hub.heartbeat }));
  },
};

/** The organization named (by name or id) in a control request; the first one when none. */
export function orgOf(env: ModuleEnv, which: unknown): Org {
  if (which === undefined || which === null || which === '') return env.orgs[0]!;
  const org = env.orgs.find((o) => o.name === which || o.id === which);
  if (!org) throw badRequest(`org: no organization named "${String(which)}" (known: ${env.orgs.map((o) => o.name).join(', ')})`);
  return org;
}
