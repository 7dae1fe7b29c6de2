import { badRequest } from '../errors.js';

/** Small body and query checks; every failure is a 400 validation_error naming the field. */

export function fail(field: string, message: string): never {
  throw badRequest(`${field}: ${message}`, [{ field, message }]);
}

export function objectBody(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) fail('body', 'must be a JSON object');
  return raw as Record<string, unknown>;
}

export function onlyFields(body: Record<string, unknown>, allowed: readonly string[], hints: Record<string, string> = {}): void {
  for (const k of Object.keys(body)) {
    if (allowed.includes(k)) continue;
    fail(k, (Object.hasOwn(hints, k) ? hints[k] : undefined) ?? `unknown field (allowed: ${allowed.join(', ')})`);
  }
}

export function str(body: Record<string, unknown>, field: string, opts: { required?: boolean; max?: number; min?: number } = {}): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) {
    if (opts.required) fail(field, 'is required');
    return undefined;
  }
  if (typeof v !== 'string') fail(field, 'must be a string');
  const min = opts.min ?? (opts.required ? 1 : 0);
  if (v.trim().length < min) fail(field, min === 1 ? 'must not be empty' : `must have at least ${min} characters`);
  if (opts.max !== undefined && v.length > opts.max) fail(field, `must have at most ${opts.max} characters`);
  return v;
}

export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
    fail(field, `must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
  return value as T;
}

/** An integer query/body value in [min, max]; undefined when absent. */
export function int(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < min || n > max) fail(field, `must be an integer from ${min} to ${max}`);
  return n;
}

/** A page number (1..) or a page size (1..max: above max is refused). */
export function pageSize(value: unknown, def: number, max: number): number {
  return int(value, 'pageSize', 1, max) ?? def;
}

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 date or timestamp → ms; `endOfDay` makes a date-only value cover its whole day. */
export function isoMs(value: unknown, field: string, endOfDay = false): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !ISO.test(value.trim())) fail(field, `must be an ISO 8601 date or timestamp (got ${JSON.stringify(value)})`);
  const v = value.trim();
  const dateOnly = v.length === 10;
  // A timestamp without a zone is UTC (Date.parse would read it in the host's zone, so the
  // same request would mean different instants on different machines).
  const normal = dateOnly ? `${v}T00:00:00.000Z` : /(?:Z|[+-]\d{2}:?\d{2})$/.test(v) ? v.replace(' ', 'T') : `${v.replace(' ', 'T')}Z`;
  const ms = Date.parse(normal);
  // Date.parse rolls impossible days over (2026-02-30 → March 2); refuse them instead.
  const [y, m, d] = v.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  if (Number.isNaN(ms) || day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) {
    fail(field, `is not a valid date (got ${JSON.stringify(value)})`);
  }
  return dateOnly && endOfDay ? ms + 86_400_000 - 1 : ms;
}
