// Loaded with `node --import`: records the URL of every module loaded into $VAP_TRACE_FILE,
// whether by Node's ES module loader (the hooks) or by require() (dist/ is CommonJS), and
// of every file of a dist/ folder read with fs.readFileSync (dist/verbs.json).
import { appendFileSync } from 'node:fs';
import fs from 'node:fs';
import Module, { register } from 'node:module';
import { sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const file = process.env.VAP_TRACE_FILE;
register(new URL('./trace-loads-hooks.mjs', import.meta.url), { data: { file } });

if (file) {
  const record = (path) => appendFileSync(file, `${pathToFileURL(path).href}\n`);
  for (const ext of ['.js', '.cjs', '.json']) {
    const load = Module._extensions[ext];
    if (!load) continue;
    Module._extensions[ext] = function (module, filename) {
      record(filename);
      return load.call(this, module, filename);
    };
  }
  const readFileSync = fs.readFileSync;
  fs.readFileSync = function (path, ...rest) {
    const p = path instanceof URL ? path.pathname : path;
    if (typeof p === 'string' && p.includes(`${sep}dist${sep}`)) record(p);
    return readFileSync.call(this, path, ...rest);
  };
}
