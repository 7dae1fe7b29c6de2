// Bundles the CLI into dist/ (see src/build/README.md). esbuild alone gives every module the entry
// shares with a verb a chunk of its own, not knowing the entry is always loaded, so Rollup regroups
// its output into few CommonJS files: fewer reads, and require() starts faster than Node's ES loader.
import { execFileSync } from 'node:child_process';
import { build, transform } from 'esbuild';
import { rollup } from 'rollup';
import { bundledPackages, noticesText } from './notices.mjs';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
// `--out <dir>` builds elsewhere (the test that the build prints no warning), dist/ by default.
const outAt = process.argv.indexOf('--out');
const dist = outAt > 0 ? resolve(process.argv[outAt + 1]) : join(root, 'dist');

/** esbuild plugins that replace slow internals of dependencies (see each plugin's comment). */
export const plugins = [
  (await import('../contacts/esbuild-shims.mjs')).dependencyShims(),
  (await import('./lazy-builtins.mjs')).lazyBuiltins(),
  (await import('./unused-parts.mjs')).unusedParts(),
];

/** Files of dist/ built on their own; an import of their source from another build is left as a require() of the file. */
const SEPARATE = {
  'src/vendor/undici.ts': join(dist, 'chunks/undici.js'),
  'src/contacts/validate-worker.ts': join(dist, 'contacts-worker.js'),
};

/** What is not bundled: Node's built-ins, and the separately built files. Every dependency is, so the package installs none. */
const isExternal = (id) => id.startsWith('node:') || builtinModules.includes(id) || Object.values(SEPARATE).includes(id);

/** An esbuild plugin: an import of a separately built source file becomes an import of its file in dist/ (absolute; Rollup makes it relative). */
const separateFiles = (self) => ({
  name: 'separate-files',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const rel = relative(root, resolve(args.resolveDir, args.path)).replace(/\.js$/, '.ts');
      const file = SEPARATE[rel];
      return file && rel !== self ? { path: file, external: true } : undefined;
    });
  },
});

const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));

// The version is written in (src/version.ts), not read from package.json at run time.
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  metafile: true,
  logLevel: 'warning',
  define: { __VAP_VERSION__: JSON.stringify(pkg.version) },
};

/**
 * Whitespace and comments out, syntax shortened, names kept (stack traces under VAP_DEBUG
 * stay readable): V8 scans every byte of a file it compiles, and undici and Commander are
 * mostly comments. Measured in test/bench/startup.mjs.
 */
const MINIFY = { minifyWhitespace: true, minifySyntax: true, minifyIdentifiers: false };

/** A Rollup plugin: a require() of a separately built file (an absolute path) becomes relative to the file that holds it. */
const relativeSeparateFiles = () => ({
  name: 'relative-separate-files',
  renderChunk(code, chunk) {
    let out = code;
    for (const file of Object.values(SEPARATE)) {
      let rel = relative(dirname(join(dist, chunk.fileName)), file);
      if (!rel.startsWith('.')) rel = `./${rel}`;
      out = out.replaceAll(JSON.stringify(file), JSON.stringify(rel)).replaceAll(`'${file}'`, JSON.stringify(rel));
    }
    return out === code ? null : { code: out, map: null };
  },
});

/** A Rollup plugin: each file written minified (esbuild). */
const minified = () => ({
  name: 'minify',
  async renderChunk(code) {
    const r = await transform(code, { ...MINIFY, loader: 'js', format: 'cjs', target: 'node20', platform: 'node' });
    return { code: r.code, map: null };
  },
});

/** An entry (and what it loads lazily) as CommonJS files, through esbuild's split ES modules and Rollup. */
async function bundle(entry, name, chunkDir) {
  const esm = await mkdtemp(join(tmpdir(), 'vap-esm-'));
  try {
    const first = await build({
      ...common,
      entryPoints: [{ in: entry, out: name }],
      splitting: true,
      format: 'esm',
      outdir: esm,
      entryNames: '[name]',
      chunkNames: '[name]-[hash]',
      plugins: [...plugins, separateFiles(entry)],
    });
    const b = await rollup({
      input: { [name]: join(esm, `${name}.js`) },
      external: isExternal,
      // The entry may gain exports that its chunks import from it (one file fewer each).
      preserveEntrySignatures: 'allow-extension',
      // The separately built files stay absolute here; relativeSeparateFiles rewrites them.
      makeAbsoluteExternalsRelative: false,
      // esbuild has shaken the code already; Rollup only regroups it.
      treeshake: false,
      plugins: [relativeSeparateFiles(), minified()],
      onwarn(warning, warn) {
        // esbuild's chunks import each other in cycles that are safe (no code runs at import).
        if (warning.code === 'CIRCULAR_DEPENDENCY') return;
        if (warning.code === 'UNUSED_EXTERNAL_IMPORT' && requiredAnyway(warning)) return;
        warn(warning);
      },
    });
    const { output } = await b.write({
      dir: dist,
      format: 'cjs',
      exports: 'named',
      generatedCode: 'es2015',
      interop: 'auto',
      // A lazily loaded file of another build (undici, the worker) is required, not import()ed:
      // an import() would start Node's ES module loader.
      dynamicImportInCjs: false,
      // Each file requires what it uses, no more (hoisting is for ES modules loaded in parallel).
      hoistTransitiveImports: false,
      entryFileNames: '[name].js',
      chunkFileNames: `${chunkDir}/[name]-[hash].js`,
      manualChunks: chunking(first.metafile, esm, name, entry),
    });
    await b.close();
    return outputsOf(first.metafile, output);
  } finally {
    await rm(esm, { recursive: true, force: true });
  }
}

/**
 * Whether names Rollup reports as imported and never used cost nothing: each file that imports
 * them from a built-in uses another name of it, so it is required anyway (src/build/README.md).
 */
function requiredAnyway(warning) {
  if (!builtinModules.includes(warning.exporter.replace(/^node:/, ''))) return false;
  // esbuild writes each import on a line of its own: `import { a, b as c } from "node:http";`.
  const from = new RegExp(`^import\\s*([^;\\n]*?)\\s*from\\s*${JSON.stringify(warning.exporter).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')};?$`, 'gm');
  return warning.ids.every((id) => {
    const imported = [...readFileSync(id, 'utf8').matchAll(from)].flatMap(([, clause]) => {
      const named =
        /\{([^}]*)\}/
          .exec(clause)?.[1]
          .split(',')
          .map((n) => n.trim().split(/\s+as\s+/)[0])
          .filter(Boolean) ?? [];
      const rest = clause
        .replace(/\{[^}]*\}/, '')
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean);
      return [...named, ...rest.map((n) => (n.startsWith('*') ? '*' : 'default'))];
    });
    return imported.some((n) => !warning.names.includes(n));
  });
}

/**
 * How Rollup groups the files: the entry holds what it and every verb's definition import
 * (ENTRY_MODULES), so that defining a verb reads no other file; one "core" file holds what a
 * verb needs when it runs (CORE_MODULES), so that help never reads it and an API command reads one.
 */
const ENTRY_MODULES = [
  'src/commands/action.ts',
  'src/commands/listing.ts',
  'src/commands/confirm.ts',
  'src/api/path.ts',
  'src/api/paginate.ts',
  // Small modules that verb modules import when they are defined, which would otherwise bring the core file with them.
  'src/api/redact.ts',
  'src/config/resolve.ts',
  'src/ui/accessible.ts',
  'src/ui/block-writer.ts',
  'src/ui/style.ts',
  // How wide the terminal is: src/ui/fit.ts and the live lines import it, and a verb's help would read the core file for it.
  'src/ui/width.ts',
  // A listing's column policy and an option's completion values, declared when a verb is defined.
  'src/ui/columns.ts',
  'src/completion/takes.ts',
  // The contract's value lists (engines, statuses, categories) that verbs offer as choices when defined.
  'src/spec/agents.ts',
  'src/spec/calls.ts',
  'src/spec/evals.ts',
  'src/spec/webhooks.ts',
];
const CORE_MODULES = ['src/context.ts', 'src/api/client.ts'];

function chunking(meta, esm, name, entrySource) {
  // What the entry imports, statically, in esbuild's graph.
  const inEntry = new Set(ENTRY_MODULES);
  const visit = (input) => {
    if (inEntry.has(input) && input !== entrySource) return;
    inEntry.add(input);
    for (const i of meta.inputs[input]?.imports ?? []) if (i.kind === 'import-statement' || i.kind === 'require-call') visit(i.path);
  };
  visit(entrySource);
  const assign = new Map();
  for (const [file, o] of Object.entries(meta.outputs)) {
    const inputs = Object.keys(o.inputs);
    const id = join(root, file);
    if (file === relative(root, join(esm, `${name}.js`)) || inputs.some((i) => inEntry.has(i))) assign.set(id, name);
    else if (inputs.some((i) => CORE_MODULES.includes(i))) assign.set(id, 'core');
  }
  return (id) => assign.get(id);
}

/** For each file written, the source inputs bundled into it (esbuild's metafile, through Rollup's modules). */
function outputsOf(meta, output) {
  const outputs = {};
  for (const o of output) {
    if (o.type !== 'chunk') continue;
    const inputs = {};
    let entryPoint;
    for (const id of Object.keys(o.modules)) {
      const e = meta.outputs[relative(root, id)];
      if (!e) continue;
      Object.assign(inputs, e.inputs);
      if (id === o.facadeModuleId && e.entryPoint) entryPoint = e.entryPoint;
    }
    outputs[`dist/${o.fileName}`] = { bytes: Buffer.byteLength(o.code), entryPoint, inputs, imports: o.imports, dynamicImports: o.dynamicImports };
  }
  return { inputs: meta.inputs, outputs };
}

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });

// undici alone, in one file: an Agent and the request API (src/vendor/undici.ts), nothing shared.
const undici = await build({
  ...common,
  entryPoints: ['src/vendor/undici.ts'],
  format: 'cjs',
  ...MINIFY,
  outfile: SEPARATE['src/vendor/undici.ts'],
  plugins,
});
const [cli, worker] = await Promise.all([bundle('src/cli.ts', 'cli', 'chunks'), bundle('src/contacts/validate-worker.ts', 'contacts-worker', 'worker')]);

// dist/topics/: the manual's topics (src/help/topics/*.md, *.txt), read by `vap help <topic>` and
// listed by the root help from beside dist/cli.js (src/help/topics.ts); never by a command.
await mkdir(join(dist, 'topics'));
for (const f of await readdir(join(root, 'src/help/topics')))
  if (/\.(md|txt)$/.test(f)) await copyFile(join(root, 'src/help/topics', f), join(dist, 'topics', f));
// dist/ holds CommonJS; the package itself is "type": "module".
await writeFile(join(dist, 'package.json'), '{\n  "type": "commonjs"\n}\n');
// dist/verbs.json: what a group's help and suggestions read of each verb (src/program.ts,
// VerbStub), taken from the built tree itself, so that it cannot differ from it.
const stubs = execFileSync(
  process.execPath,
  ['-e', 'require(process.argv[1]).verbStubs().then((s) => process.stdout.write(JSON.stringify(s)))', join(dist, 'cli.js')],
  { encoding: 'utf8' },
);
await writeFile(join(dist, 'verbs.json'), `${JSON.stringify(JSON.parse(stubs), null, 1)}\n`);
// dist/meta.json: for each file of dist/, the source inputs bundled into it, its size, and
// the entry point it stands for (`src/vendor/undici.ts` names undici's file). Tests and
// benches read it.
const undiciFile = relative(root, SEPARATE['src/vendor/undici.ts']);
const undiciOut = undici.metafile.outputs[undiciFile];
const inputs = { ...undici.metafile.inputs, ...cli.inputs, ...worker.inputs };
// dist/THIRD_PARTY_NOTICES.txt: the license of every package bundled (src/build/notices.mjs).
await writeFile(join(dist, 'THIRD_PARTY_NOTICES.txt'), noticesText(bundledPackages(root, Object.keys(inputs))));
await writeFile(
  join(dist, 'meta.json'),
  JSON.stringify({
    inputs,
    outputs: {
      [undiciFile]: { bytes: undiciOut.bytes, entryPoint: 'src/vendor/undici.ts', inputs: undiciOut.inputs, imports: [], dynamicImports: [] },
      ...cli.outputs,
      ...worker.outputs,
    },
  }),
);
