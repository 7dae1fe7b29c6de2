import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pageParam } from '../envelope.js';
import { badRequest, conflict, HttpError, notFound } from '../errors.js';
import type { EmulatorModule, ModuleEnv } from '../types.js';
import { ImportJobRunner } from '../contacts/jobs.js';
import {
  contactMatcher,
  contactsCollection,
  isActive,
  isPlainObject,
  JOB_STATUSES,
  LIMITS,
  LISTS,
  mergeSchema,
  pagination,
  parseFields,
  parseSchema,
  renderContact,
  renderJob,
  renderList,
  type JobStatus,
  type StoredContact,
  type StoredJob,
  type StoredList,
} from '../contacts/model.js';
import { revalidateContacts } from '../contacts/revalidate.js';
import { checkUrl, UrlRefused } from '../contacts/url-guard.js';
import { MAX_NESTING, nestingDepth } from '../depth.js';

// Document 2: contact lists, contacts and import jobs, every collection per organization, so
// another tenant's id is simply not found. Choices where the spec is silent: README.md in
// ../contacts/.

type Query = Record<string, unknown>;

function register(app: FastifyInstance, env: ModuleEnv): void {
  const { store, clock, ids } = env;
  const runner = new ImportJobRunner(env);
  env.onReady(() => runner.resumeAll());
  env.onClose(() => runner.close());

  const lists = (req: FastifyRequest) => store.collection<StoredList>(req.org.id, LISTS);
  const contactsOf = (req: FastifyRequest, listId: string) => store.collection<StoredContact>(req.org.id, contactsCollection(listId));
  const jobs = (req: FastifyRequest) => {
    runner.sweep(req.org.id);
    return runner.jobs(req.org.id);
  };
  const jobIndex = (req: FastifyRequest) =>
    jobs(req).ordered({ status: (j) => j.status, list: (j) => j.contactListId, listStatus: (j) => `${j.contactListId}|${j.status}` });
  const jobOut = (req: FastifyRequest, j: StoredJob) => renderJob(j, runner.errorsOf(req.org.id, j));
  const getList = (req: FastifyRequest, id: string) => {
    const l = lists(req).get(id);
    if (!l) throw notFound('contact list', id);
    return l;
  };
  const listOut = (req: FastifyRequest, l: StoredList) => renderList(l, contactsOf(req, l.id).size);
  const body = (req: FastifyRequest): Record<string, unknown> => {
    if (req.body === undefined || req.body === null) return {};
    if (!isPlainObject(req.body)) throw badRequest('the body must be a JSON object');
    return req.body;
  };
  const paramId = (req: FastifyRequest) => (req.params as { id: string }).id;

  // Schema changes of one list run one at a time (revalidation yields to the event loop).
  const schemaLocks = new Map<string, Promise<unknown>>();

  // ---- contact lists ----

  app.get('/api/v1/contact-lists', async (req) => {
    const q = req.query as Query;
    const page = pageParam(q.page, 'page', 1, Number.MAX_SAFE_INTEGER);
    const limit = pageParam(q.limit, 'limit', LIMITS.listsPageDefault, LIMITS.pageMax);
    const idx = lists(req).ordered();
    const data = idx.page({}, (page - 1) * limit, limit, false).map((l) => listOut(req, l));
    return { data, pagination: pagination(page, limit, idx.size) };
  });

  app.post('/api/v1/contact-lists', async (req, reply) => {
    const b = body(req);
    const extra = Object.keys(b).find((k) => k !== 'name' && k !== 'schema');
    if (extra !== undefined)
      throw badRequest(`${extra}: unknown property (a contact list takes name and schema)`, [{ field: extra, message: 'unknown property' }]);
    if (typeof b.name !== 'string' || b.name.trim() === '') throw badRequest('name: must be a non-empty string', [{ field: 'name', message: 'is required' }]);
    const name = b.name.trim();
    if (name.length > LIMITS.listNameLength)
      throw badRequest(`name: is longer than ${LIMITS.listNameLength} characters`, [{ field: 'name', message: 'too long' }]);
    const schema = parseSchema(b.schema);
    const now = clock.iso();
    const list: StoredList = { id: ids.next('cl'), name, schema, invalidContactCount: 0, createdAt: now, updatedAt: now };
    lists(req).set(list.id, list);
    return reply
      .code(201)
      .header('location', `/api/v1/contact-lists/${list.id}`)
      .send({ data: listOut(req, list) });
  });

  app.get('/api/v1/contact-lists/:id', async (req) => ({ data: listOut(req, getList(req, paramId(req))) }));

  app.patch('/api/v1/contact-lists/:id/schema', async (req) => {
    const list = getList(req, paramId(req));
    const b = body(req);
    // `{ fields: [...] }`, or the same wrapped as `{ schema: { fields } }`.
    const inner = isPlainObject(b.schema) && b.fields === undefined ? b.schema : b;
    const where = inner === b ? 'fields' : 'schema.fields';
    const extra = Object.keys(inner).find((k) => k !== 'fields') ?? (inner === b ? undefined : Object.keys(b).find((k) => k !== 'schema'));
    if (extra !== undefined) {
      const msg = /^(remove|removeFields|delete|deleteFields)$/.test(extra)
        ? 'fields cannot be removed from a schema; make them optional with { "name": ..., "required": false }'
        : 'unknown property (a schema change takes fields)';
      throw badRequest(`${extra}: ${msg}`, [{ field: extra, message: msg }]);
    }
    const changes = parseFields(inner.fields, where, (name) => !list.schema.fields.some((f) => f.name === name));
    const key = `${req.org.id}/${list.id}`;
    const previous = schemaLocks.get(key) ?? Promise.resolve();
    const run = previous.then(async () => {
      list.schema = mergeSchema(list.schema, changes);
      list.updatedAt = clock.iso();
      lists(req).touch(list.id);
      const report = await revalidateContacts(list, contactsOf(req, list.id), () => clock.iso());
      lists(req).touch(list.id);
      return report;
    });
    const settled = run.catch(() => undefined);
    schemaLocks.set(key, settled);
    try {
      const revalidation = await run;
      return { data: { ...listOut(req, list), revalidation } };
    } finally {
      if (schemaLocks.get(key) === settled) schemaLocks.delete(key);
    }
  });

  // ---- contacts ----

  app.get('/api/v1/contact-lists/:id/contacts', async (req) => {
    const list = getList(req, paramId(req));
    const q = req.query as Query;
    const page = pageParam(q.page, 'page', 1, Number.MAX_SAFE_INTEGER);
    const limit = pageParam(q.limit, 'limit', LIMITS.contactsPageDefault, LIMITS.pageMax);
    if (q.search !== undefined && typeof q.search !== 'string') throw badRequest('search: give it once, as a string');
    const search = (q.search as string | undefined) ?? '';
    if (search.length > LIMITS.searchLength) throw badRequest(`search: is longer than ${LIMITS.searchLength} characters`);
    const match = contactMatcher(list.schema, search);
    const idx = contactsOf(req, list.id).ordered();
    const from = (page - 1) * limit;
    if (!match) return { data: idx.page({}, from, limit, false).map(renderContact), pagination: pagination(page, limit, idx.size) };
    // The matches are read once per query (and schema) while the list does not change.
    const { positions } = idx.scan(`${list.updatedAt}|${search.trim().toLowerCase()}`, {}, match);
    return { data: idx.pageOf(positions, from, limit, false).map(renderContact), pagination: pagination(page, limit, positions.length) };
  });

  app.post('/api/v1/contact-lists/:id/contacts', async (req, reply) => {
    const list = getList(req, paramId(req));
    const b = body(req);
    const extra = Object.keys(b).find((k) => !['contacts', 'fileUrl', 'fileFormat'].includes(k));
    if (extra !== undefined)
      throw badRequest(`${extra}: unknown property (give contacts, or fileUrl with fileFormat)`, [{ field: extra, message: 'unknown property' }]);
    const hasContacts = b.contacts !== undefined;
    const hasUrl = b.fileUrl !== undefined;
    if (hasContacts && hasUrl) throw badRequest('give either contacts or fileUrl, not both', [{ field: 'contacts', message: 'not with fileUrl' }]);
    if (!hasContacts && !hasUrl)
      throw badRequest('give either contacts (an array of objects) or fileUrl with fileFormat', [{ field: 'contacts', message: 'is required' }]);
    let job: StoredJob;
    if (hasContacts) {
      if (b.fileFormat !== undefined)
        throw badRequest('fileFormat: goes with fileUrl, not with contacts', [{ field: 'fileFormat', message: 'only with fileUrl' }]);
      const rows = b.contacts;
      if (!Array.isArray(rows)) throw badRequest('contacts: must be an array of objects', [{ field: 'contacts', message: 'must be an array' }]);
      if (rows.length === 0) throw badRequest('contacts: must not be empty', [{ field: 'contacts', message: 'must not be empty' }]);
      if (rows.length > LIMITS.contactsPerRequest) {
        throw new HttpError(
          413,
          'too_many_contacts',
          `contacts: ${rows.length} contacts in one request; at most ${LIMITS.contactsPerRequest} are accepted (split the import)`,
          [{ field: 'contacts', message: `at most ${LIMITS.contactsPerRequest}` }],
        );
      }
      const bad = rows.findIndex((r) => !isPlainObject(r));
      if (bad >= 0) throw badRequest(`contacts[${bad}]: must be an object of field values`, [{ field: `contacts[${bad}]`, message: 'must be an object' }]);
      // The rows are kept until the job ends: nesting that could not be written out again is refused.
      const deep = rows.findIndex((r) => nestingDepth(r, MAX_NESTING) > MAX_NESTING);
      if (deep >= 0)
        throw badRequest(`contacts[${deep}]: nested more than ${MAX_NESTING} levels deep`, [
          { field: `contacts[${deep}]`, message: `nested more than ${MAX_NESTING} levels` },
        ]);
      job = runner.create(req.org.id, list.id, { type: 'contacts' }, rows);
    } else {
      if (typeof b.fileUrl !== 'string' || b.fileUrl.trim() === '')
        throw badRequest('fileUrl: must be a non-empty string', [{ field: 'fileUrl', message: 'must be a string' }]);
      if (b.fileUrl.length > LIMITS.fileUrlLength)
        throw badRequest(`fileUrl: is longer than ${LIMITS.fileUrlLength} characters`, [{ field: 'fileUrl', message: 'too long' }]);
      if (b.fileFormat === undefined)
        throw badRequest('fileFormat: is required with fileUrl (csv or json)', [{ field: 'fileFormat', message: 'is required with fileUrl' }]);
      if (b.fileFormat !== 'csv' && b.fileFormat !== 'json') {
        throw badRequest(`fileFormat: ${JSON.stringify(b.fileFormat)} is not csv or json`, [{ field: 'fileFormat', message: 'must be csv or json' }]);
      }
      let url: URL;
      try {
        url = await checkUrl(b.fileUrl.trim(), { allowLoopback: env.options.allowLoopbackUrls });
      } catch (err) {
        if (err instanceof UrlRefused) throw new HttpError(400, 'url_not_allowed', `fileUrl: ${err.message}`, [{ field: 'fileUrl', message: err.message }]);
        throw err;
      }
      job = runner.create(req.org.id, list.id, { type: 'file', fileUrl: url.toString(), fileFormat: b.fileFormat });
    }
    const what = hasContacts ? `${job.progress.total} contacts` : `the ${job.source.type === 'file' ? job.source.fileFormat.toUpperCase() : ''} file`;
    return reply
      .code(202)
      .header('location', `/api/v1/import-jobs/${job.id}`)
      .send({ jobId: job.id, status: job.status, message: `import of ${what} into ${list.id} accepted; follow it at /api/v1/import-jobs/${job.id}` });
  });

  // ---- import jobs (bare objects) ----

  app.get('/api/v1/import-jobs', async (req) => {
    const q = req.query as Query;
    const page = pageParam(q.page, 'page', 1, Number.MAX_SAFE_INTEGER);
    const limit = pageParam(q.limit, 'limit', LIMITS.jobsPageDefault, LIMITS.pageMax);
    let statuses: Set<string> | undefined;
    if (q.status !== undefined && q.status !== '') {
      if (typeof q.status !== 'string') throw badRequest('status: give it once (several as a comma-separated list)');
      const wanted = q.status
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = wanted.find((s) => !(JOB_STATUSES as readonly string[]).includes(s));
      if (unknown !== undefined)
        throw badRequest(`status: "${unknown}" is not one of ${JOB_STATUSES.join(', ')}`, [{ field: 'status', message: 'unknown status' }]);
      statuses = new Set(wanted);
    }
    if (q.contactListId !== undefined && typeof q.contactListId !== 'string') throw badRequest('contactListId: give it once');
    const listId = (q.contactListId as string | undefined) || undefined;
    // Insertion order is creation order; newest first. Each filter is a facet of the index.
    const sel = statuses
      ? listId
        ? { facet: 'listStatus', values: [...statuses].map((st) => `${listId}|${st}`) }
        : { facet: 'status', values: [...statuses] }
      : listId
        ? { facet: 'list', values: [listId] }
        : {};
    const idx = jobIndex(req);
    const data = idx.page(sel, (page - 1) * limit, limit, true).map((j) => jobOut(req, j));
    return { data, pagination: pagination(page, limit, idx.count(sel)) };
  });

  app.get('/api/v1/import-jobs/:id', async (req) => {
    const job = jobs(req).get(paramId(req));
    if (!job) throw notFound('import job', paramId(req));
    return jobOut(req, job);
  });

  app.post('/api/v1/import-jobs/:id/cancel', async (req) => {
    const job = jobs(req).get(paramId(req));
    if (!job) throw notFound('import job', paramId(req));
    if (!isActive(job.status)) {
      throw conflict('job_not_cancellable', `import job ${job.id} is already ${job.status}; only pending or processing jobs can be cancelled`, {
        status: job.status as JobStatus,
      });
    }
    runner.cancel(req.org.id, job);
    return { id: job.id, status: job.status, message: job.message };
  });
}

export const contactsModule: EmulatorModule = { name: 'contacts', register };
