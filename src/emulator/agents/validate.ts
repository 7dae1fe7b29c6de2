import { badRequest } from '../errors.js';
import type { Variable } from '../../spec/agents.js';

/** Hand-written body checks with messages that name the field (400 `validation_error`, details `[{ field, message }]`). */

export type Body = Record<string, unknown>;

export function fail(field: string, message: string): never {
  throw badRequest(`${field}: ${message}`, [{ field, message }]);
}

export function objectBody(body: unknown): Body {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) fail('body', 'must be a JSON object');
  return body as Body;
}

/** Refuses fields that are not settable here, with a hint for the ones that are set elsewhere. */
export function onlyFields(body: Body, allowed: readonly string[], elsewhere: Record<string, string> = {}): void {
  for (const key of Object.keys(body)) {
    if (allowed.includes(key)) continue;
    fail(key, (Object.hasOwn(elsewhere, key) ? elsewhere[key] : undefined) ?? `is not a field that can be set here (allowed: ${allowed.join(', ')})`);
  }
}

export function text(body: Body, field: string, opts: { required?: boolean; max: number; blankOk?: boolean }): string | undefined {
  const v = body[field];
  if (v === undefined) {
    if (opts.required) fail(field, 'is required');
    return undefined;
  }
  if (typeof v !== 'string') fail(field, 'must be a string');
  if (!opts.blankOk && v.trim() === '') fail(field, 'must not be empty');
  if (v.length > opts.max) fail(field, `must be at most ${opts.max} characters`);
  return v;
}

export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

export function variables(body: Body, field = 'variables'): Variable[] | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) fail(field, 'must be an array of { name, description }');
  if (v.length > 100) fail(field, 'must have at most 100 variables');
  const seen = new Set<string>();
  return v.map((item, i) => {
    const at = `${field}[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) fail(at, 'must be an object { name, description }');
    const o = item as Body;
    for (const k of Object.keys(o)) if (k !== 'name' && k !== 'description') fail(`${at}.${k}`, 'is not a variable field (name, description)');
    if (typeof o.name !== 'string' || o.name === '') fail(`${at}.name`, 'is required');
    if (!VARIABLE_NAME.test(o.name)) fail(`${at}.name`, 'must start with a letter or _ and hold only letters, digits, _, . and - (64 at most)');
    if (o.description !== undefined && typeof o.description !== 'string') fail(`${at}.description`, 'must be a string');
    const description = (o.description as string | undefined) ?? '';
    if (description.length > 1000) fail(`${at}.description`, 'must be at most 1000 characters');
    if (seen.has(o.name)) fail(`${at}.name`, `duplicates the variable "${o.name}"`);
    seen.add(o.name);
    return { name: o.name, description };
  });
}

export function tags(body: Body, field = 'tags'): string[] | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) fail(field, 'must be an array of strings');
  if (v.length > 50) fail(field, 'must have at most 50 tags');
  const out: string[] = [];
  v.forEach((t, i) => {
    if (typeof t !== 'string' || t.trim() === '') fail(`${field}[${i}]`, 'must be a non-empty string');
    if (t.length > 50) fail(`${field}[${i}]`, 'must be at most 50 characters');
    if (!out.includes(t.trim())) out.push(t.trim());
  });
  return out;
}

export function oneOf<T extends string>(body: Body, field: string, values: readonly T[], required: boolean): T | undefined {
  const v = body[field];
  if (v === undefined) {
    if (required) fail(field, `is required (one of: ${values.join(', ')})`);
    return undefined;
  }
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) fail(field, `must be one of: ${values.join(', ')}`);
  return v as T;
}

/** A BCP 47 language tag (language, optional script, optional region, optional variants). */
export const BCP47 = /^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-(?:[A-Za-z]{2}|[0-9]{3}))?(-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$/;
