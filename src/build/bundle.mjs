// Bundles the CLI into dist/ with esbuild: one entry (dist/cli.js) and a chunk per
// lazily loaded module, so start-up reads only what a command needs.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** esbuild plugins that replace slow internals of dependencies (see each plugin's comment). */
export const plugins = [(await import('../contacts/esbuild-shims.mjs')).dependencyShims(), (await import('./lazy-builtins.mjs')).lazyBuiltins()];

await build({
  absWorkingDir: root,
  // The import's validation worker is an entry of its own, with a fixed name, so that
  // bin/vap.js can start it before the CLI loads (see there).
  entryPoints: [
    { in: 'src/cli.ts', out: 'cli' },
    { in: 'src/contacts/validate-worker.ts', out: 'contacts-worker' },
  ],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: 'dist',
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  // Fastify loads plugins by name at run time; it stays in node_modules (the emulator only).
  external: ['fastify', '@fastify/*'],
  metafile: true,
  logLevel: 'warning',
  // Bundled CommonJS dependencies call require() for Node built-ins.
  banner: { js: "import{createRequire as __vapCreateRequire}from'node:module';const require=__vapCreateRequire(import.meta.url);" },
  plugins,
}).then(async (result) => {
  const { writeFile } = await import('node:fs/promises');
  await writeFile(new URL('../../dist/meta.json', import.meta.url), JSON.stringify(result.metafile));
});
