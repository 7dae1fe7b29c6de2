import type * as V8 from 'node:v8';

/** What bin/vap.js exposes of its compile cache (bin/compile-cache.js, on a Node without module.enableCompileCache). */
interface CompileCache {
  flagsChanging(flags: string): void;
}

/**
 * Sets V8 flags while vap runs; every flag vap sets goes through here. V8 rejects cached code made
 * under other flags, so vap's compile cache on Node 20 (bin/compile-cache.js) is told first and keeps
 * what is compiled afterwards apart. node:v8 is given by the caller, so that this module loads nothing.
 */
export function setV8Flags(v8: Pick<typeof V8, 'setFlagsFromString'>, flags: string): void {
  (globalThis as { __vapCompileCache?: CompileCache }).__vapCompileCache?.flagsChanging(flags);
  v8.setFlagsFromString(flags);
}
