// vap's compile cache for a Node without module.enableCompileCache (Node 20 to 22.0): V8's
// compiled code of the files of dist/ is kept in a folder and read back by the next run,
// instead of compiling them again on every start. bin/vap.js installs it; Node 22.1 and
// later use Node's own cache instead. test/bench/startup.mjs measures it.
//
// How it works: each file of dist/ that require() loads is compiled with vm.Script (the
// wrapper of a CommonJS module, as Node's own loader makes it), given V8's data from the
// cache when there is an entry for it. V8's data of a file is made (script.createCachedData)
// when the process exits, so that it holds every function the run compiled, not only the
// file's top level, and written to a temporary file renamed into place: a concurrent vap
// (`xargs -P`) reads a whole entry or none.
//
// An entry is used only when it is whole and made from the same file: it holds the source
// it was made from, compared byte for byte with the file being loaded (a hash would cost
// more: node:crypto or node:zlib take 1.3 to 2.5 ms to load, more than the comparison),
// and V8's data twice, compared too, since V8 checks its data's header (V8 version, flags,
// the source's length) but not the data itself in a release build. Anything else (no
// entry, another source, a torn or corrupt file, data V8 rejects) is compiled as usual and
// the entry rewritten. Nothing here ever fails a command or prints: a folder that cannot
// be made or written means no cache.
//
// V8 stamps its data with a hash of its flags, and vap sets flags while it runs (src/v8-flags.ts,
// --liftoff-only before the first request): the data of what is compiled before a change
// is made before the change (flagsChanging), and files compiled after it have entries of
// their own, named after the flags set so far.
'use strict';

const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');

/** A CommonJS module's wrapper (Node's Module.wrapper), its first part on a line of its own. */
const WRAPPER = ['(function (exports, require, module, __filename, __dirname) {\n', '\n});'];

/** An entry: MAGIC, the source's length and the data's (uint32 LE each), the source (UTF-8), the data, the data again. */
const MAGIC = Buffer.from('vap-cc1\n');
const HEAD = MAGIC.length + 8;

/** Folders of other versions (of vap, of Node, other flags) unused this long are removed when a new one is made. */
const STALE_MS = 30 * 24 * 3600 * 1000;

/**
 * The folder of the cache for this vap, this Node and these flags, in `parent` (the state
 * folder's compile-cache/, which Node 22's own cache shares: its folders are named otherwise).
 */
function cacheFolder(parent, version) {
  // Flags given to Node (its own and V8's) are part of the key: V8 rejects data made under other flags.
  const flags = `${process.execArgv.join('\n')}\n${process.env.NODE_OPTIONS || ''}`;
  return path.join(parent, `vap-${version}-node${process.versions.node}-${process.arch}-${fnv(flags)}`);
}

/** FNV-1a of a short string (a key, not file contents), in base 36. */
function fnv(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}

/**
 * Compiles the CommonJS files under `root` through the cache in `folder` (see cacheFolder).
 * Returns the controller that bin/vap.js exposes to the CLI as globalThis.__vapCompileCache.
 */
function install({ root, folder }) {
  const vm = require('node:vm');
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  /** Files compiled this run whose entry is to be written: { entry, script, source }. */
  const pending = [];
  /** What became of each file this run (tests read it). */
  const files = [];
  /** The flags vap has set so far, in the names of the entries of what is compiled after them. */
  let flagsSet = '';

  const compile = Module.prototype._compile;
  Module.prototype._compile = function _compile(content, filename, ...rest) {
    if (typeof filename !== 'string' || !filename.startsWith(prefix)) return compile.call(this, content, filename, ...rest);
    const entry = path.join(folder, encodeURIComponent(filename.slice(prefix.length)) + (flagsSet ? `@${fnv(flagsSet)}` : ''));
    const source = Buffer.from(content, 'utf8');
    const cachedData = read(entry, source);
    // The wrapper on a line of its own, one line up: line and column numbers in stack traces are the file's.
    const script = new vm.Script(WRAPPER[0] + content + WRAPPER[1], { filename, lineOffset: -1, cachedData });
    const rejected = cachedData ? script.cachedDataRejected === true : undefined;
    files.push({ file: filename.slice(prefix.length), entry: path.basename(entry), found: cachedData !== undefined, rejected });
    if (!cachedData || rejected) pending.push({ entry, script, source });
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, requireFor(this), this, filename, path.dirname(filename));
  };

  process.once('exit', save);

  /** Writes the entries of what was compiled since the last save (at exit, and before V8's flags change). */
  function save() {
    if (pending.length === 0) return;
    const todo = pending.splice(0);
    if (!makeFolder(folder)) return;
    for (const { entry, script, source } of todo) write(entry, script, source);
  }

  return {
    folder,
    files,
    /** Called before vap sets V8 flags (src/v8-flags.ts): what was compiled under the flags as they are is saved under them. */
    flagsChanging(flags) {
      try {
        save();
      } catch {
        // no cache
      }
      flagsSet += ` ${flags}`;
    },
  };
}

/** V8's data of an entry made from `source`, or undefined (no entry, another source, a torn or corrupt file). */
function read(entry, source) {
  let buf;
  try {
    buf = fs.readFileSync(entry);
  } catch {
    return undefined;
  }
  if (buf.length < HEAD || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const sourceLength = buf.readUInt32LE(MAGIC.length);
  const dataLength = buf.readUInt32LE(MAGIC.length + 4);
  if (sourceLength !== source.length || dataLength === 0 || buf.length !== HEAD + sourceLength + 2 * dataLength) return undefined;
  const at = HEAD + sourceLength;
  if (!buf.subarray(HEAD, at).equals(source)) return undefined;
  const data = buf.subarray(at, at + dataLength);
  return data.equals(buf.subarray(at + dataLength)) ? data : undefined;
}

/** Writes an entry to a temporary file of this process, then renames it into place. */
function write(entry, script, source) {
  const tmp = `${entry}.${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`;
  let fd;
  try {
    fd = fs.openSync(tmp, 'wx', 0o644);
    const data = script.createCachedData();
    const head = Buffer.alloc(HEAD);
    MAGIC.copy(head);
    head.writeUInt32LE(source.length, MAGIC.length);
    head.writeUInt32LE(data.length, MAGIC.length + 4);
    for (const part of [head, source, data, data]) {
      for (let off = 0; off < part.length; ) off += fs.writeSync(fd, part, off, part.length - off);
    }
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, entry);
  } catch {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        // already closed
      }
    }
    try {
      fs.unlinkSync(tmp);
    } catch {
      // never made
    }
  }
}

/**
 * Makes `folder` and its parents, one level at a time (Node 20's mkdirSync with
 * `recursive` loops forever where mkdir answers ENOENT under a folder that exists, as in
 * /proc). When the folder is new, folders of other versions unused for STALE_MS are removed.
 */
function makeFolder(folder) {
  const made = mkdirs(folder, 0);
  if (made === 'made') removeStale(path.dirname(folder), path.basename(folder));
  return made !== false;
}

function mkdirs(dir, depth) {
  try {
    fs.mkdirSync(dir, 0o755);
    return 'made';
  } catch (err) {
    if (err && err.code === 'EEXIST') {
      try {
        return fs.statSync(dir).isDirectory() ? 'there' : false;
      } catch {
        return false;
      }
    }
    const parent = path.dirname(dir);
    if (err?.code !== 'ENOENT' || parent === dir || depth > 64 || !mkdirs(parent, depth + 1)) return false;
    try {
      fs.mkdirSync(dir, 0o755);
      return 'made';
    } catch {
      return false;
    }
  }
}

function removeStale(parent, keep) {
  try {
    const now = Date.now();
    for (const name of fs.readdirSync(parent)) {
      if (!name.startsWith('vap-') || name === keep) continue;
      const dir = path.join(parent, name);
      if (now - fs.statSync(dir).mtimeMs > STALE_MS) fs.rmSync(dir, { recursive: true, force: true });
    }
  } catch {
    // kept for another time
  }
}

/** The `require` of a module, as Node's loader makes it (lib/internal/modules/helpers.js, makeRequireFunction). */
function requireFor(mod) {
  const require = function require(id) {
    return mod.require(id);
  };
  const resolve = function resolve(request, options) {
    return Module._resolveFilename(request, mod, false, options);
  };
  resolve.paths = function paths(request) {
    return Module._resolveLookupPaths(request, mod);
  };
  require.resolve = resolve;
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
}

module.exports = { install, cacheFolder };
