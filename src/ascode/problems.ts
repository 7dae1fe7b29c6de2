import { UsageError } from '../errors.js';
import { safeText } from '../ui/safe-text.js';

/** One thing wrong with a project file: where (file relative to the project, 1-based line) and what. */
export interface Problem {
  file: string;
  line?: number;
  message: string;
}

export function formatProblem(p: Problem): string {
  return safeText(`${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`);
}

/**
 * Problems found while reading a project (or resolving names in it). Nothing is sent
 * while there is one: a single problem is the error line itself; several are each a line
 * on stderr, then one error line that counts them.
 */
export class ProblemList {
  readonly items: Problem[] = [];
  /** Lines said after the problems and before the error line (a fix ready to paste). */
  readonly trailer: string[] = [];

  add(p: Problem): void {
    this.items.push(p);
  }

  get size(): number {
    return this.items.length;
  }

  /** Throws a usage error (exit 2) when there is any problem; `write` receives the lines beyond the first. */
  throwIfAny(write: (line: string) => void): void {
    if (this.items.length === 0) return;
    const sorted = [...this.items].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : (a.line ?? 0) - (b.line ?? 0)));
    if (sorted.length === 1 && this.trailer.length === 0) throw new UsageError(`${formatProblem(sorted[0]!)}; nothing was sent`);
    for (const p of sorted) write(`${formatProblem(p)}\n`);
    for (const l of this.trailer) write(`${safeText(l)}\n`);
    if (sorted.length === 1) throw new UsageError(`${formatProblem(sorted[0]!)} (the fix is above); nothing was sent`);
    throw new UsageError(`${sorted.length} problems in the project files (listed above); nothing was sent`);
  }
}
