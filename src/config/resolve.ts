import { AuthRequiredError, UsageError } from '../errors.js';
import type { ConfigView } from './read.js';
import type { ProfileData } from './types.js';

/** Where the base URL comes from when nothing else sets it: the emulator's default address. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';

export type Source = 'flag' | 'env' | 'profile' | 'default' | 'none';

export interface Credentials {
  profile: string;
  apiKey?: string;
  baseUrl: string;
  sources: { apiKey: Source; baseUrl: Source; profile: Source };
  /** The config file, when it was read (to name it in messages about its settings). */
  configPath?: string;
}

export interface ResolveInput {
  flags: { profile?: string; baseUrl?: string };
  env: Record<string, string | undefined>;
  /** Reads the config file; only called when flags and env leave something unset. */
  readConfig: () => ConfigView;
}

/** The environment variable that holds one profile's setting: `VAP_API_KEY_PROD` for profile prod. */
export function profileEnvName(name: 'VAP_API_KEY' | 'VAP_BASE_URL', profile: string): string {
  return `${name}_${profile.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * Precedence: flag > env > profile > default; the key is never a flag. A profile's own variables
 * (`VAP_API_KEY_PROD` for profile prod) come before the general ones, so that one environment can
 * hold several organizations' keys (as `vap promote --from staging --to prod` needs).
 */
export function resolveCredentials({ flags, env, readConfig }: ResolveInput): Credentials {
  const flagProfile = flags.profile || undefined;
  const envProfile = env.VAP_PROFILE || undefined;
  const named = flagProfile ?? envProfile;
  const envKey = (named ? env[profileEnvName('VAP_API_KEY', named)] : undefined) || env.VAP_API_KEY || undefined;
  const envBase = (named ? env[profileEnvName('VAP_BASE_URL', named)] : undefined) || env.VAP_BASE_URL || undefined;
  const needConfig = !envKey || !(flags.baseUrl || envBase) || Boolean(flagProfile || envProfile);

  const store = needConfig ? readConfig() : undefined;

  const profileSource: Source = flagProfile ? 'flag' : envProfile ? 'env' : store?.defaultProfile ? 'profile' : 'default';
  const profile = flagProfile ?? envProfile ?? store?.defaultProfile ?? 'default';
  const data: ProfileData = store?.profile(profile) ?? {};

  const apiKey = envKey ?? data.apiKey;
  const apiKeySource: Source = envKey ? 'env' : data.apiKey ? 'profile' : 'none';
  const baseUrl = flags.baseUrl ?? envBase ?? data.baseUrl ?? DEFAULT_BASE_URL;
  const baseUrlSource: Source = flags.baseUrl ? 'flag' : envBase ? 'env' : data.baseUrl ? 'profile' : 'default';
  return {
    profile,
    apiKey,
    baseUrl,
    sources: { apiKey: apiKeySource, baseUrl: baseUrlSource, profile: profileSource },
    ...(store ? { configPath: store.path } : {}),
  };
}

/**
 * No key for the profile in use (exit 4): the error names that profile and the profiles
 * that do hold a key, and says how to use one of them or store a key for this one.
 * `lead` is what happened (`no API key found`, `not logged in`).
 */
export function missingKeyError(creds: Pick<Credentials, 'profile' | 'sources'>, profilesWithKeys: string[], lead = 'no API key found'): AuthRequiredError {
  const p = creds.profile;
  const login = `\`vap auth login${creds.sources.profile === 'flag' ? ` --profile ${p}` : ''}\``;
  const others = profilesWithKeys.filter((n) => n !== p);
  if (others.length === 0) return new AuthRequiredError(`${lead} for profile "${p}"`, `run ${login}, or set VAP_API_KEY`);
  const one = others.length === 1 ? others[0]! : '<name>';
  return new AuthRequiredError(
    `${lead} for profile "${p}" (profiles with a key: ${others.join(', ')})`,
    `pass --profile ${one}, make ${others.length === 1 ? 'it' : 'one'} the default with \`vap config set default_profile ${one}\`, or store a key for "${p}" with ${login}`,
  );
}

/** The first characters of a key, enough to recognise it, never enough to use it. */
export function keyPrefix(key: string): string {
  const visible = Math.min(8, Math.max(3, Math.floor(key.length / 4)));
  return `${key.slice(0, visible)}…`;
}

// ---- Checks -------------------------------------------------------------------------
// (Here, beside the resolution, so that start-up reads one module for both.)

/**
 * Settings are checked before any request: a bad one is a usage error naming the setting and its
 * source. Otherwise a base URL without a scheme would surface as "Invalid URL", and a key with a
 * space as "could not reach" after three retries.
 */

/** Where a setting came from, as a user would name it. */
export function sourceName(setting: 'base_url' | 'api_key', source: Source, profile: string, configPath?: string): string {
  const file = configPath ? ` in ${configPath}` : '';
  if (setting === 'base_url') {
    if (source === 'flag') return '--base-url';
    if (source === 'env') return 'VAP_BASE_URL (environment)';
    if (source === 'profile') return `base_url of profile "${profile}"${file}`;
    return 'the default base URL';
  }
  if (source === 'env') return 'VAP_API_KEY (environment)';
  return `the API key of profile "${profile}"${file}`;
}

/** How to fix a setting from that source. */
function fixFor(setting: 'base_url' | 'api_key', source: Source, profile: string): string {
  if (setting === 'base_url') {
    if (source === 'flag') return 'pass --base-url with an http(s) URL, e.g. --base-url https://api.example.com';
    if (source === 'env') return 'set VAP_BASE_URL to an http(s) URL, e.g. https://api.example.com';
    return `set it with \`vap config set base_url https://api.example.com${profile === 'default' ? '' : ` --profile ${profile}`}\``;
  }
  if (source === 'env') return 'set VAP_API_KEY to the key alone (no spaces, quotes or line breaks)';
  return `store the key again with \`vap auth login${profile === 'default' ? '' : ` --profile ${profile}`}\``;
}

/** Whitespace and control characters, which a URL parser would drop or choke on without saying. */
const URL_INVISIBLE = /[\s\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

/**
 * Why a base URL cannot be used, or undefined when it can: it must parse as an http(s) URL
 * with a host, without credentials-looking problems, a query, a fragment, white space or
 * control characters, and without the `/api/v1` that vap adds to every path itself.
 */
export function baseUrlProblem(value: string): { problem: string; hint?: string } | undefined {
  if (value.trim() === '') return { problem: 'is empty' };
  if (URL_INVISIBLE.test(value)) return { problem: 'contains white space or a control character' };
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    const guess = /^[\w.-]+(:\d+)?(\/.*)?$/.test(value) ? ` (did you mean http://${value} or https://${value}?)` : '';
    return { problem: `has no scheme: a base URL starts with http:// or https://${guess}` };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: 'is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { problem: `has the scheme ${url.protocol.slice(0, -1)}: only http and https are supported` };
  if (!url.hostname) return { problem: 'has no host' };
  if (url.search || url.hash || value.includes('?') || value.includes('#'))
    return { problem: 'has a query or a fragment: a base URL is a scheme, a host and at most a path prefix' };
  if (/\/api\/v1\/*$/i.test(url.pathname)) {
    const trimmed = value.replace(/\/api\/v1\/*$/i, '');
    return { problem: 'ends in /api/v1, which vap adds to every path itself', hint: `drop it: ${trimmed}` };
  }
  return undefined;
}

/** A base URL from its source, checked; a usage error naming the source otherwise. */
export function checkBaseUrl(value: string, source: Source, profile: string, configPath?: string): string {
  const bad = baseUrlProblem(value);
  if (!bad) return value;
  const name = sourceName('base_url', source, profile, configPath);
  throw new UsageError(`the base URL ${JSON.stringify(value)} from ${name} ${bad.problem}`, bad.hint ?? fixFor('base_url', source, profile));
}

/**
 * Why an API key cannot be sent, or undefined when it can: it goes into an HTTP header, so
 * only visible ASCII characters (no spaces, line breaks, control or non-ASCII characters).
 */
export function apiKeyProblem(key: string): string | undefined {
  if (/\s/.test(key)) return 'contains white space (a space, tab or line break)';
  if (/[\x00-\x1f\x7f-\x9f]/.test(key)) return 'contains a control character';
  if (/[^\x21-\x7e]/.test(key)) return 'contains a character that cannot go in an HTTP header (only visible ASCII characters can)';
  return undefined;
}

export function checkApiKey(key: string, source: Source, profile: string, configPath?: string): string {
  const problem = apiKeyProblem(key);
  if (!problem) return key;
  // The key itself is never printed.
  throw new UsageError(`${sourceName('api_key', source, profile, configPath)} ${problem}`, fixFor('api_key', source, profile));
}

/** The credentials, checked before the first request (the key only when there is one). */
export function checkCredentials(creds: Credentials): Credentials {
  checkBaseUrl(creds.baseUrl, creds.sources.baseUrl, creds.profile, creds.configPath);
  if (creds.apiKey !== undefined) checkApiKey(creds.apiKey, creds.sources.apiKey, creds.profile, creds.configPath);
  return creds;
}

/**
 * The numeric environment settings: each, when set, must be a whole number in its range;
 * otherwise a usage error naming it. Checked before any request is sent.
 */
export const NUMERIC_SETTINGS: Record<string, { min: number; max: number; what: string }> = {
  VAP_TIMEOUT_MS: { min: 1, max: 24 * 3_600_000, what: 'the per-request timeout in milliseconds' },
  VAP_STREAM_MAX_RETRY_MS: { min: 1, max: 24 * 3_600_000, what: 'the longest reconnection delay of a stream in milliseconds' },
  VAP_IMPORT_THREADS: { min: 0, max: 1, what: '0 to validate imports on the main thread, 1 for a worker thread' },
};

export function numericSetting(env: Record<string, string | undefined>, name: keyof typeof NUMERIC_SETTINGS & string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const spec = NUMERIC_SETTINGS[name]!;
  const v = raw.trim();
  const n = Number(v);
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < spec.min || n > spec.max) {
    throw new UsageError(
      `${name} (environment) is ${JSON.stringify(raw)}, not a whole number from ${spec.min} to ${spec.max}`,
      `set it to ${spec.what}, or unset it for the default`,
    );
  }
  return n;
}

/** Every numeric environment setting that is set, checked. */
export function checkNumericSettings(env: Record<string, string | undefined>): void {
  for (const name of Object.keys(NUMERIC_SETTINGS)) numericSetting(env, name);
}
