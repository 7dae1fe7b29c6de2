import { readFileSync } from 'node:fs';

/** The package version, written in by the bundle (src/build/bundle.mjs); undefined under the TypeScript sources. */
declare const __VAP_VERSION__: string | undefined;

let cached: string | undefined;

/** The package version: the bundle's own, else (tests, on the sources) the nearest package.json above this module. */
export function version(): string {
  if (typeof __VAP_VERSION__ === 'string') return __VAP_VERSION__;
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
