import type { ApiClient } from '../api/client.js';
import { listTriagedCalls, type TriagedCall } from '../api/eval-imports.js';
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import { truncate } from '../ui/format.js';
import { safeText } from '../ui/safe-text.js';
import { createScenarios } from './imports-bridge.js';
import type { CreateChoice } from './options.js';

/** Step 7: each triaged call's category, summary and suggested scenario, on stderr (not under -q). */
export function printReview(calls: TriagedCall[], ctx: Context): void {
  if (ctx.globals.quiet) return;
  const lines: string[] = [`Triaged ${calls.length} call${calls.length === 1 ? '' : 's'}:`];
  for (const c of calls) {
    if (!c.triage) continue;
    const s = c.triage.suggestedScenario;
    lines.push('', `  ${c.id}  [${c.triage.category}]${c.scenarioId ? `  (already scenario ${c.scenarioId})` : ''}`);
    lines.push(`    summary:  ${truncate(c.triage.summary, 200)}`);
    lines.push(`    scenario: ${s.name}`);
    if (s.persona) lines.push(`    persona:  ${truncate(s.persona, 200)}`);
    if (s.goal) lines.push(`    goal:     ${truncate(s.goal, 200)}`);
  }
  // Categories, summaries and suggestions are the service's text: each line shown safe.
  ctx.io.stderr.write(`${lines.map(safeText).join('\n')}\n\n`);
}

/** Step 8: which triaged calls become scenarios: --create, or a checkbox with all ticked. */
export async function chooseScenarioCalls(create: CreateChoice | undefined, calls: TriagedCall[], ctx: Context): Promise<string[]> {
  const triaged = calls.filter((c) => c.triage);
  if (create === 'all') return triaged.map((c) => c.id);
  if (create === 'none') return [];
  if (Array.isArray(create)) {
    const known = new Set(calls.map((c) => c.id));
    const unknown = create.filter((id) => !known.has(id));
    if (unknown.length > 0)
      throw new CliError(`--create names calls not in this import: ${unknown.join(', ')}`, undefined, 'use ids the review lists, or --create all|none');
    return create;
  }
  return ctx.prompter.checkbox(
    'Create scenarios from these calls (space unticks, enter creates)',
    triaged.map((c) => ({
      name: `[${c.triage!.category}] ${c.triage!.suggestedScenario.name}${c.scenarioId ? ' (already a scenario: skipped)' : ''}`,
      value: c.id,
      checked: !c.scenarioId,
      description: c.triage!.summary,
      short: c.id.slice(0, 8),
    })),
    { flag: '--create all|none|id,…' },
  );
}

export async function reviewAndCreate(
  ids: { agentId: string; evalId: string; importId: string },
  create: CreateChoice | undefined,
  api: ApiClient,
  ctx: Context,
): Promise<{ created: number; skipped: number; scenarioIds: string[]; chosen: number }> {
  const calls = await listTriagedCalls(api, ids.agentId, ids.evalId, ids.importId, ctx.signal);
  if (calls.some((c) => !c.triage))
    throw new CliError(`import ${ids.importId} still has calls to triage`, undefined, `run the wizard again with --import ${ids.importId}`);
  printReview(calls, ctx);
  const chosen = await chooseScenarioCalls(create, calls, ctx);
  if (chosen.length === 0) return { created: 0, skipped: 0, scenarioIds: [], chosen: 0 };
  const r = await createScenarios(api, { ...ids, callIds: chosen, signal: ctx.signal });
  return { ...r, chosen: chosen.length };
}
