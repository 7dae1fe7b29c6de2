import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/min';
import isEmailModule from 'validator/lib/isEmail.js';
import isISO8601Module from 'validator/lib/isISO8601.js';

// validator's per-function modules are CommonJS with a default export.
const isEmail = ((isEmailModule as unknown as { default?: unknown }).default ?? isEmailModule) as unknown as (s: string, o?: object) => boolean;
const isISO8601 = ((isISO8601Module as unknown as { default?: unknown }).default ?? isISO8601Module) as unknown as (s: string, o?: object) => boolean;

/**
 * validator fills a missing option from its defaults on every call (a new object of
 * some fifteen keys for isEmail). Passing one object that it fills on the first call
 * gives the same options without the per-call copy. Not frozen: validator writes the
 * defaults into it once.
 */
const EMAIL_OPTIONS: Record<string, unknown> = {};
const DATE_OPTIONS = { strict: true, strictSeparator: true };

/** The schema field types of document 2. */
export const FIELD_TYPES = ['string', 'number', 'boolean', 'phone', 'email', 'date'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface SchemaField {
  name: string;
  type: FieldType;
  required?: boolean;
}

export interface Schema {
  fields: SchemaField[];
}

export type Checked = { ok: true; value: string | number | boolean } | { ok: false; reason: string };

export interface ValidateOptions {
  /** ISO 3166 country for national phone numbers, e.g. `US`: `(415) 555-0100` becomes `+14155550100`. */
  defaultCountry?: CountryCode;
}

const TRUE = new Set(['true', 'yes', '1']);
const FALSE = new Set(['false', 'no', '0']);
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function isFieldType(t: string): t is FieldType {
  return (FIELD_TYPES as readonly string[]).includes(t);
}

/**
 * Checks one value against a field type and returns the value as it should be sent:
 * numbers as numbers, booleans as booleans, phones in E.164, the rest trimmed.
 * Accepts JSON-typed input too (a number for a number field, a boolean for a boolean).
 */
export function checkValue(type: FieldType, raw: unknown, opts: ValidateOptions = {}): Checked {
  if (typeof raw === 'number' && type === 'number') return Number.isFinite(raw) ? { ok: true, value: raw } : { ok: false, reason: 'not a finite number' };
  if (typeof raw === 'boolean' && type === 'boolean') return { ok: true, value: raw };
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
    return { ok: false, reason: `expected a ${type}, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}` };
  }
  if (type === 'string') return { ok: true, value: String(raw) };
  return checkText(type, String(raw).trim(), opts.defaultCountry);
}

/** The checks of a trimmed text value, for every type but `string`. */
function checkText(type: Exclude<FieldType, 'string'>, text: string, defaultCountry: CountryCode | undefined): Checked {
  switch (type) {
    case 'number': {
      if (!NUMBER.test(text)) return { ok: false, reason: `"${clip(text)}" is not a number` };
      const n = Number(text);
      return Number.isFinite(n) ? { ok: true, value: n } : { ok: false, reason: `"${clip(text)}" is out of range` };
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      if (TRUE.has(lower)) return { ok: true, value: true };
      if (FALSE.has(lower)) return { ok: true, value: false };
      return { ok: false, reason: `"${clip(text)}" is not a boolean (use true/false, yes/no or 1/0)` };
    }
    case 'email':
      return isEmail(text, EMAIL_OPTIONS) ? { ok: true, value: text } : { ok: false, reason: `"${clip(text)}" is not a valid e-mail address` };
    case 'date':
      return isISO8601(text, DATE_OPTIONS)
        ? { ok: true, value: text }
        : { ok: false, reason: `"${clip(text)}" is not an ISO 8601 date (YYYY-MM-DD)` };
    case 'phone':
      return checkPhone(text, defaultCountry);
  }
}

/** Results kept per checker for repeated values. */
const CACHE_LIMIT = 20_000;

/**
 * A checker for one field type: the same answers as `checkValue(type, raw, opts)`,
 * with results of text values remembered (up to CACHE_LIMIT distinct values, then
 * forgotten all at once), for the bulk importer, which checks millions of values.
 * Checked results are never mutated, so sharing them is safe.
 */
export function valueChecker(type: FieldType, opts: ValidateOptions = {}): (raw: unknown) => Checked {
  if (type === 'string') return (raw) => checkValue(type, raw, opts);
  const country = opts.defaultCountry;
  // Dates repeat (a few thousand days); e-mails, phones and numbers are mostly unique,
  // and a cache of unique values costs more (hashing, inserting, clearing) than it saves.
  const cached = type === 'date';
  let cache = new Map<string, Checked>();
  return (raw) => {
    if (typeof raw !== 'string') return checkValue(type, raw, opts);
    if (!cached) return checkText(type, raw.trim(), country);
    let c = cache.get(raw);
    if (c === undefined) {
      c = checkText(type, raw.trim(), country);
      if (cache.size >= CACHE_LIMIT) cache = new Map();
      cache.set(raw, c);
    }
    return c;
  };
}

function checkPhone(text: string, defaultCountry?: CountryCode): Checked {
  if (!text.startsWith('+') && !defaultCountry) {
    return { ok: false, reason: `"${clip(text)}" is not in E.164 form (+14155550100); pass --default-country to convert national numbers` };
  }
  const parsed = parsePhoneNumberFromString(text, defaultCountry);
  if (!parsed || !parsed.isValid()) return { ok: false, reason: `"${clip(text)}" is not a valid phone number` };
  return { ok: true, value: parsed.number };
}

/** Whether a value counts as absent for a required-field check. */
export function isBlank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

export interface FieldError {
  field: string;
  message: string;
}

/**
 * Validates a record against a schema: required fields present, every present
 * value of its type. Returns the normalised record or every field error.
 * Keys that are not schema fields are left out of the normalised record.
 */
export function validateRecord(
  schema: Schema,
  record: Record<string, unknown>,
  opts: ValidateOptions = {},
): { ok: true; value: Record<string, unknown> } | { ok: false; errors: FieldError[] } {
  const value: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const f of schema.fields) {
    const raw = record[f.name];
    if (isBlank(raw)) {
      if (f.required) errors.push({ field: f.name, message: 'is required' });
      continue;
    }
    const c = checkValue(f.type, raw, opts);
    if (c.ok) value[f.name] = c.value;
    else errors.push({ field: f.name, message: c.reason });
  }
  return errors.length ? { ok: false, errors } : { ok: true, value };
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}
