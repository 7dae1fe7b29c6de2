import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The package version, from the nearest package.json above this module (src/, dist/ or dist/chunks/). */
export function version(): string {
  if (cached !== undefined) return cached;
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'vap' && pkg.version) return (cached = pkg.version);
    } catch {
      // not there; try the next level up
    }
  }
  return (cached = '0.0.0');
}
