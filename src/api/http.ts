import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';
import type { Dispatcher as DispatcherType } from 'undici';

// What undici's own index does to give every dispatcher `.request()` and `.stream()`.
Object.assign(Dispatcher.prototype, api);

export type HttpAgent = DispatcherType;
export type HttpResponse = DispatcherType.ResponseData;

export function createAgent(connectTimeoutMs: number): HttpAgent {
  // maxHeaderSize is Node's default, given so that undici need not load node:http to read it.
  return new Agent({ connect: { timeout: connectTimeoutMs }, keepAliveTimeout: 4_000, maxHeaderSize: 16 * 1024 });
}
