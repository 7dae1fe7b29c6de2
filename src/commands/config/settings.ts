import { redactUrl } from '../../api/redact.js';
import { readConfig } from '../../config/read.js';
import { keyPrefix } from '../../config/resolve.js';
import type { Context } from '../../context.js';

/** The settings in effect and where each comes from: what `config list` shows and `config get` reads. */
export interface Setting {
  key: string;
  value: string;
  source: string;
}

export async function settings(ctx: Context): Promise<Setting[]> {
  const creds = await ctx.credentials();
  const store = readConfig(ctx.env);
  return [
    { key: 'profile', value: creds.profile, source: creds.sources.profile },
    { key: 'base_url', value: redactUrl(creds.baseUrl), source: creds.sources.baseUrl },
    { key: 'api_key', value: creds.apiKey ? keyPrefix(creds.apiKey) : '', source: creds.sources.apiKey },
    { key: 'default_profile', value: store.defaultProfile ?? 'default', source: store.defaultProfile ? 'config' : 'default' },
    { key: 'config_file', value: store.path, source: ctx.env.VAP_CONFIG_DIR ? 'env' : 'default' },
  ];
}
