// Loaded with `node -r` by tests: at exit, writes to $VAP_TRACE_FILE what vap's compile
// cache (bin/compile-cache.js) did with each file it compiled, as JSON: its folder, and
// for each file whether an entry was found and whether V8 rejected its data. Writes
// `null` when the cache was not installed.
'use strict';

const { writeFileSync } = require('node:fs');

process.once('exit', () => {
  const cache = globalThis.__vapCompileCache;
  const report = cache ? { folder: cache.folder, files: cache.files } : null;
  if (process.env.VAP_TRACE_FILE) writeFileSync(process.env.VAP_TRACE_FILE, JSON.stringify(report));
});
