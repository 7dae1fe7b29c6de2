import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/min';
import isEmailModule from 'validator/lib/isEmail.js';
import isISO8601Module from 'validator/lib/isISO8601.js';
import { checkPlainNumber } from './phone-fast.js';
import type { FieldType, Schema } from './contact-schema.js';

export { FIELD_TYPES, isFieldType, type FieldType, type Schema, type SchemaField } from './contact-schema.js';

// validator's per-function modules are CommonJS with a default export.
const isEmail = ((isEmailModule as unknown as { default?: unknown }).default ?? isEmailModule) as unknown as (s: string, o?: object) => boolean;
const isISO8601 = ((isISO8601Module as unknown as { default?: unknown }).default ?? isISO8601Module) as unknown as (s: string, o?: object) => boolean;

/**
 * validator copies a missing option's defaults into a new object on every call; one object that
 * it fills on the first call gives the same options without the copy. Not frozen: validator
 * writes the defaults into it once.
 */
const EMAIL_OPTIONS: Record<string, unknown> = {};

/**
 * A plain ASCII address that isEmail accepts, checked with one expression instead of isEmail's
 * dozen; whatever does not match is decided by isEmail itself, so the answers are isEmail's (the
 * expression: src/spec/README.md; a property test holds the claim).
 */
const PLAIN_EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** Whether `text` is a plain address isEmail accepts (see PLAIN_EMAIL); false says nothing. */
export function isPlainEmail(text: string): boolean {
  return text.length <= 254 && text.indexOf('@') <= 64 && PLAIN_EMAIL.test(text);
}
const DATE_OPTIONS = { strict: true, strictSeparator: true };

export type Checked = { ok: true; value: string | number | boolean } | { ok: false; reason: string };

export interface ValidateOptions {
  /** ISO 3166 country for national phone numbers, e.g. `US`: `(415) 555-0100` becomes `+14155550100`. */
  defaultCountry?: CountryCode;
}

const TRUE = new Set(['true', 'yes', '1']);
const FALSE = new Set(['false', 'no', '0']);
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

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
    case 'number':
      return checkNumber(text);
    case 'boolean':
      return checkBoolean(text);
    case 'email':
      return checkEmail(text);
    case 'date':
      return checkDate(text);
    case 'phone':
      return checkPhone(text, defaultCountry);
  }
}

function checkNumber(text: string): Checked {
  if (!NUMBER.test(text)) return { ok: false, reason: `"${clip(text)}" is not a number` };
  const n = Number(text);
  return Number.isFinite(n) ? { ok: true, value: n } : { ok: false, reason: `"${clip(text)}" is out of range` };
}

function checkBoolean(text: string): Checked {
  const lower = text.toLowerCase();
  if (TRUE.has(lower)) return { ok: true, value: true };
  if (FALSE.has(lower)) return { ok: true, value: false };
  return { ok: false, reason: `"${clip(text)}" is not a boolean (use true/false, yes/no or 1/0)` };
}

function checkEmail(text: string): Checked {
  return isPlainEmail(text) || isEmail(text, EMAIL_OPTIONS)
    ? { ok: true, value: text }
    : { ok: false, reason: `"${clip(text)}" is not a valid e-mail address` };
}

function checkDate(text: string): Checked {
  return isISO8601(text, DATE_OPTIONS) ? { ok: true, value: text } : { ok: false, reason: `"${clip(text)}" is not an ISO 8601 date (YYYY-MM-DD)` };
}

/** Results kept per checker for repeated values. */
const CACHE_LIMIT = 20_000;

/**
 * A checker per field type (the answers of checkValue) for the bulk importer: a function per type
 * so that V8 optimises each validator once, not the whole loop again (src/spec/README.md).
 * Dates repeat, so their results are cached; other values are mostly unique.
 */
export function valueChecker(type: FieldType, opts: ValidateOptions = {}): (raw: unknown) => Checked {
  const country = opts.defaultCountry;
  switch (type) {
    case 'string':
      return (raw) => checkValue('string', raw, opts);
    case 'number':
      return (raw) => (typeof raw === 'string' ? checkNumber(raw.trim()) : checkValue('number', raw, opts));
    case 'boolean':
      return (raw) => (typeof raw === 'string' ? checkBoolean(raw.trim()) : checkValue('boolean', raw, opts));
    case 'email':
      return (raw) => (typeof raw === 'string' ? checkEmail(raw.trim()) : checkValue('email', raw, opts));
    case 'phone':
      return (raw) => (typeof raw === 'string' ? checkPhone(raw.trim(), country) : checkValue('phone', raw, opts));
    case 'date': {
      let cache = new Map<string, Checked>();
      return (raw) => {
        if (typeof raw !== 'string') return checkValue('date', raw, opts);
        let c = cache.get(raw);
        if (c === undefined) {
          c = checkDate(raw.trim());
          if (cache.size >= CACHE_LIMIT) cache = new Map();
          cache.set(raw, c);
        }
        return c;
      };
    }
  }
}

/**
 * Whether a text without a `+` looks like a national phone number: digits (6 to 15) and
 * the separators people write between them, nothing else. Only then is `--default-country`
 * the likely fix; `not-a-phone` or `ask Bob` are not numbers of any country.
 */
export function looksNational(text: string): boolean {
  if (!/^[\d\s().\-/]+$/.test(text)) return false;
  const digits = text.replace(/\D/g, '').length;
  return digits >= 6 && digits <= 15;
}

/**
 * What a phone value may hold: digits, a leading +, and ` - ( ) .`. The parser finds a number
 * inside any text; a value holding more ("+14155550101 ext 5") is refused rather than stored as
 * the number found. One rule for the CLI's check and the emulator's.
 */
const PHONE_TEXT = /^\+?[0-9 ().-]+$/;

/** A phone value checked by the phone rule: its E.164 form, or why it is not one. */
export function checkPhone(text: string, defaultCountry?: CountryCode): Checked {
  if (!text.startsWith('+') && !defaultCountry) {
    return looksNational(text)
      ? { ok: false, reason: `"${clip(text)}" is not in E.164 form (+14155550100); pass --default-country to convert national numbers` }
      : { ok: false, reason: `"${clip(text)}" is not a phone number (E.164 form: +14155550100)` };
  }
  // The short way for a plain +digits text, when the build has it (see phone-fast.ts); the same answers.
  const plain = checkPlainNumber?.(text, defaultCountry);
  if (plain !== undefined) return plain?.valid ? { ok: true, value: plain.number } : { ok: false, reason: `"${clip(text)}" is not a valid phone number` };
  const parsed = parsePhoneNumberFromString(text, defaultCountry);
  if (!parsed?.isValid()) return { ok: false, reason: `"${clip(text)}" is not a valid phone number` };
  if (!PHONE_TEXT.test(text)) {
    return {
      ok: false,
      reason: `"${clip(text)}" holds more than a phone number (only digits, a leading + and the separators space - ( ) . may appear, as in +14155550100)`,
    };
  }
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

/**
 * A value holding a NUL byte is refused whatever its field's type: no contact field holds one, it
 * cuts strings short in C-based tools, and a file with one is usually binary or UTF-16. Checked
 * apart from, and before, the type checks above (check-chunk.ts).
 */
export function nulByteReason(raw: unknown): string | undefined {
  return typeof raw === 'string' && raw.includes('\u0000') ? 'contains a NUL byte (\\x00); is the file UTF-16 or binary? (see --encoding)' : undefined;
}
