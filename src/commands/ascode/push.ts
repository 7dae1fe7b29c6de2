import type { Context, GlobalOptions } from '../../context.js';
import { action } from '../action.js';
import type { RegisterGroup } from '../types.js';
import { addApplyOptions, applyPlan, checkEvalFlags, type ApplyOptions } from './apply-plan.js';
import { addDirOption, currentProfile, PROJECT_HELP, growYoungGenerationFast, projectPort } from './common.js';

export const register: RegisterGroup = (cmd, makeContext) => {
  addApplyOptions(
    addDirOption(cmd).description(
      "Apply the files to the profile's organization: create, update, and (with --prune) delete; with --eval, run the gating suites and roll back on failure",
    ),
    'push',
  )
    .option('--all', 'with --eval: also run the gating suites of the agents the push did not change (to record what passes before a first promotion)')
    .addHelpText(
      'after',
      `
The plan is printed first (as \`vap diff\` prints it), then confirmed on a terminal;
without one, --yes is needed. Resources are applied one by one: creates; PATCHes of
only the fields that changed (an instructions change makes one new version, with the
reason); PUTs of voice and tools only when they changed; new scenarios. Each is read
back and compared with its file: a field the platform did not keep is reported.
Tools and voices are resolved by name in the profile before anything is sent.

Drift and conflicts stop their resource with a one-line reason unless --force. A
deleted file is applied only with --prune. The state is written after each resource,
and the intent before each create: a push killed at any point and run again creates
nothing twice. A partial failure exits 1 and lists what was and was not applied; the
next push continues.

With --eval, the gating suites of the agents that changed run with the gates of
\`vap evals run --wait\` (--min-score, --min-criterion, --allow-failed-iterations,
--baseline previous|version:n|<runId>|live, --fail-on-regression, --min-effect,
--report, --timeout); a gate not given as a flag is taken from vap.yaml's gates:
(\`gates: { min-score: 0.8, fail-on-regression: true }\`). When one fails, each
changed agent is rolled back to its version before the push (the reason names the
push and the gate) and its voice and tools are restored; the exit is 3 (1 when a run
failed). --fail-on-regression rolls back on a significant regression against the
baseline only (default baseline: the suite's previous run, made against the live
version), not on noise. When every gate passes, the runs are recorded as passed in
the profile's state: what \`vap promote --from <this profile>\` checks on the
platform before it carries them. Ctrl-C or --timeout leaves the platform as pushed
and prints the command that finishes the gate or the rollback.

A profile vap.yaml does not list yet is added to it (as pull does). Tool names are
resolved in the profile from the tools of the agents vap reads there (the API has no
tool listing); names no agent of the profile uses are listed together, with the
vap.yaml lines to add.

--json prints, instead of the plan, what the push did: { pushId, profile, plan,
applied, failed, notApplied } (with --eval, each run's document follows, as
\`vap evals run --wait --json\` prints it). A new webhook's secret is a line of its own.

${PROJECT_HELP}

Exit codes: 0 applied (and the evals passed), 1 something was not applied (or a run
failed), 2 bad files or flags (nothing sent), 3 a gate failed (rolled back), or with
--exit-code anything left unapplied (deletions without --prune), 4 auth, 124 --timeout,
130 Ctrl-C.

Examples:
  $ vap push --dry-run
  $ vap push --profile staging --eval --min-score 0.8 --reason "friendlier greeting"
  $ vap push --profile staging --eval --baseline previous --fail-on-regression --yes
  $ vap push --profile staging --eval --all --yes     (before a first promotion)
  $ vap push --profile prod --yes
  $ vap push --prune --replace-suite`,
    )
    .action(action<ApplyOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
};

export async function run(opts: ApplyOptions & GlobalOptions, ctx: Context): Promise<void> {
  await growYoungGenerationFast();
  checkEvalFlags(opts);
  const [{ openProject, planFor }, { withConfigGates }] = await Promise.all([import('../../ascode/open.js'), import('./gates.js')]);
  const port = projectPort(ctx);
  const project = await openProject(opts, port, await currentProfile(ctx), undefined, { addProfile: true });
  const api = await ctx.api();
  const plan = await planFor(project, api, { force: opts.force, prune: opts.prune, replaceSuite: opts.replaceSuite }, port);
  await applyPlan(ctx, { project, api, plan, opts: opts.eval ? withConfigGates(opts, project.config.gates) : opts, verb: 'push' });
}
