// The build leaves out parts of dependencies vap never uses (src/build/unused-parts.mjs):
// each replacement still matches the installed package, and nothing in src/ uses what it
// leaves out (zod's locales; the SDK's JSON Schema validator, used for elicitation alone).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs build script without type declarations
import { PATCHES } from '../../src/build/unused-parts.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

describe('the unused-parts build patch', () => {
  it('matches the installed packages exactly', () => {
    for (const [file, patches] of Object.entries(PATCHES as Record<string, Array<[string, string]>>)) {
      const source = readFileSync(join(ROOT, 'node_modules', file), 'utf8');
      for (const [from] of patches) expect(source, file).toContain(from);
    }
  });

  it('leaves out nothing vap uses', () => {
    const sources = walk(join(ROOT, 'src')).map((f) => readFileSync(f, 'utf8'));
    expect(sources.filter((s) => /\.locales\b|\blocales\./.test(s) && /from 'zod'/.test(s))).toEqual([]);
    expect(sources.filter((s) => /elicitInput|jsonSchemaValidator/.test(s))).toEqual([]);
    // The SDK's server uses the validator for elicitation answers alone.
    const server = readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/server/index.js'), 'utf8');
    expect([...server.matchAll(/_jsonSchemaValidator\.getValidator/g)]).toHaveLength(1);
    expect(server.slice(0, server.indexOf('_jsonSchemaValidator.getValidator'))).toMatch(/async elicitInput\([\s\S]*$/);
  });
});
