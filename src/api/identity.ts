import type { ApiClient } from './client.js';

/**
 * Checks that the key is accepted by each group of the API with the smallest
 * read each allows: document 1 (Bearer) lists one agent, document 2 (x-api-key)
 * lists one contact list. Errors propagate as typed API errors.
 */
export async function checkKey(api: ApiClient, which: 'bearer' | 'x-api-key', signal?: AbortSignal): Promise<{ requestId?: string }> {
  const res =
    which === 'bearer'
      ? await api.request({ method: 'GET', path: '/api/v1/agents', auth: 'bearer', query: { pageSize: 1 }, signal })
      : await api.request({ method: 'GET', path: '/api/v1/contact-lists', auth: 'x-api-key', query: { limit: 1 }, signal });
  return { requestId: res.requestId };
}
