import { authSchemeFor } from '../spec/groups.js';
import { HttpError } from './errors.js';
import type { Org } from './types.js';

/**
 * Finds the organization of the request's key. Each group takes only its own form
 * (the spec leaves open whether the other is accepted; the emulator is strict, so a
 * client that sends the wrong form finds out here rather than in production).
 */
export function authenticate(path: string, headers: Record<string, string | string[] | undefined>, orgs: Map<string, Org>): Org {
  const scheme = authSchemeFor(path);
  const authz = first(headers.authorization);
  const xKey = first(headers['x-api-key']);
  if (scheme === 'bearer') {
    if (!authz) {
      throw unauthorized(xKey ? 'this endpoint takes `Authorization: Bearer <API_KEY>`, not x-api-key' : 'missing `Authorization: Bearer <API_KEY>` header');
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
    if (!m) throw unauthorized('the Authorization header must be `Bearer <API_KEY>`');
    return lookup(m[1]!, orgs);
  }
  if (!xKey) {
    throw unauthorized(authz ? 'this endpoint takes `x-api-key: <API_KEY>`, not an Authorization header' : 'missing `x-api-key` header');
  }
  return lookup(xKey.trim(), orgs);
}

function lookup(key: string, orgs: Map<string, Org>): Org {
  const org = orgs.get(key);
  if (!org) throw unauthorized('invalid API key');
  return org;
}

function unauthorized(message: string): HttpError {
  return new HttpError(401, 'unauthorized', message, undefined, { 'www-authenticate': 'Bearer' });
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
