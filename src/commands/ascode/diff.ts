import type { Context, GlobalOptions } from '../../context.js';
import { SilentExit } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { action } from '../action.js';
import type { RegisterGroup } from '../types.js';
import { addDirOption, machineOutput, PROJECT_HELP, type DirOptions, growYoungGenerationFast, projectPort, writeFitted } from './common.js';

interface DiffOptions extends DirOptions {
  exitCode?: boolean;
}

export const register: RegisterGroup = (cmd, makeContext) => {
  addDirOption(cmd)
    .description('Show the plan: what a push would change, and what changed on the platform since the last sync')
    .option('--exit-code', 'exit 3 when there is anything to apply or any drift, 0 when there is nothing (for CI)')
    .addHelpText(
      'after',
      `
Each resource (agent, eval suite, webhook endpoint) is compared three ways: the files,
the last sync (.vap/state.<profile>.json) and the platform now. It is one of:
  = unchanged     the three agree
  + create        a file the profile has never pushed
  ~ update        changed in the files (field by field; instructions as a unified diff)
  - delete        tracked, but its file was removed (applied only by push --prune)
  ! drift         changed on the platform since the last sync (push refuses it without --force)
  ! conflict      changed in the files and on the platform
  ✗ blocked       a suite change the API cannot make (an edited or removed scenario);
                  push --replace-suite replaces the suite
Diffs read from the platform (−) to the files (+): what a push does.

--json prints the plan for programs: { profile, changes, summary, resources: [{ kind,
key, name, file, action, id, changes: [{ field, platform, files }], drift, reason }],
untracked }.

${PROJECT_HELP}

Examples:
  $ vap diff
  $ vap plan --profile staging
  $ vap diff --profile prod --exit-code        (exit 3: changes or drift)
  $ vap diff --json | jq '.resources[] | select(.action != "unchanged")'`,
    )
    .action(action<DiffOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
};

export async function run(opts: DiffOptions & GlobalOptions, ctx: Context): Promise<void> {
  await growYoungGenerationFast();
  const [{ planFolder }, { planJson, renderPlan }] = await Promise.all([import('../../ascode/plan-folder.js'), import('../../ascode/render.js')]);
  const { plan, changed } = await planFolder(projectPort(ctx), opts);
  if (machineOutput(ctx)) await ctx.out.data(planJson(plan, changed));
  else await writeFitted(ctx, renderPlan(plan, await ctx.stdoutStyle()));
  if (opts.exitCode && changed) throw new SilentExit(ExitCode.GATE);
}
