import type { ApiClient } from './client.js';
import { hasMoreByPages, type Page, type PageRequest } from './paginate.js';
import { apiPath } from './path.js';
import type { Schema, SchemaField } from '../spec/contact-schema.js';

// Document 2: contact lists, contacts and import jobs. Every endpoint takes `x-api-key`.

export interface ContactList {
  id: string;
  name: string;
  contactCount: number;
  schema: Schema;
  createdAt: string;
  updatedAt: string;
}

export type Contact = Record<string, unknown> & { id?: string };

export type ImportJobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';
export const IMPORT_JOB_STATUSES: readonly ImportJobStatus[] = ['pending', 'processing', 'completed', 'failed', 'cancelled'];
export const FINISHED_STATUSES: ReadonlySet<ImportJobStatus> = new Set(['completed', 'failed', 'cancelled']);

export interface ImportJob {
  id: string;
  contactListId: string;
  status: ImportJobStatus;
  progress: { total: number; processed: number; successful: number; failed: number };
  errors: Array<{ row: number; field: string; message: string }>;
  createdAt: string;
  updatedAt: string;
}

export interface ImportAccepted {
  jobId: string;
  status: string;
  message: string;
}

/** Contact-list listing: `page`, `limit`; `{ data: [...], pagination: { page, limit, total, totalPages } }`. */
export const CONTACT_LISTS_MAX_PAGE_SIZE = 100;
/** Contacts listing: `limit` max 100, default 50. */
export const CONTACTS_MAX_PAGE_SIZE = 100;
/** Import-job listing: `limit` default 20 (no maximum stated; 100 is asked). */
export const IMPORT_JOBS_MAX_PAGE_SIZE = 100;

const auth = 'x-api-key' as const;

export async function listContactListsPage(api: ApiClient, req: PageRequest, signal?: AbortSignal): Promise<Page<ContactList>> {
  const res = await api.request<ContactList[]>({ method: 'GET', path: '/api/v1/contact-lists', auth, query: { page: req.page, limit: req.pageSize }, signal });
  const items = res.data ?? [];
  return { items, hasMore: hasMoreByPages(req.page, req.pageSize, items.length, res.pagination), total: res.pagination?.total };
}

export async function createContactList(api: ApiClient, body: { name: string; schema: Schema }): Promise<ContactList> {
  return (await api.request<ContactList>({ method: 'POST', path: '/api/v1/contact-lists', auth, body })).data;
}

export async function getContactList(api: ApiClient, id: string, signal?: AbortSignal): Promise<ContactList> {
  return (await api.request<ContactList>({ method: 'GET', path: apiPath`/api/v1/contact-lists/${id}`, auth, signal })).data;
}

/** Adds or modifies fields (spec: "schema changes: add or modify fields"). */
export async function updateContactListSchema(api: ApiClient, id: string, body: { fields: SchemaField[] }): Promise<ContactList> {
  return (await api.request<ContactList>({ method: 'PATCH', path: apiPath`/api/v1/contact-lists/${id}/schema`, auth, body })).data;
}

export async function listContactsPage(api: ApiClient, listId: string, req: PageRequest & { search?: string }, signal?: AbortSignal): Promise<Page<Contact>> {
  const res = await api.request<Contact[]>({
    method: 'GET',
    path: apiPath`/api/v1/contact-lists/${listId}/contacts`,
    auth,
    query: { page: req.page, limit: req.pageSize, search: req.search },
    signal,
  });
  const items = res.data ?? [];
  return { items, hasMore: hasMoreByPages(req.page, req.pageSize, items.length, res.pagination), total: res.pagination?.total };
}

/** Starts an import job from contacts in the request (HTTP 202). */
export async function importContacts(api: ApiClient, listId: string, contacts: Array<Record<string, unknown>>, signal?: AbortSignal): Promise<ImportAccepted> {
  return (
    await api.request<ImportAccepted>({
      method: 'POST',
      path: apiPath`/api/v1/contact-lists/${listId}/contacts`,
      auth,
      body: { contacts },
      envelope: 'bare',
      signal,
    })
  ).data;
}

/** Starts an import job that fetches a file (HTTP 202). */
export async function importContactsFromUrl(api: ApiClient, listId: string, fileUrl: string, fileFormat: 'csv' | 'json'): Promise<ImportAccepted> {
  return (
    await api.request<ImportAccepted>({
      method: 'POST',
      path: apiPath`/api/v1/contact-lists/${listId}/contacts`,
      auth,
      body: { fileUrl, fileFormat },
      envelope: 'bare',
    })
  ).data;
}

export async function listImportJobsPage(
  api: ApiClient,
  req: PageRequest & { contactListId?: string; status?: ImportJobStatus },
  signal?: AbortSignal,
): Promise<Page<ImportJob>> {
  const res = await api.request<ImportJob[] | { data?: ImportJob[]; jobs?: ImportJob[] }>({
    method: 'GET',
    path: '/api/v1/import-jobs',
    auth,
    query: { contactListId: req.contactListId, status: req.status, page: req.page, limit: req.pageSize },
    signal,
  });
  const d = res.data;
  const items = Array.isArray(d) ? d : (d?.jobs ?? d?.data ?? []);
  return { items, hasMore: hasMoreByPages(req.page, req.pageSize, items.length, res.pagination), total: res.pagination?.total };
}

export async function getImportJob(api: ApiClient, id: string, signal?: AbortSignal): Promise<ImportJob> {
  return (await api.request<ImportJob>({ method: 'GET', path: apiPath`/api/v1/import-jobs/${id}`, auth, envelope: 'bare', signal })).data;
}

export async function cancelImportJob(api: ApiClient, id: string): Promise<{ id: string; status: string; message: string }> {
  return (
    await api.request<{ id: string; status: string; message: string }>({
      method: 'POST',
      path: apiPath`/api/v1/import-jobs/${id}/cancel`,
      auth,
      envelope: 'bare',
    })
  ).data;
}
