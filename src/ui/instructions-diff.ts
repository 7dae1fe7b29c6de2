import type { ChalkInstance } from 'chalk';
import { structuredPatch } from 'diff';
import { safeText } from './safe-text.js';

/** The instructions as a unified diff, platform (−) to files (+). */
export function instructionsDiff(from: string, to: string, chalk: ChalkInstance, indent: string): string[] {
  const patch = structuredPatch('platform', 'files', `${from}\n`, `${to}\n`, '', '', { context: 3 });
  const out: string[] = [];
  for (const h of patch.hunks) {
    out.push(indent + chalk.cyan(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`));
    for (const line of h.lines) {
      const mark = line[0];
      const text = safeText(line.slice(1));
      if (mark === '+') out.push(indent + chalk.green(`+${text}`));
      else if (mark === '-') out.push(indent + chalk.red(`-${text}`));
      else if (mark === ' ') out.push(`${indent} ${text}`);
    }
  }
  return out;
}
