import type { ApiClient } from '../api/client.js';
import { createSuite, deleteSuite, listSuites } from '../api/evals.js';
import type { Context } from '../context.js';
import { safe } from '../ui/safe-text.js';

const NEW = '\u0000new';

/** The suite the wizard works in; `created` when the wizard made it (it is removed again if nothing gets imported). */
export interface ChosenSuite {
  id: string;
  name?: string;
  created: boolean;
}

/** Step 2: the eval suite, from --eval, or chosen among the agent's suites, or a new one. */
export async function selectSuite(given: string | undefined, agentId: string, api: ApiClient, ctx: Context): Promise<ChosenSuite> {
  if (given) return { id: given, created: false };
  const suites = await listSuites(api, agentId, ctx.signal);
  const choice = await ctx.prompter.select(
    'Eval suite',
    [
      ...suites.map((s) => ({ name: `${s.name}  ${s.id}  (${s.scenarioCount ?? 0} scenarios, ${s.status})`, value: s.id })),
      { name: '+ Create a new suite', value: NEW },
    ],
    { flag: '--eval <evalId>' },
  );
  if (choice !== NEW) return { id: choice, name: suites.find((s) => s.id === choice)?.name, created: false };
  const name = await ctx.prompter.input('Name of the new suite', {
    flag: '--eval <evalId>',
    validate: (v) => (v.trim() ? (v.trim().length <= 200 ? true : 'at most 200 characters') : 'give the suite a name'),
  });
  const suite = await createSuite(api, agentId, { name: name.trim(), iterationsPerScenario: 1 });
  await ctx.success(safe`Created suite ${suite.name} (${suite.id}); it is removed again if the wizard stops before the calls are imported`);
  return { id: suite.id, name: suite.name, created: true };
}

/**
 * A suite the wizard created, taken away again because the wizard stopped (Ctrl-C, an error,
 * a refusal) before any call was imported into it: the user never committed to it. Said on
 * stderr; a failure to remove it is a warning naming the command that does it.
 */
export async function removeCreatedSuite(suite: ChosenSuite, agentId: string, api: ApiClient, ctx: Context): Promise<void> {
  try {
    await deleteSuite(api, agentId, suite.id);
    ctx.info(safe`Removed suite ${suite.name ?? suite.id} (${suite.id}), created for this import: nothing was imported`);
  } catch (err) {
    await ctx.warn(
      safe`could not remove suite ${suite.name ?? suite.id} (${suite.id}), created for this import: ${(err as Error).message}; delete it with \`vap evals delete ${suite.id} --agent ${agentId} --yes\``,
    );
  }
}
