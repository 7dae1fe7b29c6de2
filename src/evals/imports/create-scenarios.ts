import { createScenariosFromCalls, listTriagedCalls } from '../../api/eval-imports.js';
import type { ApiClient } from '../../api/client.js';
import { CliError } from '../../errors.js';

export interface CreateScenariosOptions {
  agentId: string;
  evalId: string;
  importId: string;
  /** The calls to turn into scenarios, or 'all' for every triaged call of the import. */
  callIds: string[] | 'all';
  signal?: AbortSignal;
}

export interface CreateScenariosResult {
  created: number;
  /** Calls already turned into scenarios (not created twice). */
  skipped: number;
  /** The new scenarios' ids. */
  scenarioIds: string[];
}

/**
 * Creates scenarios from triaged calls of an import. With 'all', every triaged call
 * that is not yet a scenario (calls still pending triage are left out; none triaged
 * is an error naming the triage verb). Calls already turned into scenarios are skipped.
 */
export async function createScenarios(api: ApiClient, opts: CreateScenariosOptions): Promise<CreateScenariosResult> {
  const { agentId, evalId, importId, signal } = opts;
  let callIds: string[];
  let skippedBefore = 0;
  if (opts.callIds === 'all') {
    const calls = await listTriagedCalls(api, agentId, evalId, importId, signal);
    const triaged = calls.filter((c) => c.triageStatus === 'triaged');
    if (triaged.length === 0) {
      throw new CliError(
        `no triaged call in import ${importId}`,
        undefined,
        `triage it first: vap evals imports triage ${importId} --eval ${evalId} --agent ${agentId}`,
      );
    }
    callIds = triaged.filter((c) => !c.scenarioId).map((c) => c.id);
    skippedBefore = triaged.length - callIds.length;
    if (callIds.length === 0) return { created: 0, skipped: skippedBefore, scenarioIds: [] };
  } else {
    callIds = [...new Set(opts.callIds)];
  }
  signal?.throwIfAborted();
  const res = await createScenariosFromCalls(api, agentId, evalId, importId, callIds);
  const scenarioIds = res.scenarioIds ?? [];
  const created = typeof res.created === 'number' ? res.created : scenarioIds.length;
  const skipped = skippedBefore + (typeof res.skipped === 'number' ? res.skipped : Math.max(0, callIds.length - created));
  return { created, skipped, scenarioIds };
}
