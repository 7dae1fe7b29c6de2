// Loaded with `node --import`: records the URL of every module loaded into $VAP_TRACE_FILE,
// whether by Node's ES module loader (the hooks) or by require() (dist/ is CommonJS).
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.VAP_TRACE_FILE;
register(new URL('./trace-loads-hooks.mjs', import.meta.url), { data: { file } });

if (file) {
  for (const ext of ['.js', '.cjs', '.json']) {
    const load = Module._extensions[ext];
    Module._extensions[ext] = function (module, filename) {
      appendFileSync(file, `${pathToFileURL(filename).href}\n`);
      return load.call(this, module, filename);
    };
  }
}
