import type { Context, GlobalOptions } from '../../context.js';
import { GateError, UsageError } from '../../errors.js';
import { safeText } from '../../ui/safe-text.js';
import { action } from '../action.js';
import type { RegisterGroup } from '../types.js';
import { addApplyOptions, applyPlan, checkEvalFlags, type ApplyOptions } from './apply-plan.js';
import { addDirOption, checkProfileName, machineOutput, PROJECT_HELP, growYoungGenerationFast, writeFitted } from './common.js';

interface PromoteOptions extends ApplyOptions {
  from?: string;
  to?: string;
  allowUnevaluated?: boolean;
}

export const register: RegisterGroup = (cmd, makeContext) => {
  addApplyOptions(
    addDirOption(cmd)
      .description('Apply to one profile exactly what passed its evals in another: the files of each agent must have passed its gating suites in the source, unchanged since')
      .requiredOption('--from <profile>', 'the profile where the agents passed (a gated push or a preview there recorded it)')
      .requiredOption('--to <profile>', 'the profile to apply them to (added to vap.yaml when missing)')
      .option('--allow-unevaluated', 'also carry agents with no gating suite, and webhook endpoints (nothing evaluates them)'),
    'promote',
  )
    .addHelpText(
      'after',
      `
The target is planned as \`vap push --profile <to>\` plans it. Then each agent the plan
would change (its agent.md or one of its suites) must have passed in the source: a
\`vap push --profile <from> --eval\` whose gates passed, or a \`vap preview --profile
<from>\` that passed, recorded in .vap/state.<from>.json the content of the files that
passed (the agent and its gating suites, comments and formatting aside) and the runs.
Refused, by name, with exit 3 and nothing sent:
  - an agent whose files never passed in the source (or failed a gated push there
    since), or were edited since they did;
  - an agent whose source platform config changed since it passed (drift in the source);
  - an agent with no gating suite, and a webhook endpoint, unless --allow-unevaluated.
What is carried is applied as a push applies it: the plan, a confirmation on a terminal
(--yes without one), resource by resource and kill-safe, --json, --eval with its gates
and baseline in the target, and the same exit codes.

Credentials: each profile's key is its own. For a profile other than the active one,
VAP_API_KEY_<PROFILE> (VAP_API_KEY_PROD for prod) or the key \`vap auth login --profile
<name>\` stored; VAP_BASE_URL_<PROFILE>, then VAP_BASE_URL, for its base URL.

${PROJECT_HELP}

Exit codes: 0 promoted, 1 something was not applied, 2 bad files or flags, 3 refused
(or an --eval gate failed in the target, rolled back), 4 auth, 124, 130.

Examples:
  $ vap promote --from staging --to prod --dry-run
  $ vap promote --from staging --to prod --yes
  $ VAP_API_KEY_STAGING=… VAP_API_KEY_PROD=… vap promote --from staging --to prod --yes --json`,
    )
    .action(action<PromoteOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
};

export async function run(opts: PromoteOptions & GlobalOptions, ctx: Context): Promise<void> {
  await growYoungGenerationFast();
  checkEvalFlags(opts);
  const from = checkProfileName(opts.from ?? '', '--from');
  const to = checkProfileName(opts.to ?? '', '--to');
  if (from === to) throw new UsageError(`--from and --to are both "${from}"`, 'promote carries what passed in one profile to another');
  const [{ openProject, planFor }, { loadState, stateFile }, { checkPromotion, SourceAgents }, { RemoteReader }, { readGatesAhead }] = await Promise.all([
    import('../../ascode/open.js'),
    import('../../ascode/state.js'),
    import('../../ascode/promote.js'),
    import('../../ascode/remote.js'),
    import('../../ascode/passed.js'),
  ]);
  // The target is read while the files are parsed, as diff reads it (a file problem stops
  // the reads at once); nothing is written before the files, the plan and the check pass.
  const project = await openProject(opts, ctx, to, { api: () => ctx.apiFor(to) }, { addProfile: true });
  const source = await loadState(project.fs, from);
  if (Object.keys(source.agents).length === 0 && Object.keys(source.passed).length === 0) {
    throw new UsageError(`profile "${from}" has no state in this project (${stateFile(from)}): nothing has passed there`, `push to it with \`vap push --profile ${from} --eval\`, or preview there, first`);
  }
  const [api, sourceApi] = await Promise.all([ctx.apiFor(to), ctx.apiFor(from)]);
  // While the plan waits for the target platform, the check's reads of the source platform
  // and its parsing of gating suites are done ahead.
  const sourceAgents = new SourceAgents(new RemoteReader(sourceApi, ctx.signal));
  sourceAgents.readAhead(project.files, source);
  let planning = true;
  const planned = planFor(project, api, { force: opts.force, prune: opts.prune, replaceSuite: opts.replaceSuite }, ctx).finally(() => (planning = false));
  const ahead = readGatesAhead(project.files, () => !planning);
  const plan = await planned;
  await ahead;
  const check = await checkPromotion({ plan, files: project.files, source, from, sourceAgents, allowUnevaluated: Boolean(opts.allowUnevaluated) });

  const lines = [
    ...check.carried.map((c) => `  ✓ ${c.kind} ${safeText(c.key)}: ${safeText(c.why)}`),
    ...check.refused.map((c) => `  ✗ ${c.kind} ${safeText(c.key)}: ${safeText(c.why)}`),
  ];
  const afterPlan = lines.length ? `\nFrom profile "${safeText(from)}":\n${lines.join('\n')}\n` : '';
  if (check.refused.length) {
    if (machineOutput(ctx)) {
      const { planJson } = await import('../../ascode/render.js');
      const { hasChanges } = await import('../../ascode/plan.js');
      await ctx.out.data({ promoteId: null, from, to, refused: check.refused, carried: check.carried, plan: planJson(plan, hasChanges(plan)) });
    } else {
      const { renderPlan } = await import('../../ascode/render.js');
      await writeFitted(ctx, renderPlan(plan, await ctx.stdoutStyle()) + afterPlan);
    }
    const names = check.refused.map((r) => `${r.kind} ${r.key}`).join(', ');
    throw new GateError(`promotion refused for ${names}: not what passed in profile "${from}" (listed above); nothing was sent`);
  }
  await applyPlan(ctx, { project, api, plan, opts, verb: 'promote', afterPlan });
}
