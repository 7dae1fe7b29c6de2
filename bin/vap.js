#!/usr/bin/env node
// The `vap` executable: loads the built entry (dist/cli.js) and runs it. It is CommonJS
// (bin/package.json), as dist/ is (src/build/bundle.mjs), so that no command starts
// Node's ES module loader, and `vap --version` is answered before anything else loads.
'use strict';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`vap ${require('../package.json').version}\n`);
} else {
  if (args[0] === 'contacts' && args[1] === 'import') startImportWorker();
  require('../dist/cli.js')
    .main(args)
    .then((code) => {
      process.exitCode = code;
    });
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
