import type { Dispatcher as DispatcherType } from 'undici';
import { Agent } from '../vendor/undici.js';

export type HttpAgent = DispatcherType;
export type HttpResponse = DispatcherType.ResponseData;

export function createAgent(connectTimeoutMs: number): HttpAgent {
  // maxHeaderSize is Node's default, given so that undici need not load node:http to read it.
  return new Agent({ connect: { timeout: connectTimeoutMs }, keepAliveTimeout: 4_000, maxHeaderSize: 16 * 1024 });
}
