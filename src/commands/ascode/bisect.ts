import type { Context, GlobalOptions } from '../../context.js';
import { UsageError } from '../../errors.js';
import { safeText } from '../../ui/safe-text.js';
import { action } from '../action.js';
import { addSearchOptions, noBudgetError, type SearchOptions, stepVerdict } from '../bisect-options.js';
import type { RegisterGroup } from '../types.js';
import { addDirOption, currentProfile, PROJECT_HELP, type DirOptions } from './common.js';

interface BisectOptions extends DirOptions, SearchOptions {
  good?: string;
  bad?: string;
  suite?: string;
  clean?: boolean;
}

export const register: RegisterGroup = (cmd, makeContext) => {
  addSearchOptions(
    addDirOption(cmd)
      .description('Find the commit that made an agent worse, over the git history of its files, on preview copies; no live agent is touched')
      .argument('[agent-slug]', 'the agent: its folder agents/<agent-slug>/')
      .option('--good <rev>', 'the last commit known good (a commit, branch or tag)')
      .option('--bad <rev>', 'a later commit known bad (e.g. HEAD)')
      .option('--suite <suite>', 'the suite to judge each commit by, agents/<agent-slug>/evals/<suite>.yaml (default: its one gating suite)'),
  )
    .option('--clean', 'only remove the preview copies an earlier, killed bisect of this profile left')
    .addHelpText(
      'after',
      `
The commits searched are the good one, then those after it up to --bad that touched
agents/<agent-slug>/ (first parent, oldest first). Each is read from git without checking
anything out: its agent.md and its suite, parsed as vap reads the files, tool and voice
names resolved in the profile. Each commit tested gets a preview copy (tagged vap-preview,
named "<name> · preview bisect-<commit>") with a copy of that commit's suite, judged by the
adaptive verdict of \`vap evals run --until-decided\` against runs on a copy of the good
commit. The range is halved until the first bad commit is found. The plan (steps, calls at
most) is printed before any call; a commit whose files do not parse or name a tool or voice
the profile does not know is skipped and said, as \`git bisect skip\` does.

The suite: --suite, else the agent's one gating suite (gate: true) at --bad; with several,
--suite is required. Every copy is recorded in .vap/state.<profile>.json before it is made
and removed when its step ends; a search killed midway is cleaned up by the next one, by
--clean, or by \`vap preview --clean\`. Only agents tagged vap-preview with the recorded
name are removed. To undo the first bad commit: \`git revert\` it, then \`vap push\`.

${PROJECT_HELP}

Exit codes: 0 a first bad commit found, or no regression; 3 undecided within --max-calls
(the range left is printed); 1 a run, git or the API failed; 2 bad flags or revisions.

Examples:
  $ vap bisect front-desk --good v1.4 --bad HEAD --max-calls 600
  $ vap bisect front-desk --good HEAD~20 --bad HEAD --suite booking --max-calls 900 --report markdown=bisect.md
  $ vap bisect --clean`,
    )
    .action(action<BisectOptions>(makeContext, (args, opts, ctx) => run(args[0], opts, ctx)));
};

export async function run(slug: string | undefined, opts: BisectOptions & GlobalOptions, ctx: Context): Promise<void> {
  const [{ budgetFrom }, { bisectReportOption }, { openRoot }, { isSlug, SLUG_HINT }, { ProjectCopyStore }, { runSession, cleanLeft }] = await Promise.all([
    import('../../evals/adaptive.js'),
    import('../../bisect/report.js'),
    import('../../ascode/open.js'),
    import('../../ascode/paths.js'),
    import('../../bisect/project-copies.js'),
    import('../../bisect/session.js'),
  ]);
  const report = opts.report === undefined ? undefined : bisectReportOption(opts.report);
  const maxCalls = budgetFrom(opts.maxCalls, ctx.env);
  if (!opts.clean) {
    if (!slug)
      throw new UsageError(
        'bisect needs the agent: vap bisect <agent-slug> --good <rev> --bad <rev>',
        "give the agent's folder name under agents/ (or --clean alone)",
      );
    if (!isSlug(slug)) throw new UsageError(`"${slug}" is not an agent slug`, SLUG_HINT);
    for (const [flag, v] of [
      ['--good', opts.good],
      ['--bad', opts.bad],
    ] as const)
      if (v === undefined) throw new UsageError(`bisect needs ${flag}`, 'give --good <rev> --bad <rev>, e.g. --good v1.4 --bad HEAD');
    if (maxCalls === undefined) throw noBudgetError();
  }
  const profile = await currentProfile(ctx);
  const fs = openRoot(opts.dir ?? '.');
  const store = new ProjectCopyStore(fs, profile);
  if (opts.clean) return cleanLeft(ctx, await ctx.api(), store, true);

  const { gitHistory, versionsOf } = await import('../../bisect/git-versions.js');
  const h = await gitHistory(fs.root, slug!, { good: opts.good!, bad: opts.bad!, suite: opts.suite, profile }, ctx.signal);
  ctx.info(
    safeText(
      `${h.commits.length - 1} commit${h.commits.length === 2 ? '' : 's'} after ${h.commits[0]!.short} touched agents/${slug}/; judged by suite ${h.suite}`,
    ),
  );
  const api = await ctx.api();
  const { profileNames } = await import('../../bisect/names.js');
  const versions = await versionsOf(h.snaps, h.suite, await profileNames(fs, profile, api, ctx.signal));
  const bySha = new Map(h.commits.map((c) => [c.short, c]));
  await runSession(
    ctx,
    api,
    store,
    {
      agentId: '',
      evalId: '',
      agentName: h.agentName,
      versions,
      maxCalls: maxCalls!,
      verdict: stepVerdict(opts),
      keyPrefix: `${slug}.bisect-`,
      word: 'commit',
    },
    {
      json: Boolean(ctx.globals.json),
      report,
      title: `Bisect of ${slug}, commits ${opts.good} to ${opts.bad}`,
      word: 'commit',
      extra: { agent: slug, suite: h.suite, profile },
      undo: (r) => `git revert ${bySha.get(r.first.label)?.merge ? '-m 1 ' : ''}${r.first.label} && vap push --profile ${profile}`,
    },
  );
}
