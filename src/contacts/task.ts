import { chunkChecker, type CheckSpec, type ChunkResult } from './check-chunk.js';
import { extractValues, type ExtractSpec } from './rows.js';

/**
 * The work on one chunk, the same on the worker thread and on the main thread: pick
 * each row's values for the mapped fields, validate them.
 */

export interface TaskSpec {
  check: CheckSpec;
  extract: ExtractSpec;
}

export interface TaskRunner {
  /** Validates rows already read. */
  rows(rows: unknown[]): ChunkResult;
  /** Validates values already extracted. */
  values(n: number, values: ArrayLike<unknown>, rowErrors?: Array<[number, string]>): ChunkResult;
}

export function taskRunner(spec: TaskSpec): TaskRunner {
  const check = chunkChecker(spec.check);
  const runner: TaskRunner = {
    rows(rows) {
      const { values, rowErrors } = extractValues(spec.extract, rows);
      return check({ n: rows.length, values, rowErrors });
    },
    values(n, values, rowErrors) {
      return check({ n, values, rowErrors });
    },
  };
  return runner;
}
