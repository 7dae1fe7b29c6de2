import type { ApiClient } from '../api/client.js';
import { createScenariosFromCalls, listTriagedCalls, triageBatch } from '../api/eval-imports.js';
import { InterruptedError } from '../errors.js';

// The triage loop and scenario creation, with the signatures of EMU-IMPORTS's
// src/evals/imports/triage.ts (triageAll) and create-scenarios.ts (createScenarios).
// They stand in until those modules land; then these two functions re-export them.

export interface TriageProgress {
  triaged: number;
  total: number;
  processed: number;
  remaining: number;
}

export async function triageAll(
  api: ApiClient,
  o: { agentId: string; evalId: string; importId: string; batchSize: number; signal: AbortSignal; onProgress?: (p: TriageProgress) => void },
): Promise<{ triaged: number; total: number }> {
  let triaged = 0;
  let total = 0;
  for (;;) {
    if (o.signal.aborted) throw new InterruptedError();
    const b = await triageBatch(api, o.agentId, o.evalId, o.importId, o.batchSize, o.signal);
    triaged = b.import.triagedCalls;
    total = triaged + b.remaining;
    o.onProgress?.({ triaged, total, processed: b.processed, remaining: b.remaining });
    if (b.remaining <= 0) return { triaged, total };
    if (b.processed <= 0) throw new Error(`triage made no progress on import ${o.importId} (${b.remaining} calls remain)`);
  }
}

export async function createScenarios(
  api: ApiClient,
  o: { agentId: string; evalId: string; importId: string; callIds: string[] | 'all'; signal: AbortSignal },
): Promise<{ created: number; skipped: number; scenarioIds: string[] }> {
  const ids = o.callIds === 'all' ? (await listTriagedCalls(api, o.agentId, o.evalId, o.importId, o.signal)).filter((c) => c.triage).map((c) => c.id) : o.callIds;
  if (ids.length === 0) return { created: 0, skipped: 0, scenarioIds: [] };
  const r = await createScenariosFromCalls(api, o.agentId, o.evalId, o.importId, ids);
  return { created: r.created, skipped: r.skipped ?? ids.length - r.created, scenarioIds: r.scenarioIds ?? [] };
}
