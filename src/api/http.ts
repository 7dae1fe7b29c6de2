import type { Dispatcher as DispatcherType } from 'undici';

export type HttpAgent = DispatcherType;
export type HttpResponse = DispatcherType.ResponseData;

/** An undici Agent; undici itself (src/vendor/undici.ts, its own chunk) is loaded on the first call. */
export async function createAgent(connectTimeoutMs: number): Promise<HttpAgent> {
  const { Agent } = await import('../vendor/undici.js');
  // maxHeaderSize is Node's default, given so that undici need not load node:http to read it.
  return new Agent({ connect: { timeout: connectTimeoutMs }, keepAliveTimeout: 4_000, maxHeaderSize: 16 * 1024 });
}
