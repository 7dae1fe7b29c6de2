// An esbuild plugin that leaves out of the bundle the parts of dependencies vap never uses,
// which would otherwise be compiled and run by `vap mcp` at every start (measured in
// test/bench/mcp.mjs):
// - zod's error messages in 40-odd languages (`z.locales`, more than half of zod's code):
//   vap's schemas speak English, the default zod sets up itself (classic/schemas.js imports
//   locales/en.js on its own);
// - the MCP SDK's JSON Schema validator for elicitation answers (Ajv, with ajv-formats and
//   fast-uri: a quarter of a megabyte): the server never asks the client for input; a
//   server that did would fail loudly (the stand-in throws) rather than go unchecked.
// As in lazy-builtins.mjs, each replacement must match exactly, or the build fails, so an
// upgrade cannot silently undo or break it.
import { readFile } from 'node:fs/promises';

const NO_LOCALES = [`export * as locales from "../locales/index.js";`, `export const locales = {};`];

export const PATCHES = {
  'zod/v4/classic/external.js': [NO_LOCALES],
  'zod/v4/core/index.js': [NO_LOCALES],
  '@modelcontextprotocol/sdk/dist/esm/server/index.js': [
    [
      `import { AjvJsonSchemaValidator } from '../validation/ajv-provider.js';`,
      `class AjvJsonSchemaValidator {
    getValidator() {
        throw new Error('vap mcp has no JSON Schema validator for elicitation answers (it never asks the client for input)');
    }
}`,
    ],
  ],
};

export function unusedParts() {
  return {
    name: 'unused-parts',
    setup(build) {
      build.onLoad({ filter: /[\\/]node_modules[\\/](zod[\\/]v4[\\/](classic[\\/]external|core[\\/]index)|@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]index)\.js$/ }, async (args) => {
        const rel = args.path.replace(/\\/g, '/').split('/node_modules/').pop();
        let source = await readFile(args.path, 'utf8');
        for (const [from, to] of PATCHES[rel]) {
          if (!source.includes(from)) throw new Error(`unused-parts: ${rel} no longer contains the code it replaces; review the patch for this version`);
          source = source.replace(from, to);
        }
        return { contents: source, loader: 'js' };
      });
    },
  };
}
