import { readFileSync } from 'node:fs';
import { CliError } from '../errors.js';
import { configFile } from './paths.js';
import type { ConfigData, ConfigView } from './types.js';

export type { ConfigView } from './types.js';

/**
 * Reads the config file without loading conf (and its JSON-schema validator), which
 * costs more at start-up than the request most commands make. Writes go through conf
 * (ConfigStore), which owns the file's format, atomic writes and mode 0600.
 */
export function readConfig(env: Record<string, string | undefined>): ConfigView {
  const path = configFile(env);
  let data: ConfigData = { profiles: {} };
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<ConfigData>;
    data = { ...parsed, profiles: parsed.profiles ?? {} };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') {
      throw new CliError(`cannot read the config file ${path}: ${code ?? (err as Error).message}`, 1, 'fix or remove the file, then run `vap auth login`');
    }
  }
  return {
    path,
    defaultProfile: data.defaultProfile,
    profile: (name) => data.profiles[name],
  };
}
