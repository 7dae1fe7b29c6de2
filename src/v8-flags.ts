import type * as V8 from 'node:v8';

/** What bin/vap.js exposes of its compile cache (bin/compile-cache.js, on a Node without module.enableCompileCache). */
interface CompileCache {
  flagsChanging(flags: string): void;
}

/**
 * Sets V8 flags while vap runs (`--liftoff-only` before the first request, and the flags
 * of `calls list` and `contacts import`): every flag vap sets goes through here.
 *
 * V8 stamps the code it caches with a hash of its flags, and rejects a cache made under
 * other flags. vap's compile cache on Node 20 (bin/compile-cache.js) makes V8's data of
 * each file when the process exits; told first, it makes the data of what was compiled
 * so far under the flags as they still are, and keeps what is compiled afterwards apart.
 * The node:v8 module is given by the caller, so that this module loads nothing.
 */
export function setV8Flags(v8: Pick<typeof V8, 'setFlagsFromString'>, flags: string): void {
  (globalThis as { __vapCompileCache?: CompileCache }).__vapCompileCache?.flagsChanging(flags);
  v8.setFlagsFromString(flags);
}
