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

/** Precedence: flag > env > profile > default. The key is never a flag. */
export function resolveCredentials({ flags, env, readConfig }: ResolveInput): Credentials {
  const envKey = env.VAP_API_KEY || undefined;
  const envBase = env.VAP_BASE_URL || undefined;
  const flagProfile = flags.profile || undefined;
  const envProfile = env.VAP_PROFILE || undefined;
  const needConfig = !envKey || !(flags.baseUrl || envBase) || Boolean(flagProfile || envProfile);

  const store = needConfig ? readConfig() : undefined;

  const profileSource: Source = flagProfile ? 'flag' : envProfile ? 'env' : store?.defaultProfile ? 'profile' : 'default';
  const profile = flagProfile ?? envProfile ?? store?.defaultProfile ?? 'default';
  const data: ProfileData = store?.profile(profile) ?? {};

  const apiKey = envKey ?? data.apiKey;
  const apiKeySource: Source = envKey ? 'env' : data.apiKey ? 'profile' : 'none';
  const baseUrl = flags.baseUrl ?? envBase ?? data.baseUrl ?? DEFAULT_BASE_URL;
  const baseUrlSource: Source = flags.baseUrl ? 'flag' : envBase ? 'env' : data.baseUrl ? 'profile' : 'default';
  return { profile, apiKey, baseUrl, sources: { apiKey: apiKeySource, baseUrl: baseUrlSource, profile: profileSource }, ...(store ? { configPath: store.path } : {}) };
}

/** The first characters of a key, enough to recognise it, never enough to use it. */
export function keyPrefix(key: string): string {
  const visible = Math.min(8, Math.max(3, Math.floor(key.length / 4)));
  return `${key.slice(0, visible)}…`;
}
