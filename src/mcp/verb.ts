import { Readable, Writable } from 'node:stream';
import type { Context, Env, IO } from '../context.js';

/** What a function run with a captured context left: its value or error, its stdout (JSON when it printed JSON) and its stderr lines. */
export interface Captured<T> {
  value?: T;
  error?: unknown;
  /** stdout parsed as JSON; undefined when nothing was printed (the text when it is not JSON). */
  json?: unknown;
  /** stderr, line by line (progress, warnings): vap's words around the platform's, made safe by the verb. */
  log: string[];
}

/**
 * Runs `fn` (a verb's run(): `vap evals run`, `vap evals runs diff`, `vap webhooks
 * rotate-secret`; or the as-code plan) with a context of its own, so that a tool gives the
 * same gates, baselines and checks as the command, from the same code:
 * - stdout is captured, and the verb prints JSON (--json), which becomes the tool's data;
 * - stderr is captured line by line (progress, warnings; `onLine` hears each as it comes);
 * - no prompt (no terminal), --yes (the tool has its own confirmation), no colour;
 * - the API client, credentials and config are the server's own (one connection pool);
 * - the environment without what would make a verb write outside its result in CI
 *   (GitHub's step summary and annotations).
 * Nothing reaches the server's own stdout, which is the protocol's on stdio.
 */
export async function runCaptured<T>(parent: Context, signal: AbortSignal, fn: (ctx: Context) => Promise<T>, onLine?: (line: string) => void): Promise<Captured<T>> {
  const out: Buffer[] = [];
  const log: string[] = [];
  let partial = '';
  const stdout = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      out.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      cb();
    },
  });
  const stderr = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line === '') continue;
        log.push(line);
        onLine?.(line);
      }
      cb();
    },
  });
  const io: IO = { stdin: Readable.from([]), stdout, stderr, stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false };
  // (Loaded as cli.ts loads it, with import(): a static import would give the context a file of its own.)
  const { createContext } = await import('../context.js');
  const base = createContext(io, quietEnv(parent.env), { ...parent.globals, json: true, output: undefined, query: undefined, quiet: false, yes: true, input: false, color: false }, signal);
  const ctx: Context = { ...base, api: parent.api, credentials: parent.credentials, config: parent.config, dispose: async () => undefined };
  const result: Captured<T> = { log };
  try {
    result.value = await fn(ctx);
  } catch (err) {
    result.error = err;
  }
  if (partial) log.push(partial);
  const text = Buffer.concat(out).toString('utf8').trim();
  if (text) {
    try {
      result.json = JSON.parse(text);
    } catch {
      result.json = text;
    }
  }
  return result;
}

const CI_SIDE_EFFECTS = ['GITHUB_ACTIONS', 'GITHUB_STEP_SUMMARY', 'CI'];

function quietEnv(env: Env): Env {
  const out: Env = { ...env };
  for (const k of CI_SIDE_EFFECTS) delete out[k];
  return out;
}
