import type { Context, GlobalOptions } from '../../context.js';
import { GateError, UsageError } from '../../errors.js';
import { safeText } from '../../ui/safe-text.js';
import { action } from '../action.js';
import type { RegisterGroup } from '../types.js';
import { addApplyOptions, applyPlan, type ApplyOptions } from './apply-plan.js';
import { addDirOption, checkProfileName, machineOutput, PROJECT_HELP, growYoungGenerationFast, projectPort, writeFitted } from './common.js';

interface PromoteOptions extends ApplyOptions {
  from?: string;
  to?: string;
  allowUnevaluated?: boolean;
}

export const register: RegisterGroup = (cmd, makeContext) => {
  addApplyOptions(
    addDirOption(cmd)
      .description(
        'Apply to one profile exactly what passed its evals in another, verified on the source platform: the agent and its gating suites there hold the files, and their runs passed the gates',
      )
      .requiredOption('--from <profile>', 'the profile where the agents passed (a gated push there recorded the runs; each is checked there)')
      .requiredOption('--to <profile>', 'the profile to apply them to (added to vap.yaml when missing)')
      .option('--allow-unevaluated', 'also carry agents with no gating suite, and webhook endpoints (nothing evaluates them)'),
    'promote',
  )
    .addHelpText(
      'after',
      `
The target is planned as \`vap push --profile <to>\` plans it. Then each agent the plan
would change (its agent.md or one of its suites) must have passed in the source, as the
source platform shows it now. The source's state names the runs a gated push
(\`vap push --profile <from> --eval\`) recorded; promote checks on the source platform:
  - the agent there holds what the files hold, and so does each gating suite;
  - each recorded run exists under that agent, in one of its gating suites, completed,
    made on the agent's current version there;
  - each run passes the gates: this command's gate flags, else vap.yaml's gates:
    (the text a reviewer reads), never anything from the state;
  - every gating suite has such a run.
Refused, by name, with the check that failed, exit 3 and nothing sent: an agent that
never passed in the source, was edited since, drifted there, or whose runs are gone,
invented, of another suite, of an earlier version, or below a gate; an agent that only
passed a preview (its copies are gone: a gated push to the source qualifies it); an
agent with no gating suite, and a webhook endpoint, unless --allow-unevaluated.
What is carried is applied as a push applies it: the plan, a confirmation on a terminal
(--yes without one), resource by resource and kill-safe, --json, --eval with the same
gates and baseline in the target, and the same exit codes.

Credentials: each profile's key is its own. For a profile other than the active one,
VAP_API_KEY_<PROFILE> (VAP_API_KEY_PROD for prod) or the key \`vap auth login --profile
<name>\` stored; VAP_BASE_URL_<PROFILE>, then VAP_BASE_URL, for its base URL.

${PROJECT_HELP}

Exit codes: 0 promoted, 1 something was not applied, 2 bad files or flags, 3 refused
(or an --eval gate failed in the target, rolled back), 4 auth, 124, 130.

Examples:
  $ vap promote --from staging --to prod --dry-run
  $ vap promote --from staging --to prod --min-score 0.8 --fail-on-regression --yes
  $ vap promote --from staging --to prod --yes
  $ VAP_API_KEY_STAGING=… VAP_API_KEY_PROD=… vap promote --from staging --to prod --yes --json`,
    )
    .action(action<PromoteOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
};

export async function run(opts: PromoteOptions & GlobalOptions, ctx: Context): Promise<void> {
  await growYoungGenerationFast();
  // The gate flags are the promotion's gates (checked in the source, and with --eval in the target).
  if (!opts.eval) {
    const needEval = [opts.report?.length && '--report', opts.untilDecided && '--until-decided', opts.maxCalls !== undefined && '--max-calls'].filter(
      (x): x is string => typeof x === 'string',
    );
    if (needEval.length)
      throw new UsageError(`${needEval.join(', ')} ${needEval.length === 1 ? 'needs' : 'need'} --eval`, 'add --eval to run the gating suites in the target');
  }
  const from = checkProfileName(opts.from ?? '', '--from');
  const to = checkProfileName(opts.to ?? '', '--to');
  if (from === to) throw new UsageError(`--from and --to are both "${from}"`, 'promote carries what passed in one profile to another');
  const [{ openProject, planFor }, { loadState, stateFile }, { checkPromotion, SourceEvidence }, { readGatesAhead }, { withConfigGates }, { gateSpec }] =
    await Promise.all([
      import('../../ascode/open.js'),
      import('../../ascode/state.js'),
      import('../../ascode/promote.js'),
      import('../../ascode/passed.js'),
      import('./gates.js'),
      import('../../evals/settings.js'),
    ]);
  // The target is read while the files are parsed, as diff reads it (a file problem stops
  // the reads at once); nothing is written before the files, the plan and the check pass.
  const port = projectPort(ctx);
  const project = await openProject(opts, port, to, { api: () => ctx.apiFor(to) }, { addProfile: true });
  const gated = withConfigGates(opts, project.config.gates);
  const source = await loadState(project.fs, from);
  if (Object.keys(source.agents).length === 0 && Object.keys(source.passed).length === 0) {
    throw new UsageError(
      `profile "${from}" has no state in this project (${stateFile(from)}): nothing has passed there`,
      `push to it with \`vap push --profile ${from} --eval\` first`,
    );
  }
  const [api, sourceApi] = await Promise.all([ctx.apiFor(to), ctx.apiFor(from)]);
  // While the plan waits for the target platform, the check's reads of the source platform
  // and its parsing of gating suites are done ahead.
  const evidence = new SourceEvidence(sourceApi, ctx);
  evidence.readAhead(project.files, source);
  let planning = true;
  const planned = planFor(project, api, { force: opts.force, prune: opts.prune, replaceSuite: opts.replaceSuite }, port).finally(() => (planning = false));
  const ahead = readGatesAhead(project.files, () => !planning);
  const plan = await planned;
  await ahead;
  // A run of the source's live agent: its "live" baseline is its previous run.
  const spec = gateSpec(gated);
  const gates = spec.baseline?.kind === 'live' ? { ...spec, baseline: { kind: 'previous' as const } } : spec;
  const check = await checkPromotion({ plan, files: project.files, source, from, to, evidence, gates, allowUnevaluated: Boolean(opts.allowUnevaluated) });

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
  await applyPlan(ctx, { project, api, plan, opts: gated, verb: 'promote', afterPlan });
}
