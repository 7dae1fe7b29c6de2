import { join } from 'node:path';
import envPaths from 'env-paths';

/** The config directory: $VAP_CONFIG_DIR, or the platform's config dir for "vap" (the one conf uses). */
export function configDir(env: Record<string, string | undefined>): string {
  return env.VAP_CONFIG_DIR || envPaths('vap', { suffix: '' }).config;
}

export function configFile(env: Record<string, string | undefined>): string {
  return join(configDir(env), 'config.json');
}
