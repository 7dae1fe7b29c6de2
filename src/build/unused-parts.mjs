// An esbuild plugin that leaves out parts of dependencies vap never uses, which `vap mcp` would
// compile at every start: zod's locales (vap speaks English) and the MCP SDK's Ajv validator (the
// server never asks for input; its stand-in throws). A patch that no longer matches fails the build.
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
      build.onLoad(
        {
          filter:
            /[\\/]node_modules[\\/](zod[\\/]v4[\\/](classic[\\/]external|core[\\/]index)|@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]index)\.js$/,
        },
        async (args) => {
          const rel = args.path.replace(/\\/g, '/').split('/node_modules/').pop();
          let source = await readFile(args.path, 'utf8');
          for (const [from, to] of PATCHES[rel]) {
            if (!source.includes(from)) throw new Error(`unused-parts: ${rel} no longer contains the code it replaces; review the patch for this version`);
            source = source.replace(from, to);
          }
          return { contents: source, loader: 'js' };
        },
      );
    },
  };
}
