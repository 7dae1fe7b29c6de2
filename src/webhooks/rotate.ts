import type { ApiClient } from '../api/client.js';
import { rotateWebhookSecret } from '../api/webhooks.js';
import { SecretFile } from './secret-file.js';

/** A rotated secret: the endpoint's answer (id, secret, its prefix) and the file it was written to, if asked. */
export interface Rotation {
  endpoint: { id: string; secret: string; secretPrefix?: string };
  /** The file (mode 0600) that holds the secret; then the secret is shown nowhere. */
  secretFile?: string;
}

/**
 * Gives an endpoint a new signing secret (`vap webhooks rotate-secret`, the MCP tool). A secret
 * file is made (0600) before the client and the request, so that an unwritable path fails first.
 */
export async function rotateSecret(api: () => Promise<ApiClient>, id: string, opts: { secretFile?: string } = {}): Promise<Rotation> {
  const file = opts.secretFile ? await SecretFile.prepare(opts.secretFile) : undefined;
  let rotated: Rotation['endpoint'];
  try {
    rotated = await rotateWebhookSecret(await api(), id);
  } catch (err) {
    await file?.abort();
    throw err;
  }
  const endpoint = { ...rotated, id: rotated.id ?? id };
  if (!file) return { endpoint };
  await file.commit(endpoint.secret);
  return { endpoint, secretFile: file.path };
}

/** What is said once a secret is kept: in a file, or to be saved now. */
export const secretKeptText = (path: string) => `The secret is in ${path} (mode 0600); it is not shown again`;
export const SAVE_SECRET_TEXT = 'Save the secret now: it is not shown again (`vap webhooks rotate-secret` makes a new one)';
export const rotatedText = (id: string) => `Rotated the secret of ${id}; deliveries are signed with the new one from now on`;
