import { FIELD_TYPES, isFieldType, type FieldError, type Schema, type SchemaField } from '../../spec/contact-validate.js';
import { badRequest } from '../errors.js';

// State of the contacts group (document 2): contact lists, their contacts and import jobs.
// Stored per organization in the emulator's Store; rendered by the functions below.

export const LISTS = 'contactLists';
export const JOBS = 'importJobs';
/** Rows of `contacts`-array imports still to process (deleted when the job finishes). */
export const JOB_ROWS = 'importJobRows';
export const contactsCollection = (listId: string) => `contacts:${listId}`;
/** A job's row errors, one record per chunk (keyed by its first row): a chunk writes its own errors, not the job's. */
export const jobErrorsCollection = (jobId: string) => `importJobErrors:${jobId}`;

export type JobError = { row: number; field: string; message: string };

// Limits the spec leaves open (recorded in README.md next to this file).
export const LIMITS = {
  listNameLength: 200,
  fieldNameLength: 100,
  fieldsPerSchema: 100,
  contactsPerRequest: 10_000,
  fileBytes: 50 * 1024 * 1024,
  fileRows: 100_000,
  fileTimeoutMs: 30_000,
  fileRedirects: 5,
  fileUrlLength: 2048,
  searchLength: 200,
  /** Error entries kept per job; further ones are counted in `failed` only. */
  jobErrors: 10_000,
  listsPageDefault: 20,
  contactsPageDefault: 50,
  jobsPageDefault: 20,
  pageMax: 100,
} as const;

export const TIMING = {
  /** Simulated delay between acceptance (pending) and the start of processing. */
  pendingMs: 1_000,
  /** Rows processed per chunk, one chunk per simulated second. */
  chunkRows: 500,
  chunkMs: 1_000,
  /** A finished job is kept this long (simulated time) after it finished. */
  retentionMs: 30 * 24 * 60 * 60 * 1000,
} as const;

/** Keys of a rendered contact that are system fields, so a schema may not use them. */
export const RESERVED_FIELD_NAMES = new Set(['id', 'createdAt', 'updatedAt', 'validationErrors']);

export interface StoredList {
  id: string;
  name: string;
  schema: { fields: Array<SchemaField & { required: boolean }> };
  /** Contacts that do not conform to the current schema (after a schema change). */
  invalidContactCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface StoredContact {
  id: string;
  data: Record<string, unknown>;
  /** Present while the contact does not conform to its list's current schema. */
  validationErrors?: FieldError[];
  createdAt: string;
  updatedAt: string;
}

export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';
export const JOB_STATUSES: readonly JobStatus[] = ['pending', 'processing', 'completed', 'failed', 'cancelled'];
export const isActive = (s: JobStatus) => s === 'pending' || s === 'processing';

export type JobSource = { type: 'contacts' } | { type: 'file'; fileUrl: string; fileFormat: 'csv' | 'json' };

export interface StoredJob {
  id: string;
  contactListId: string;
  status: JobStatus;
  progress: { total: number; processed: number; successful: number; failed: number };
  /** Error entries kept so far (in the job's error collection; at most LIMITS.jobErrors). */
  errorsKept?: number;
  /** State files of earlier vap versions kept the errors on the job itself. */
  errors?: JobError[];
  errorsTruncated: boolean;
  source: JobSource;
  message: string;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export function renderList(l: StoredList, contactCount: number): Record<string, unknown> {
  return {
    id: l.id,
    name: l.name,
    schema: { fields: l.schema.fields.map((f) => ({ name: f.name, type: f.type, required: f.required })) },
    contactCount,
    invalidContactCount: l.invalidContactCount,
    createdAt: l.createdAt,
    updatedAt: l.updatedAt,
  };
}

export function renderContact(c: StoredContact): Record<string, unknown> {
  const out: Record<string, unknown> = { id: c.id, ...c.data, createdAt: c.createdAt, updatedAt: c.updatedAt };
  if (c.validationErrors?.length) out.validationErrors = c.validationErrors;
  return out;
}

/** The import job as the API answers it; `errors` are its row errors in row order. */
export function renderJob(j: StoredJob, errors: JobError[]): Record<string, unknown> {
  return {
    id: j.id,
    contactListId: j.contactListId,
    status: j.status,
    progress: { ...j.progress },
    errors,
    errorsTruncated: j.errorsTruncated,
    message: j.message,
    source: j.source,
    createdAt: j.createdAt,
    updatedAt: j.updatedAt,
    startedAt: j.startedAt,
    finishedAt: j.finishedAt,
    expiresAt: j.finishedAt ? new Date(Date.parse(j.finishedAt) + TIMING.retentionMs).toISOString() : null,
  };
}

export function pagination(page: number, limit: number, total: number) {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const VALID_TYPES = FIELD_TYPES.join(', ');
const FIELD_KEYS = new Set(['name', 'type', 'required']);

export interface FieldInput {
  name: string;
  type?: SchemaField['type'];
  required?: boolean;
}

/**
 * Checks the field definitions of a create or a schema change. With `typeRequired`
 * false (schema change of an existing field), `type` may be left out.
 */
export function parseFields(raw: unknown, where: string, typeRequired: (name: string) => boolean): FieldInput[] {
  if (!Array.isArray(raw)) throw badRequest(`${where} must be an array of { name, type, required? }`, [{ field: where, message: 'must be an array' }]);
  if (raw.length === 0) throw badRequest(`${where} must hold at least one field`, [{ field: where, message: 'must not be empty' }]);
  if (raw.length > LIMITS.fieldsPerSchema) {
    throw badRequest(`${where} holds ${raw.length} fields; at most ${LIMITS.fieldsPerSchema} are allowed`, [{ field: where, message: 'too many fields' }]);
  }
  const seen = new Set<string>();
  return raw.map((f, i) => {
    const at = `${where}[${i}]`;
    const fail = (field: string, message: string) => badRequest(`${field}: ${message}`, [{ field, message }]);
    if (!isPlainObject(f)) throw fail(at, 'must be an object { name, type, required? }');
    const extra = Object.keys(f).find((k) => !FIELD_KEYS.has(k));
    if (extra !== undefined) throw fail(`${at}.${extra}`, `unknown property "${extra}" (a field has name, type and required)`);
    if (typeof f.name !== 'string' || f.name.trim() === '') throw fail(`${at}.name`, 'must be a non-empty string');
    const name = f.name;
    if (name !== name.trim()) throw fail(`${at}.name`, `"${name}" has leading or trailing spaces`);
    if (name.length > LIMITS.fieldNameLength) throw fail(`${at}.name`, `is longer than ${LIMITS.fieldNameLength} characters`);
    if (RESERVED_FIELD_NAMES.has(name)) {
      throw fail(`${at}.name`, `"${name}" is a system field of contacts; reserved names: ${[...RESERVED_FIELD_NAMES].join(', ')}`);
    }
    if (name === '__proto__') throw fail(`${at}.name`, '"__proto__" cannot be a field name');
    if (seen.has(name)) throw fail(`${at}.name`, `duplicate field name "${name}"`);
    seen.add(name);
    const out: FieldInput = { name };
    if (f.type === undefined) {
      if (typeRequired(name)) throw fail(`${at}.type`, `field "${name}" needs a type (valid types: ${VALID_TYPES})`);
    } else if (typeof f.type !== 'string' || !isFieldType(f.type)) {
      throw fail(`${at}.type`, `field "${name}" has type ${JSON.stringify(f.type)}, which is not a valid type (valid types: ${VALID_TYPES})`);
    } else out.type = f.type;
    if (f.required !== undefined) {
      if (typeof f.required !== 'boolean') throw fail(`${at}.required`, `field "${name}": required must be true or false`);
      out.required = f.required;
    }
    return out;
  });
}

/** Checks a create body's schema and returns it with `required` always set. */
export function parseSchema(raw: unknown): StoredList['schema'] {
  if (!isPlainObject(raw)) throw badRequest('schema must be an object { fields: [...] }', [{ field: 'schema', message: 'is required' }]);
  const extra = Object.keys(raw).find((k) => k !== 'fields');
  if (extra !== undefined)
    throw badRequest(`schema.${extra}: unknown property (a schema has only fields)`, [{ field: `schema.${extra}`, message: 'unknown property' }]);
  const fields = parseFields(raw.fields, 'schema.fields', () => true);
  return { fields: fields.map((f) => ({ name: f.name, type: f.type!, required: f.required ?? false })) };
}

/** Applies a schema change: fields named that exist are modified (given properties replaced), new ones appended. */
export function mergeSchema(current: StoredList['schema'], changes: FieldInput[]): StoredList['schema'] {
  const fields = current.fields.map((f) => ({ ...f }));
  for (const c of changes) {
    const existing = fields.find((f) => f.name === c.name);
    if (existing) {
      if (c.type) existing.type = c.type;
      if (c.required !== undefined) existing.required = c.required;
    } else {
      fields.push({ name: c.name, type: c.type!, required: c.required ?? false });
    }
  }
  if (fields.length > LIMITS.fieldsPerSchema) {
    throw badRequest(`the schema would hold ${fields.length} fields; at most ${LIMITS.fieldsPerSchema} are allowed`, [
      { field: 'fields', message: 'too many fields' },
    ]);
  }
  return { fields };
}

/**
 * The contacts search: case-insensitive substring over the string fields whose name contains
 * "name" (all string fields if none does) and, for a query shaped like a phone number (digits
 * and + - . ( ) spaces), a digits-only substring over phone fields.
 */
export function contactMatcher(schema: Schema, search: string): ((c: StoredContact) => boolean) | undefined {
  const q = search.trim().toLowerCase();
  if (!q) return undefined;
  const strings = schema.fields.filter((f) => f.type === 'string');
  const named = strings.filter((f) => /name/i.test(f.name));
  const textFields = (named.length ? named : strings).map((f) => f.name);
  const phoneFields = schema.fields.filter((f) => f.type === 'phone').map((f) => f.name);
  const digits = /^[\d\s+().-]+$/.test(q) ? q.replace(/\D/g, '') : '';
  return (c) => {
    for (const n of textFields) {
      const v = c.data[n];
      if (typeof v === 'string' && v.toLowerCase().includes(q)) return true;
    }
    if (digits) {
      for (const n of phoneFields) {
        const v = c.data[n];
        if (v !== undefined && v !== null && String(v).replace(/\D/g, '').includes(digits)) return true;
      }
    }
    return false;
  };
}

/** A validator message as the server says it (the shared validator's CLI hints left out). */
export function serverMessage(message: string): string {
  return message.replace(/; pass --default-country.*$/, '');
}

export { type Schema, type SchemaField, type FieldError, FIELD_TYPES };
