import { outcomeJson, passed, type RunOutcome } from './outcome.js';
import { writeFileAtomic } from './write-atomic.js';

/** `--report json=path`: the `--json` document plus the suite, agent and verdict, written atomically. */
export function jsonReport(o: RunOutcome): string {
  return `${JSON.stringify({ evalId: o.evalId, agentId: o.agentId, passed: passed(o), ...outcomeJson(o) }, null, 2)}\n`;
}

export async function writeJsonReport(path: string, o: RunOutcome): Promise<void> {
  await writeFileAtomic(path, jsonReport(o));
}
