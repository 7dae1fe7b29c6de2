#!/usr/bin/env node
// The `vap` executable: loads the built entry (dist/cli.js) and runs it. It is CommonJS
// (bin/package.json), as dist/ is (src/build/bundle.mjs), so that no command starts
// Node's ES module loader, and `vap --version` is answered before anything else loads.
'use strict';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`vap ${require('../package.json').version}\n`);
} else {
  enableCompileCache();
  if (args[0] === 'contacts' && args[1] === 'import') startImportWorker();
  const cli = require('../dist/cli.js');
  cli.main(args).then((code) => {
    process.exitCode = code;
    if (cli.exitsWhenDone(args)) exitWhenWritten(code);
  });
}

/** Ends the process once what it wrote to stdout and stderr is flushed (the 'exit' handlers run: the compile cache is written). */
function exitWhenWritten(code) {
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.writableLength === 0 || stream.destroyed) done();
    else stream.write('', done);
  }
}

/**
 * V8's compiled code of vap's files is kept in `compile-cache/` in vap's state folder
 * (src/contacts/state.ts: $VAP_STATE_DIR, else $XDG_STATE_HOME/vap or ~/.local/state/vap on
 * Linux, the data folder elsewhere), so that the next run reads it instead of compiling
 * again. Where Node has module.enableCompileCache (22.8 and later) it is Node's own cache
 * (Node's NODE_COMPILE_CACHE, a folder, takes precedence, and is left in charge on 22.1 to
 * 22.7); elsewhere (Node 20) it is vap's, ./compile-cache.js, which the CLI is told of
 * (globalThis.__vapCompileCache) before it sets V8 flags. NODE_DISABLE_COMPILE_CACHE=1
 * turns either off. test/bench/startup.mjs measures both.
 */
function enableCompileCache() {
  const { env } = process;
  if (env.NODE_DISABLE_COMPILE_CACHE) return;
  const { enableCompileCache } = require('node:module');
  const path = require('node:path');
  try {
    if (typeof enableCompileCache === 'function') {
      enableCompileCache(path.join(stateFolder(), 'compile-cache'));
    } else if (!(env.NODE_COMPILE_CACHE && nodeAtLeast(22, 1)) && !env.NODE_V8_COVERAGE) {
      // (Under NODE_V8_COVERAGE, code read from a cache is covered less precisely, as Node says of its own cache.)
      const cache = require('./compile-cache.js');
      // (package.json read, not required: a tenth of the time.)
      const { version } = JSON.parse(require('node:fs').readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
      const folder = cache.cacheFolder(path.join(stateFolder(), 'compile-cache'), version);
      globalThis.__vapCompileCache = cache.install({ root: path.join(__dirname, '..', 'dist'), folder });
    }
  } catch {
    // No cache: every run compiles.
  }
}

function nodeAtLeast(major, minor) {
  const [a, b] = process.versions.node.split('.').map(Number);
  return a > major || (a === major && b >= minor);
}

/** vap's state folder, as src/contacts/state.ts names it (a unit test compares them). */
function stateFolder() {
  const { env, platform } = process;
  const { join } = require('node:path');
  if (env.VAP_STATE_DIR) return env.VAP_STATE_DIR;
  const home = require('node:os').homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'vap');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'vap', 'Data');
  return join(env.XDG_STATE_HOME || join(home, '.local', 'state'), 'vap');
}

/**
 * `vap contacts import` validates a large file on a worker thread, and the worker's
 * own start (a thread, Node, the validators and the phone metadata: about 150 ms here)
 * would otherwise begin only once the CLI has loaded. Started here, it overlaps the
 * CLI's start instead. The import takes it over (src/contacts/pool.ts) when the file is
 * large enough; otherwise it is unreferenced and ends with the process. The options
 * must match the pool's own (a test checks that).
 */
function startImportWorker() {
  if (process.env.VAP_IMPORT_THREADS === '0' || args.some((a) => a === '--help' || a === '-h' || a === '--file-url' || a.startsWith('--file-url='))) return;
  try {
    const os = require('node:os');
    if ((os.availableParallelism ? os.availableParallelism() : os.cpus().length) < 2) return;
    const { Worker } = require('node:worker_threads');
    const worker = new Worker(require('node:path').join(__dirname, '../dist/contacts-worker.js'), {
      workerData: { kind: 'vap-contacts-validate' },
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    const started = { worker, failed: false };
    worker.once('error', () => (started.failed = true));
    worker.once('exit', () => (started.failed = true));
    worker.unref();
    globalThis.__vapImportWorker = started;
  } catch {
    // The import starts its own worker, or validates on the main thread.
  }
}
