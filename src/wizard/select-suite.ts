import type { ApiClient } from '../api/client.js';
import { createSuite, listSuites } from '../api/evals.js';
import type { Context } from '../context.js';

const NEW = '\u0000new';

/** Step 2: the eval suite, from --eval, or chosen among the agent's suites, or a new one. */
export async function selectSuite(given: string | undefined, agentId: string, api: ApiClient, ctx: Context): Promise<string> {
  if (given) return given;
  const suites = await listSuites(api, agentId, ctx.signal);
  const choice = await ctx.prompter.select(
    'Eval suite',
    [
      ...suites.map((s) => ({ name: `${s.name}  ${s.id}  (${s.scenarioCount ?? 0} scenarios, ${s.status})`, value: s.id })),
      { name: '+ Create a new suite', value: NEW },
    ],
    { flag: '--eval <evalId>' },
  );
  if (choice !== NEW) return choice;
  const name = await ctx.prompter.input('Name of the new suite', {
    flag: '--eval <evalId>',
    validate: (v) => (v.trim() ? (v.trim().length <= 200 ? true : 'at most 200 characters') : 'give the suite a name'),
  });
  const suite = await createSuite(api, agentId, { name: name.trim(), iterationsPerScenario: 1 });
  await ctx.success(`Created suite ${suite.name} (${suite.id})`);
  return suite.id;
}
