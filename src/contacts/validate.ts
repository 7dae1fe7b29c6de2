import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/min';
import isEmailModule from 'validator/lib/isEmail.js';
import isISO8601Module from 'validator/lib/isISO8601.js';

// validator's per-function modules are CommonJS with a default export.
const isEmail = ((isEmailModule as unknown as { default?: unknown }).default ?? isEmailModule) as unknown as (s: string) => boolean;
const isISO8601 = ((isISO8601Module as unknown as { default?: unknown }).default ?? isISO8601Module) as unknown as (s: string, o?: object) => boolean;

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
  const text = String(raw).trim();
  switch (type) {
    case 'string':
      return { ok: true, value: String(raw) };
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
      return isEmail(text) ? { ok: true, value: text } : { ok: false, reason: `"${clip(text)}" is not a valid e-mail address` };
    case 'date':
      return isISO8601(text, { strict: true, strictSeparator: true })
        ? { ok: true, value: text }
        : { ok: false, reason: `"${clip(text)}" is not an ISO 8601 date (YYYY-MM-DD)` };
    case 'phone':
      return checkPhone(text, opts.defaultCountry);
  }
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
