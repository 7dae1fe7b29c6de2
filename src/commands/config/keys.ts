import { baseUrlProblem } from '../../config/resolve.js';
import { UsageError } from '../../errors.js';

/** The settings `vap config` reads and writes. */
export const CONFIG_KEYS = {
  profile: 'the profile in effect (read-only: choose it with --profile, VAP_PROFILE or default_profile)',
  base_url: 'API base URL of the active profile',
  default_profile: 'profile used when neither --profile nor VAP_PROFILE is given',
  api_key: 'API key of the active profile (read-only here: shown as a prefix; set it with `vap auth login`)',
} as const;

export type ConfigKey = keyof typeof CONFIG_KEYS;

export function parseConfigKey(key: string): ConfigKey {
  const normal = key.replace(/-/g, '_');
  if (normal in CONFIG_KEYS) return normal as ConfigKey;
  throw new UsageError(`unknown config key "${key}"`, `valid keys: ${Object.keys(CONFIG_KEYS).join(', ')}`);
}

/** `vap config set base_url <value>`: the same checks as a base URL from any other source (src/config/resolve.ts). */
export function validateBaseUrl(value: string): string {
  const bad = baseUrlProblem(value);
  if (bad) throw new UsageError(`the base URL ${JSON.stringify(value)} ${bad.problem}`, bad.hint ?? 'give an http(s) URL such as https://api.example.com');
  return value.replace(/\/+$/, '');
}

export function validateProfileName(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(value)) throw new UsageError(`invalid profile name "${value}"`, 'use letters, digits, ".", "_" and "-"');
  return value;
}
