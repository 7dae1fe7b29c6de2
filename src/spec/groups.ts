/** Which of the two authentication forms an endpoint takes (spec doc 1 §5). */
export type AuthScheme = 'bearer' | 'x-api-key';

/** Path prefixes of document 2 (contact lists, import jobs, calls, campaigns, analytics), whose endpoints take `x-api-key`. */
const DOC2_PREFIXES = ['/api/v1/contact-lists', '/api/v1/import-jobs', '/api/v1/calls', '/api/v1/campaigns', '/api/v1/analytics'];

/**
 * Which auth header form a path takes: `x-api-key` for document 2, a bearer key for
 * document 1. The call event stream (`/api/v1/calls/{id}/events`) is document 1's.
 */
export function authSchemeFor(path: string): AuthScheme {
  const p = path.split('?')[0]!;
  if (/^\/api\/v1\/calls\/[^/]+\/events\/?$/.test(p)) return 'bearer';
  return DOC2_PREFIXES.some((prefix) => p === prefix || p.startsWith(`${prefix}/`)) ? 'x-api-key' : 'bearer';
}
