import type { ApiClient } from '../api/client.js';
import { listImports, type CallImport } from '../api/eval-imports.js';
import type { Context } from '../context.js';
import { CliError } from '../errors.js';

const NEW = '\u0000new';

/**
 * Step 3: an import left un-triaged (Ctrl-C, a failure) is offered for resumption; --import
 * names one, --resume takes the newest. Answers the import to resume, or undefined for a new one.
 */
export async function chooseResume(
  plan: { importId?: string; resume: boolean; sourceGiven: boolean },
  ids: { agentId: string; evalId: string },
  api: ApiClient,
  ctx: Context,
): Promise<CallImport | undefined> {
  if (plan.importId) {
    const found = (await listImports(api, ids.agentId, ids.evalId, ctx.signal)).find((i) => i.id === plan.importId);
    if (!found)
      throw new CliError(
        `no import ${plan.importId} in suite ${ids.evalId}`,
        undefined,
        `see \`vap evals imports list --agent ${ids.agentId} --eval ${ids.evalId}\``,
      );
    return found;
  }
  // A script that names its source starts a new import; so does a terminal user who passed one.
  if (!plan.resume && (plan.sourceGiven || !ctx.prompter.canPrompt)) return undefined;
  const open = (await listImports(api, ids.agentId, ids.evalId, ctx.signal)).filter((i) => i.status !== 'triaged' && i.triagedCalls < i.totalCalls);
  if (plan.resume) {
    if (open.length === 0) throw new CliError(`suite ${ids.evalId} has no import left to triage`, undefined, 'start a new import: drop --resume');
    return open[0];
  }
  if (open.length === 0) return undefined;
  const choice = await ctx.prompter.select(
    'This suite has an import that was not triaged to the end',
    [
      ...open.map((i) => ({ name: `Resume ${i.id}: ${i.label} — ${i.triagedCalls}/${i.totalCalls} triaged`, value: i.id })),
      { name: 'Start a new import', value: NEW },
    ],
    { flag: '--resume or --import <importId>' },
  );
  return open.find((i) => i.id === choice);
}
