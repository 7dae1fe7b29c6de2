import { authSchemeFor } from '../../src/spec/groups.js';
import { startEmulator, type Emulator } from '../../src/emulator/server.js';
import type { EmulatorOptions } from '../../src/emulator/types.js';

export const ORG_A = { name: 'acme', apiKey: 'key_acme_test' };
export const ORG_B = { name: 'globex', apiKey: 'key_globex_test' };

export interface TestEmulator extends Emulator {
  /** A raw API request with the header form the path takes (acme's key unless another is given). */
  api<T = any>(method: string, path: string, body?: unknown, apiKey?: string): Promise<{ status: number; body: T }>;
  /** POST/GET/DELETE on the control path (`/_emulator/...`). */
  control<T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T>;
  /** Arms a fault: the next `count` requests matching method and path misbehave. */
  fault(f: { method?: string; path: string; status?: number; count?: number; retryAfter?: number | string; delayMs?: number; drop?: boolean }): Promise<void>;
  /** Requests the emulator received on the API surface since the last clearRequests(). */
  requests(): Promise<Array<{ method: string; path: string; status?: number; userAgent?: string; auth: string }>>;
  clearRequests(): Promise<void>;
}

/** A real emulator on a random port with two tenants (acme, globex). */
export async function startTestEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  const emu = await startEmulator({ port: 0, orgs: [ORG_A, ORG_B], timeScale: 1000, seed: 7, ...opts });
  const control = async <T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${emu.url}/_emulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`control ${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const api = async <T>(method: string, path: string, body?: unknown, apiKey = ORG_A.apiKey) => {
    const auth: Record<string, string> = authSchemeFor(path) === 'bearer' ? { authorization: `Bearer ${apiKey}` } : { 'x-api-key': apiKey };
    const res = await fetch(`${emu.url}${path}`, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  return Object.assign(emu, {
    api,
    control,
    fault: async (f: Parameters<TestEmulator['fault']>[0]) => {
      await control('POST', '/faults', f);
    },
    requests: async () =>
      (await control<{ requests: Array<{ method: string; path: string; status?: number; userAgent?: string; auth: string }> }>('GET', '/requests')).requests,
    clearRequests: async () => {
      await control('DELETE', '/requests');
    },
  });
}
