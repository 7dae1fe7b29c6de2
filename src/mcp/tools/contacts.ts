import { z } from 'zod';
import {
  CONTACT_LISTS_MAX_PAGE_SIZE,
  getContactList,
  getImportJob,
  IMPORT_JOB_STATUSES,
  IMPORT_JOBS_MAX_PAGE_SIZE,
  listContactListsPage,
  listImportJobsPage,
  type ImportJobStatus,
} from '../../api/contacts.js';
import { limitOf, listInput, listOutput, openCursor, readRange } from '../paging.js';
import * as S from '../schemas.js';
import { defineTool } from '../tool.js';

export const contactTools = [
  defineTool({
    name: 'vap_contact_lists_list',
    title: 'List contact lists',
    description: 'The contact lists of the organization: name, number of contacts and schema (field names, types, required).',
    input: { ...listInput },
    output: z.object({ contactLists: z.array(S.contactList), total: S.num }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const { pos, filters } = openCursor(env.tool, a.cursor, {});
      const offset = pos.o ?? 0;
      const limit = limitOf(a.limit);
      const r = await readRange(
        (page, pageSize) => listContactListsPage(env.api, { page, pageSize }, env.signal),
        offset,
        limit,
        Math.min(limit, CONTACT_LISTS_MAX_PAGE_SIZE),
      );
      return listOutput({ tool: env.tool, key: 'contactLists', filters }, r.items, r.more, (n) => ({ o: offset + n }), r.total);
    },
  }),

  defineTool({
    name: 'vap_contact_lists_get',
    title: 'Get a contact list',
    description: 'One contact list: its schema and number of contacts.',
    input: { listId: z.string().min(1).describe('The contact list id (cl_…, from vap_contact_lists_list).') },
    output: z.object({ contactList: S.contactList }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      return { data: { contactList: await getContactList(env.api, a.listId, env.signal) } };
    },
  }),

  defineTool({
    name: 'vap_import_jobs_list',
    title: 'List contact import jobs',
    description:
      'Contact import jobs, optionally of one list or in one status (pending, processing, completed, failed, cancelled): progress (total, processed, successful, failed). The rows that failed are in vap_import_jobs_get.',
    input: { contactListId: z.string().optional(), status: z.enum(IMPORT_JOB_STATUSES as [string, ...string[]]).optional(), ...listInput },
    output: z.object({ importJobs: z.array(S.importJob.omit({ errors: true })), total: S.num }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const { pos, filters } = openCursor(env.tool, a.cursor, { contactListId: a.contactListId, status: a.status });
      const offset = pos.o ?? 0;
      const limit = limitOf(a.limit);
      const r = await readRange(
        (page, pageSize) =>
          listImportJobsPage(
            env.api,
            { page, pageSize, contactListId: filters.contactListId as string | undefined, status: filters.status as ImportJobStatus | undefined },
            env.signal,
          ),
        offset,
        limit,
        Math.min(limit, IMPORT_JOBS_MAX_PAGE_SIZE),
      );
      return listOutput(
        { tool: env.tool, key: 'importJobs', filters, fields: ['id', 'contactListId', 'status', 'progress', 'createdAt', 'updatedAt'] },
        r.items,
        r.more,
        (n) => ({ o: offset + n }),
        r.total,
      );
    },
  }),

  defineTool({
    name: 'vap_import_jobs_get',
    title: 'Get a contact import job',
    description: 'One import job: status, progress, and the rows that failed with the field and the reason.',
    input: { jobId: z.string().min(1).describe('The import job id (job_…).') },
    output: z.object({ importJob: S.importJob }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      return {
        data: { importJob: await getImportJob(env.api, a.jobId, env.signal) },
        rest: 'read the failed rows with `vap import-jobs get <jobId>` in a terminal',
      };
    },
  }),
];
