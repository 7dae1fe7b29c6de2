import { outcomeJson, passed, type RunOutcome } from './outcome.js';

/**
 * `--report json=path`: the `--json` document plus the suite, agent and verdict; when the
 * wait ended before the run did, `stopped` says why (`timeout`, `interrupted`, `error`).
 */
export function jsonReport(o: RunOutcome): string {
  return `${JSON.stringify({ evalId: o.evalId, agentId: o.agentId, passed: passed(o), ...(o.stopped ? { stopped: o.stopped } : {}), ...outcomeJson(o) }, null, 2)}\n`;
}
