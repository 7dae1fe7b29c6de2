import type { ApiClient } from '../api/client.js';
import { createImport, type CallImport } from '../api/eval-imports.js';
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';
import { planFromFlags, requireScriptedFlags, type WizardFlags } from './options.js';
import { pickCalls } from './pick-calls.js';
import { chooseResume } from './resume.js';
import { reviewAndCreate } from './review.js';
import { selectAgent } from './select-agent.js';
import { selectSource } from './select-source.js';
import { removeCreatedSuite, selectSuite } from './select-suite.js';
import { triageImport } from './triage.js';

export type { WizardFlags } from './options.js';

export interface WizardResult {
  agentId: string;
  evalId: string;
  importId: string;
  importedCalls: number;
  triagedCalls: number;
  created: number;
  skipped: number;
  scenarioIds: string[];
}

/**
 * `vap evals import`: agent → suite → (resume) → source → calls → import → triage → review →
 * scenarios. Each step is answered by its flag or asked on a terminal; without one, the first
 * missing flag is a usage error before anything is sent.
 */
export async function runImportWizard(flags: WizardFlags, ctx: Context): Promise<WizardResult> {
  const plan = planFromFlags(flags, ctx.env);
  if (!ctx.prompter.canPrompt) requireScriptedFlags(plan);
  let client: ApiClient | undefined;
  const api = async () => (client ??= await ctx.api());

  const agentId = await selectAgent(plan.agent, api, ctx);
  const suite = await selectSuite(plan.evalId, agentId, await api(), ctx);
  const evalId = suite.id;
  const ids = { agentId, evalId };

  let imp: CallImport | undefined;
  try {
    imp = await chooseResume({ importId: plan.importId, resume: plan.resume, sourceGiven: Boolean(plan.source?.sourceId) }, ids, await api(), ctx);
    if (imp) {
      ctx.info(`Resuming import ${imp.id}: ${imp.label}, ${imp.triagedCalls}/${imp.totalCalls} triaged`);
    } else {
      const source = await selectSource(plan.source, ids, await api(), ctx);
      const callIds = await pickCalls(plan, source, ids, await api(), ctx);
      const created = await createImport(await api(), agentId, evalId, { sourceType: source.sourceType, sourceId: source.sourceId, callIds });
      imp = { source: `${source.sourceType}:${source.sourceId}`, label: `${source.name}`, ...created };
      ctx.info(`Imported ${created.totalCalls} call${created.totalCalls === 1 ? '' : 's'} from ${source.name} as ${created.id}`);
    }
  } catch (err) {
    // Stopped before the import was made: a suite made for it by the wizard goes too (the user never committed to it).
    if (suite.created) await removeCreatedSuite(suite, agentId, await api(), ctx);
    throw err;
  }
  const importIds = { ...ids, importId: imp.id };

  const triage = await triageImport(importIds, { triaged: imp.triagedCalls, total: imp.totalCalls }, plan.batchSize, await api(), ctx);
  let r: Awaited<ReturnType<typeof reviewAndCreate>>;
  try {
    r = await reviewAndCreate(importIds, plan.create, await api(), ctx);
  } catch (err) {
    // The import is triaged and kept; it is no longer offered for resumption, so name it.
    if (err instanceof InterruptedError)
      throw new InterruptedError(
        `interrupted; import ${imp.id} is triaged and kept — run \`vap evals import --agent ${agentId} --eval ${evalId} --import ${imp.id}\` to create its scenarios`,
      );
    throw err;
  }
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  if (r.chosen === 0) ctx.info(`No scenarios created; the triaged import ${imp.id} stays (run again with --import ${imp.id} --create all to create them).`);
  else await ctx.success(`Created ${plural(r.created, 'scenario')} in suite ${evalId}; skipped ${r.skipped} (already scenarios)`);
  return {
    agentId,
    evalId,
    importId: imp.id,
    importedCalls: imp.totalCalls,
    triagedCalls: triage.triaged,
    created: r.created,
    skipped: r.skipped,
    scenarioIds: r.scenarioIds,
  };
}
