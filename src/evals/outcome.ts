import type { RunDetail, RunResult } from '../api/evals.js';
import type { GateResult } from './gates.js';

/** A finished (or last seen) run with its results and the gates evaluated on it. */
export interface RunOutcome {
  agentId: string;
  evalId: string;
  detail: RunDetail;
  results: RunResult[];
  gates: GateResult[];
}

/** The `--json` / `--report json=` document: `{ run, aggregates, results, gates }`. */
export function outcomeJson(o: RunOutcome): { run: RunDetail['run']; aggregates: RunDetail['aggregates']; results: RunResult[]; gates: GateResult[] } {
  return { run: o.detail.run, aggregates: o.detail.aggregates, results: o.results, gates: o.gates };
}

/** Whether the run completed with every gate passed. */
export function passed(o: RunOutcome): boolean {
  return o.detail.run.status === 'completed' && o.gates.every((g) => g.passed);
}
