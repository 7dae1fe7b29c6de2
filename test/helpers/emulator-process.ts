import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { authSchemeFor } from '../../src/spec/groups.js';
import { BIN } from './built.js';

/** The built emulator (`vap emulator start --json`) in a child process, for tests that kill it. */
export interface EmulatorProcess {
  child: ChildProcess;
  url: string;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  control<T = any>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T>;
  /** SIGKILL: no chance to clean up. */
  kill(): Promise<void>;
  /** SIGTERM, as Ctrl-C would. */
  stop(): Promise<void>;
}

export const PROCESS_KEY = 'key_process';

export function startEmulatorProcess(args: string[], env: Record<string, string> = {}): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--json', '--org', `acme:${PROCESS_KEY}`, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      const url = (JSON.parse(line) as { url: string }).url;
      const api = async (method: string, path: string, body?: unknown) => {
        const auth: Record<string, string> = authSchemeFor(path) === 'bearer' ? { authorization: `Bearer ${PROCESS_KEY}` } : { 'x-api-key': PROCESS_KEY };
        const res = await fetch(`${url}${path}`, {
          method,
          headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        return { status: res.status, body: text ? JSON.parse(text) : undefined };
      };
      const control = async <T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> => {
        const res = await fetch(`${url}/_emulator${path}`, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        if (!res.ok) throw new Error(`control ${method} ${path}: ${res.status} ${await res.text()}`);
        return (await res.json()) as T;
      };
      resolve({
        child,
        url,
        stderr: () => err,
        api,
        control,
        kill: async () => {
          child.kill('SIGKILL');
          await exited;
        },
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`the emulator exited (${code}) before it listened: ${err}`)));
  });
}

/** Runs `vap emulator start` expecting it to fail at start; resolves with its exit code and stderr. */
export function failedStart(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--json', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: out, stderr: err });
    }),
  );
}
