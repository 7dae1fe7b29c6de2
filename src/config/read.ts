import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { configFile } from './paths.js';
import type { ConfigData, ConfigView } from './types.js';

export type { ConfigView } from './types.js';

/**
 * Reads the config file without loading conf, which costs more at start-up than most commands'
 * request; writes go through conf. A file that is unreadable or not vap's config is refused
 * (exit 2) and never overwritten: the user may want to mend it.
 */
export function readConfig(env: Record<string, string | undefined>): ConfigView {
  const path = configFile(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // No file (or no folder yet, or a file where a folder of the path should be: said when writing).
    if (code === 'ENOENT' || code === 'ENOTDIR') return view(path, { profiles: {} });
    const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : (code ?? (err as Error).message);
    throw new UsageError(`cannot read the config file ${path}: ${why}`, 'make it readable, or set VAP_CONFIG_DIR to another folder');
  }
  return view(path, parseConfig(text, path));
}

/** The recovery every refusal of the file names: mend it, or move it aside and log in again. */
export function recoverHint(path: string): string {
  return `fix it, or move it aside (mv '${path}' '${path}.broken') and run \`vap auth login\` again; vap does not overwrite it`;
}

/** The config's data, checked: an object whose `profiles` holds objects of strings. */
export function parseConfig(text: string, path: string): ConfigData {
  if (text.trim() === '') return { profiles: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`the config file ${path} is not valid JSON (${(err as Error).message})`, recoverHint(path));
  }
  const problem = shapeProblem(parsed);
  if (problem) throw new UsageError(`the config file ${path} is not a vap config file: ${problem}`, recoverHint(path));
  const data = parsed as Partial<ConfigData>;
  return { ...data, profiles: data.profiles ?? {} };
}

function shapeProblem(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'it does not hold a JSON object';
  const o = v as Record<string, unknown>;
  if (o.defaultProfile !== undefined && typeof o.defaultProfile !== 'string') return '"defaultProfile" is not a string';
  if (o.profiles === undefined) return undefined;
  if (o.profiles === null || typeof o.profiles !== 'object' || Array.isArray(o.profiles)) return '"profiles" is not an object';
  for (const [name, p] of Object.entries(o.profiles as Record<string, unknown>)) {
    if (p === null || typeof p !== 'object' || Array.isArray(p)) return `profile "${name}" is not an object`;
    for (const [k, val] of Object.entries(p as Record<string, unknown>)) {
      if (val !== undefined && typeof val !== 'string') return `"${k}" of profile "${name}" is not a string`;
    }
  }
  return undefined;
}

function view(path: string, data: ConfigData): ConfigView {
  return {
    path,
    defaultProfile: data.defaultProfile,
    profile: (name) => (Object.hasOwn(data.profiles, name) ? data.profiles[name] : undefined),
    profilesWithKeys: () => withKeys(data.profiles),
  };
}

/** The names of the profiles that hold an API key, sorted. */
export function withKeys(profiles: ConfigData['profiles']): string[] {
  return Object.keys(profiles)
    .filter((name) => Boolean(profiles[name]?.apiKey))
    .sort();
}
