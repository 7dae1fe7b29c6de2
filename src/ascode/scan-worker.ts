import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { scanNow, type Scan } from './scan.js';

/**
 * The worker thread that scans a large project (scan.ts) while the main thread reads the
 * platform. This module is built as a file of its own (dist/scan-worker.js): the main
 * thread loads it to learn its URL, and the worker runs it.
 */

export const SCAN_WORKER_KIND = 'vap-ascode-scan';

/** The URL of this module (dist/scan-worker.js when built, the .ts source under tests, which run the scan inline). */
export const workerUrl: string = import.meta.url;

export interface ScanRequest {
  kind: typeof SCAN_WORKER_KIND;
  root: string;
  vars: Record<string, string>;
}

/** What the worker answers: the scan, or the system error that stopped it (EACCES, EIO...), as plain data. */
export type ScanReply = { scan: Scan } | { error: { message: string; code?: string; errno?: number; syscall?: string; path?: string } };

if (!isMainThread && parentPort && (workerData as { kind?: string } | null)?.kind === SCAN_WORKER_KIND) {
  const { root, vars } = workerData as ScanRequest;
  let reply: ScanReply;
  try {
    reply = { scan: scanNow(root, vars) };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    reply = { error: { message: e instanceof Error ? e.message : String(err), code: e.code, errno: e.errno, syscall: e.syscall, path: e.path } };
  }
  parentPort.postMessage(reply);
}
