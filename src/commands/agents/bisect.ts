import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { action } from '../action.js';
import { addSearchOptions, noBudgetError, type SearchOptions, stepVerdict } from '../bisect-options.js';
import { positiveInt } from '../listing.js';
import type { ContextFactory } from '../types.js';

export interface BisectOptions extends SearchOptions {
  suite?: string;
  good?: number;
  bad?: number;
  clean?: boolean;
}

export function bisectCommand(makeContext: ContextFactory): Command {
  return addSearchOptions(
    new Command('bisect')
      .description('Find the version that made an agent worse, on preview copies, at the fewest calls; the live agent is untouched')
      .argument('<agentId>', 'the agent id')
      .option('--suite <evalId>', 'the eval suite to judge each version by (copied with each preview)')
      .option('--good <version>', 'the last version known good', positiveInt('--good'))
      .option('--bad <version>', 'a later version known bad', positiveInt('--bad')),
  )
    .option('--clean', 'only remove the preview copies an earlier, killed bisect left')
    .addHelpText(
      'after',
      `
Each version tested gets a preview copy (tagged vap-preview, named "<name> · preview
bisect-<n>") built from that version's content (instructions, voice, tools, engine,
variables) with a copy of the suite. The copy's runs are judged by the adaptive verdict
of \`vap evals run --until-decided\` against the good version: its completed runs on
the suite, pooled, topped up with runs on a copy of it. The range is halved until
the first bad version is found. The plan (steps, calls at most) is printed before any
call; an undecided step is tested again while the budget allows, else the range left
is reported; a version whose copy cannot be built (a tool gone) is skipped and said.

The live agent is never changed. Every copy is recorded in vap's state folder before
it is made and removed when its step ends; a search killed midway is cleaned up by
the next one, or by --clean. Only agents tagged vap-preview with the recorded name are
removed. The platform's version entries must carry their content (the emulator's do);
where they do not, bisect says so: in an as-code project use \`vap bisect\`.

Exit codes: 0 a first bad version found, or no regression; 3 undecided within
--max-calls (the range left is printed); 1 a run or the API failed; 2 bad flags.

Examples:
  $ vap agents bisect ag_3k9x0c1m2p8q7r4t --suite ev_8d2k1m0q7r3t9x4c --good 3 --bad 12 --max-calls 600
  $ vap agents bisect ag_3k9x0c1m2p8q7r4t --suite ev_8d2k1m0q7r3t9x4c --good 3 --bad 12 --max-calls 600 --json --report markdown=bisect.md
  $ vap agents bisect ag_3k9x0c1m2p8q7r4t --clean`,
    )
    .action(action<BisectOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(agentId: string, opts: BisectOptions, ctx: Context): Promise<void> {
  const [{ budgetFrom }, { bisectReportOption }, { ProfileCopyStore }, { platformVersions }, { runSession, cleanLeft }] = await Promise.all([
    import('../../evals/adaptive.js'),
    import('../../bisect/report.js'),
    import('../../bisect/copies.js'),
    import('../../bisect/content.js'),
    import('../../bisect/session.js'),
  ]);
  const report = opts.report === undefined ? undefined : bisectReportOption(opts.report);
  if (!opts.clean) {
    for (const [flag, v] of [
      ['--suite', opts.suite],
      ['--good', opts.good],
      ['--bad', opts.bad],
    ] as const) {
      if (v === undefined) throw new UsageError(`bisect needs ${flag}`, 'give --suite <evalId> --good <version> --bad <version> (or --clean alone)');
    }
  }
  const maxCalls = budgetFrom(opts.maxCalls, ctx.env);
  if (!opts.clean && maxCalls === undefined) throw noBudgetError();
  const creds = await ctx.credentials();
  const api = await ctx.api();
  const store = new ProfileCopyStore(ctx.env, creds.profile ?? 'default', { baseUrl: creds.baseUrl, apiKey: creds.apiKey });
  if (opts.clean) return cleanLeft(ctx, api, store, true);
  const { agent, versions, notes } = await platformVersions(api, agentId, opts.good!, opts.bad!, ctx.signal);
  for (const n of notes) await ctx.warn(n);
  await runSession(
    ctx,
    api,
    store,
    {
      agentId,
      evalId: opts.suite!,
      agentName: agent.name,
      versions,
      maxCalls: maxCalls!,
      verdict: stepVerdict(opts),
      keyPrefix: 'bisect-',
      liveGoodVersion: opts.good,
    },
    {
      json: Boolean(ctx.globals.json),
      report,
      title: `Bisect of ${agent.name} (${agentId}), versions ${opts.good} to ${opts.bad}`,
      word: 'version',
      extra: { agentId, evalId: opts.suite },
      undo: (r) => `vap agents rollback ${agentId} --version ${r.lastGood.version} --reason "bisect: version ${r.first.version} regressed"`,
    },
  );
}
