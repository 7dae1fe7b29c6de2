import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { badRequest, conflict, HttpError } from '../errors.js';
import { streamHubFor } from '../events/streams.js';
import { callFacts, fullAnalysis, summaryOf } from '../telephony/analysis.js';
import { mp3Audio, wavAudio } from '../telephony/audio.js';
import { listCalls, parseCallQuery } from '../telephony/listing.js';
import { telephonyFor } from '../telephony/model.js';
import { phoneNumbersFor } from '../telephony/phone-numbers.js';
import { seedCalls } from '../telephony/seed.js';
import { simulatorFor } from '../telephony/simulator.js';
import type { CallRecord } from '../telephony/types.js';
import { pagination, renderCall } from '../telephony/views.js';
import type { EmulatorModule, ModuleEnv, Org } from '../types.js';

/**
 * Document 2: calls (listing, detail, transcript, recording and its audio, cancel),
 * over the simulated telephony in ../telephony/. Envelope `{ data }`; another
 * organization's call is a 404. Control path: phone numbers and seeding.
 */

type Q = Record<string, unknown>;
type P = { callId: string };

export const callsModule: EmulatorModule = {
  name: 'calls',
  register(app, env) {
    const model = telephonyFor(env);
    const sim = simulatorFor(env);
    const seed = env.options.seed;
    env.onReady(() => sim.start());
    env.onClose(() => sim.stop());
    // The call stream (events module) opens for a call that exists even before its first event.
    streamHubFor(env).declareCalls((orgId, callId) => model.findCall(orgId, callId) !== undefined);

    const callOf = (req: FastifyRequest) => model.call(req.org.id, (req.params as P).callId);

    app.get('/api/v1/calls', async (req) => {
      const q = parseCallQuery(req.query as Q);
      const page = listCalls(q.campaignId !== undefined ? model.campaignCallIndex(req.org.id, q.campaignId) : model.callIndex(req.org.id), q);
      return { data: { calls: page.calls.map(renderCall), pagination: pagination(q.page, q.pageSize, page.total), summary: page.summary } };
    });

    app.get('/api/v1/calls/:callId', async (req) => ({ data: detail(env, sim, callOf(req)) }));

    app.get('/api/v1/calls/:callId/transcript', async (req) => {
      const call = callOf(req);
      const all = sim.segmentsOf(call);
      const shown = call.status === 'in_progress' ? all.slice(0, call.segmentsSent) : call.status === 'completed' ? all : [];
      const messages = shown.map((s) => ({ role: s.role, text: s.text, ordinal: s.ordinal }));
      return { data: { callId: call.id, messages, messageCount: messages.length, duration: call.duration } };
    });

    app.get('/api/v1/calls/:callId/recording', async (req) => {
      const call = callOf(req);
      const recs = recordingsOf(seed, call);
      return { data: { callId: call.id, recordings: recs, recordingCount: recs.length, audioUrl: `/api/v1/calls/${call.id}/recording/audio` } };
    });

    app.get('/api/v1/calls/:callId/recording/audio', async (req, reply) => {
      const call = callOf(req);
      const q = req.query as Q;
      const format = q.format === undefined || q.format === '' ? 'mp3' : q.format;
      if (format !== 'mp3' && format !== 'wav')
        throw badRequest(`format: must be mp3 or wav (got ${JSON.stringify(format)})`, [{ field: 'format', message: 'must be mp3 or wav' }]);
      const recs = recordingsOf(seed, call);
      if (recs.length === 0)
        throw new HttpError(
          404,
          'no_recording',
          `call ${call.id} has no recording (${call.status === 'completed' ? 'it never connected' : `it is ${call.status}; connected calls get a recording when they end`})`,
        );
      const sid = typeof q.recordingSid === 'string' && q.recordingSid !== '' ? q.recordingSid : recs[0]!.sid;
      if (!recs.some((r) => r.sid === sid))
        throw new HttpError(404, 'recording_not_found', `call ${call.id} has no recording ${sid} (GET /api/v1/calls/${call.id}/recording lists them)`);
      const segments = sim.segmentsOf(call);
      const audio = format === 'wav' ? wavAudio(call.duration, segments) : mp3Audio(call.duration, segments, `Call ${call.id}`);
      return reply
        .code(200)
        .header('content-type', audio.contentType)
        .header('content-length', audio.length)
        .header('content-disposition', `attachment; filename="call-${call.id}.${format}"`)
        .send(audio.stream());
    });

    app.post('/api/v1/calls/:callId/cancel', async (req) => {
      const call = callOf(req);
      if (call.status !== 'queued') {
        const why =
          call.status === 'initiated' || call.status === 'ringing' || call.status === 'in_progress'
            ? `it is ${call.status}; only queued calls can be cancelled, and an initiated call completes normally`
            : `it is already ${call.status}; only queued calls can be cancelled`;
        throw conflict('call_not_cancellable', `call ${call.id} cannot be cancelled: ${why}`, { status: call.status });
      }
      sim.cancel(req.org.id, call);
      return { data: renderCall(call) };
    });

    // ---- control path ----

    const orgFor = (which: unknown): Org => {
      if (which === undefined || which === '') return env.orgs[0]!;
      const o = env.orgs.find((x) => x.name === which || x.id === which);
      if (!o) throw badRequest(`org: no organization ${JSON.stringify(which)} (known: ${env.orgs.map((x) => x.name).join(', ')})`);
      return o;
    };

    app.get('/_emulator/phone-numbers', async (req) => {
      const which = (req.query as Q).org;
      const orgs = which ? [orgFor(which)] : env.orgs;
      return { orgs: orgs.map((o) => ({ org: o.name, orgId: o.id, phoneNumbers: phoneNumbersFor(seed, o.id) })) };
    });

    app.post('/_emulator/calls/seed', async (req, reply) => {
      const body = (req.body ?? {}) as Q;
      if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body must be a JSON object { org?, campaignId?, count, analysed? }');
      return reply.code(201).send(seedCalls(env, orgFor(body.org), body));
    });
  },
};

function recordingsOf(seed: number, call: CallRecord): Array<{ sid: string; duration: number; status: string; createdAt: string }> {
  if (call.status !== 'completed' || !call.answeredAt) return [];
  const sid = `RE${createHash('sha256').update(`rec:${seed}:${call.id}`).digest('hex').slice(0, 32)}`;
  return [{ sid, duration: call.duration, status: 'completed', createdAt: call.endedAt ?? call.answeredAt }];
}

function detail(env: ModuleEnv, sim: ReturnType<typeof simulatorFor>, call: CallRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...renderCall(call),
    ringingAt: call.ringingAt,
    answeredAt: call.answeredAt,
    cost: call.cost,
    runId: call.runId,
    summary: null,
    analysis: null,
  };
  // Only a call that connected has a conversation to analyse (a failed call has none).
  if (call.analyzedAt && call.status === 'completed') {
    const facts = callFacts(env.options.seed, call);
    out.summary = summaryOf(call, facts);
    out.analysis = fullAnalysis(env.options.seed, call, facts, sim.segmentsOf(call));
  }
  return out;
}
