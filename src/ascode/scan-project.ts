import { availableParallelism } from 'node:os';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { listFiles, scanFile, type Scan } from './scan.js';
import type { ScanReply, ScanRequest } from './scan-worker.js';

/**
 * Scans the project's layout and files (scan.ts). A project of many agents is scanned on a
 * worker thread, where its thousands of system calls (an open, a stat, a read and a close
 * each) and digests do not hold up the main thread, which meanwhile reads the platform
 * (diff, promote, preview) or starts up; a small one, or one on a single core, here, with
 * I/O let in between. Both give the same scan (a test compares them).
 */

/** The number of agent folders from which a project is scanned on a worker (a worker costs a few milliseconds to start). */
export const WORKER_MIN_AGENTS = 200;

/** Files read between two turns of the event loop, when the scan runs here. */
const FILES_PER_TURN = 4;

export async function scanProject(root: string, vars: Record<string, string>): Promise<Scan> {
  if (availableParallelism() > 1 && agentFolders(root) >= WORKER_MIN_AGENTS) {
    const scan = await scanOnWorker(root, vars);
    if (scan) return scan;
  }
  return scanHere(root, vars);
}

/** Scans on the main thread, letting I/O in every few files. */
export async function scanHere(root: string, vars: Record<string, string>): Promise<Scan> {
  const scan: Scan = { problems: [], files: [] };
  // The platform's answers (read meanwhile by diff) are let in before the folders are listed, and between files.
  await yieldToIO();
  const jobs = listFiles(root, scan.problems);
  for (let i = 0; i < jobs.length; i++) {
    scan.files.push(scanFile(root, jobs[i]!, vars));
    if (i % FILES_PER_TURN === FILES_PER_TURN - 1) await yieldToIO();
  }
  return scan;
}

/**
 * Scans on a worker thread; undefined when there is no worker to be had (the sources run
 * under tests, or the thread would not start), and the caller scans here. A system error
 * of the scan (EACCES...) is thrown as the scan here would throw it.
 */
export async function scanOnWorker(root: string, vars: Record<string, string>, url?: string): Promise<Scan | undefined> {
  const { SCAN_WORKER_KIND, workerUrl } = await import('./scan-worker.js');
  const file = url ?? workerUrl;
  if (!file.endsWith('.js')) return undefined;
  const { Worker } = await import('node:worker_threads');
  const reply = await new Promise<ScanReply | undefined>((resolve) => {
    let worker;
    try {
      worker = new Worker(new URL(file), { workerData: { kind: SCAN_WORKER_KIND, root, vars } satisfies ScanRequest });
    } catch {
      resolve(undefined);
      return;
    }
    worker.once('message', (m: ScanReply) => resolve(m));
    worker.once('error', () => resolve(undefined));
    worker.once('exit', () => resolve(undefined));
  });
  if (!reply) return undefined;
  if ('error' in reply) throw Object.assign(new Error(reply.error.message), Object.fromEntries(Object.entries(reply.error).filter(([k, v]) => k !== 'message' && v !== undefined)));
  return reply.scan;
}

/** How many entries agents/ has (names only: one system call); 0 when there is none. */
function agentFolders(root: string): number {
  try {
    return readdirSync(join(root, 'agents')).length;
  } catch {
    return 0;
  }
}

const yieldToIO = () => new Promise<void>((resolve) => setImmediate(resolve));
