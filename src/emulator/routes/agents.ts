import { Readable } from 'node:stream';
import { agentModelFor } from '../agents/model.js';
import { BCP47 } from '../agents/validate.js';
import { pageParam, sendData, sendDataJson } from '../envelope.js';
import { badRequest, notFound } from '../errors.js';
import type { EmulatorModule } from '../types.js';

/**
 * Document 1: agents, their tools, voice and versions; the voice catalog and its
 * previews. Thin HTTP over the model in ../agents/ (choices where the spec is
 * silent: ../agents/README.md).
 */

const AGENTS_PAGE = { def: 50, max: 200 };
const VERSIONS_PAGE = { def: 50, max: 200 };
const PREVIEW_CHUNK = 1024;

type Params = { agentId: string };
type Query = Record<string, string | undefined>;

/**
 * The position a listing starts at: `cursor` (a nextCursor this server gave: the next page,
 * or the next offset) or the explicit parameter; both given and different is a 400.
 */
function cursorOr(cursor: string | undefined, name: 'page' | 'offset', explicit: string | undefined, def: number): number {
  const min = name === 'page' ? 1 : 0;
  const value = pageParam(explicit, name, def, Number.MAX_SAFE_INTEGER, min);
  if (cursor === undefined || cursor === '') return value;
  if (!/^\d{1,15}$/.test(cursor) || Number(cursor) < min) {
    throw badRequest(`cursor: ${JSON.stringify(cursor.slice(0, 100))} is not a cursor this server gave (pass meta.pagination.nextCursor as it is)`, [
      { field: 'cursor', message: 'not a cursor of this listing' },
    ]);
  }
  const at = Number(cursor);
  if (explicit !== undefined && explicit !== '' && value !== at) {
    throw badRequest(`cursor and ${name} disagree (${at} and ${value}); give one of them`, [{ field: 'cursor', message: `conflicts with ${name}` }]);
  }
  return at;
}

export const agentsModule: EmulatorModule = {
  name: 'agents',
  register(app, env) {
    const model = agentModelFor(env);
    const catalog = model.catalog;

    app.get<{ Querystring: Query }>('/api/v1/agents', async (req, reply) => {
      // `cursor` (the nextCursor of the previous page) is accepted in place of `page`.
      const page = cursorOr(req.query.cursor, 'page', req.query.page, 1);
      const pageSize = pageParam(req.query.pageSize, 'pageSize', AGENTS_PAGE.def, AGENTS_PAGE.max);
      const start = (page - 1) * pageSize;
      const { agents, total } = model.list(req.org, req.query.search, start, pageSize);
      const more = start + pageSize < total;
      // Each agent's JSON is rendered once per version; the page joins them.
      return sendDataJson(req, reply, `{"agents":[${agents.map((a) => model.viewJson(a)).join(',')}]}`, {
        pagination: { nextCursor: more ? String(page + 1) : null, limit: pageSize, page, total },
      });
    });

    app.post('/api/v1/agents', async (req, reply) => {
      const a = model.create(req.org, req.body);
      return sendData(req, reply, { id: a.id, name: a.config.name, engine: a.config.engine, currentVersion: a.currentVersion }, { status: 201 });
    });

    app.get<{ Params: Params }>('/api/v1/agents/:agentId', async (req, reply) =>
      sendDataJson(req, reply, model.viewJson(model.get(req.org, req.params.agentId))),
    );

    app.patch<{ Params: Params }>('/api/v1/agents/:agentId', async (req, reply) => {
      const a = model.update(req.org, req.params.agentId, req.body);
      return sendData(req, reply, { id: a.id, currentVersion: a.currentVersion });
    });

    app.delete<{ Params: Params }>('/api/v1/agents/:agentId', async (req, reply) => {
      model.delete(req.org, req.params.agentId);
      return sendData(req, reply, { deleted: true });
    });

    app.get<{ Params: Params }>('/api/v1/agents/:agentId/tools', async (req, reply) => {
      const a = model.get(req.org, req.params.agentId);
      return sendData(req, reply, { tools: model.tools(req.org, a) });
    });

    app.put<{ Params: Params }>('/api/v1/agents/:agentId/tools', async (req, reply) => {
      const a = model.setTools(req.org, req.params.agentId, req.body);
      return sendData(req, reply, { tools: model.tools(req.org, a) });
    });

    app.get<{ Params: Params }>('/api/v1/agents/:agentId/voice', async (req, reply) => {
      return sendData(req, reply, model.agentVoice(model.get(req.org, req.params.agentId)));
    });

    app.put<{ Params: Params }>('/api/v1/agents/:agentId/voice', async (req, reply) => {
      return sendData(req, reply, model.agentVoice(model.setVoice(req.org, req.params.agentId, req.body)));
    });

    app.get<{ Params: Params; Querystring: Query }>('/api/v1/agents/:agentId/versions', async (req, reply) => {
      const a = model.get(req.org, req.params.agentId);
      const limit = pageParam(req.query.limit, 'limit', VERSIONS_PAGE.def, VERSIONS_PAGE.max);
      // `cursor` (the nextCursor of the previous page: the next offset) is accepted in place of `offset`.
      const offset = cursorOr(req.query.cursor, 'offset', req.query.offset, 0);
      const versions = model.versionsPage(req.org.id, a, offset, limit).map((r) => model.versionView(req.org, a, r));
      const next = offset + limit < a.currentVersion ? String(offset + limit) : null;
      return sendData(req, reply, { versions, currentVersion: a.currentVersion, total: a.currentVersion }, { pagination: { nextCursor: next, limit } });
    });

    app.post<{ Params: Params }>('/api/v1/agents/:agentId/rollback', async (req, reply) => {
      const a = model.rollback(req.org, req.params.agentId, req.body);
      return sendData(req, reply, { version: a.currentVersion });
    });

    app.get<{ Querystring: Query }>('/api/v1/voices', async (req, reply) => {
      const language = req.query.language?.trim();
      if (language && !BCP47.test(language))
        throw badRequest(`language: "${language}" is not a BCP 47 tag or language code (for example es or es-MX)`, [
          { field: 'language', message: 'not a BCP 47 tag' },
        ]);
      return sendData(req, reply, { voices: catalog.voicesFor(language) });
    });

    // Streamed by the emulator itself (rule 4: never a link to another host).
    app.get<{ Params: { voiceId: string } }>('/api/v1/voices/:voiceId/preview', async (req, reply) => {
      const mp3 = catalog.preview(req.params.voiceId);
      if (!mp3) throw notFound('voice', req.params.voiceId);
      const chunks: Buffer[] = [];
      for (let i = 0; i < mp3.length; i += PREVIEW_CHUNK) chunks.push(mp3.subarray(i, i + PREVIEW_CHUNK));
      return reply
        .code(200)
        .header('content-type', 'audio/mpeg')
        .header('content-length', mp3.length)
        .header('content-disposition', `inline; filename="${req.params.voiceId}.mp3"`)
        .header('cache-control', 'public, max-age=86400')
        .send(Readable.from(chunks));
    });

    // Emulator-only (control path, outside /api/v1): the tools each organization can reach.
    // The spec has no tool listing; tests and demos read tool ids here.
    app.get<{ Querystring: Query }>('/_emulator/tools', async (req) => {
      const which = req.query.org;
      const orgs = env.orgs.filter((o) => !which || o.name === which || o.id === which);
      return { orgs: orgs.map((o) => ({ org: o.name, orgId: o.id, tools: catalog.tools(o.id) })) };
    });
  },
};
