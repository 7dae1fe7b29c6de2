import { execFile } from 'node:child_process';
import type { Context, Env, GlobalOptions } from '../../context.js';
import { CliError, GateError, UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { safe, safeText } from '../../ui/safe-text.js';
import { action } from '../action.js';
import { DEFAULT_TIMEOUT_MS, followSettings, type WaitOptions } from '../../evals/settings.js';
import { addBaselineOptions, addBudgetOptions, addFollowOptions, addGateOptions } from '../eval-options.js';
import type { RegisterGroup } from '../types.js';
import { addDirOption, currentProfile, PROJECT_HELP, type DirOptions, growYoungGenerationFast, projectPort } from './common.js';

interface PreviewOptions extends DirOptions, Omit<WaitOptions, 'wait'> {
  all?: boolean;
  label?: string;
  keep?: boolean;
  clean?: boolean;
}

export const register: RegisterGroup = (cmd, makeContext) => {
  addDirOption(cmd)
    .description("Evaluate the branch's files on preview copies of the changed agents, against the live agents' runs; no live agent is touched")
    .option('--all', 'every agent with a gating suite, changed or not')
    .option('--label <label>', 'names the preview agents `<name> · preview <label>` (default: the git branch)')
    .option('--keep', 'keep the preview agents and suites afterwards (the next preview, or --clean, removes them)')
    .option('--clean', 'only remove what earlier previews of this profile left (a killed preview, --keep)');
  addFollowOptions(addBudgetOptions(addBaselineOptions(addGateOptions(cmd), 'each run')), {
    timeout: 'give up waiting after this long with exit 124',
    report: 'write a report of each run, as `evals run --report` does (repeatable); with several runs each file name gets .<agent>.<suite>',
    poll: "learn of a run's end by polling only",
  })
    .addHelpText(
      'after',
      `
For each agent whose files differ from the platform (its agent.md, or one of its
gating suites), preview makes a preview agent in the profile: the same engine,
voice, tools and variables, the file's instructions, named "<name> · preview
<label>" and tagged vap-preview, with copies of its gating suites (gate: true:
criteria, scenarios, iterations). It says how many calls the runs will place
(scenarios × iterations), runs the copies, and follows them with the gates and
reports of \`vap evals run --wait\`. Then it deletes what it made, unless --keep.
--max-calls (or VAP_MAX_CALLS) is one budget for every suite it runs: a preview
whose runs would pass it is refused (exit 2) before anything is made. With
--until-decided, each suite runs again on its copy while its verdict against the
live agent is undecided, within its share of the budget.

--baseline live (the default) compares each run with the live agent's newest
completed run of the same suite, scenarios matched by name: the verdict says whether
the branch is better or worse than what the profile runs now. previous is the same
run; version:<n> the live suite's newest completed run on version n; a run id, that
run of the live suite. --fail-on-regression exits 3 on a significant regression only.

Live agents are never written to: their versions, tools, voices and suites stay as
they are. Every resource a preview makes is recorded in .vap/state.<profile>.json
before it is made, so a preview killed at any point is cleaned up by the next one, or
by \`vap preview --clean\`. The clean-up trusts the platform, not that record: it
deletes an agent only when it carries the vap-preview tag and the recorded preview
name, and suites only under such an agent; anything else is left, and said.

An agent whose every copied suite passed is recorded as having passed a preview. A
preview does not qualify a promotion (its copies, the evidence, are removed): \`vap
promote\` carries what a gated push to the profile (\`vap push --eval\`) ran on the
agent there. --all evaluates every agent with a gating suite, changed or not.

${PROJECT_HELP}

Exit codes: 0 passed, 3 a gate failed, 1 a run failed (or the API did), 2 bad files or
flags, 4 auth, 124 --timeout, 130 Ctrl-C; the previews are removed in each case.

Examples:
  $ vap preview --profile staging
  $ vap preview --profile staging --baseline live --fail-on-regression --report markdown=evals.md --report html=evals.html
  $ vap preview --label pr-42 --min-score 0.8 --keep
  $ vap preview --all --profile staging
  $ vap preview --fail-on-regression --until-decided --max-calls 300
  $ vap preview --clean`,
    )
    .action(action<PreviewOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
};

/** The label a preview is named with: --label, else the pull request's branch (GitHub Actions), else git's branch. */
async function labelFor(opts: PreviewOptions, env: Env, cwd: string): Promise<string> {
  const raw = opts.label ?? env.GITHUB_HEAD_REF ?? (await gitBranch(cwd)) ?? 'local';
  const label = raw.replace(/[^\w./-]+/g, '-').slice(0, 60);
  if (!label) throw new UsageError('--label is empty', 'give the preview a label, e.g. --label pr-42');
  return label;
}

function gitBranch(cwd: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', ['rev-parse', '--abbrev-ref', 'HEAD'], { cwd, timeout: 5000 }, (err, stdout) => {
      const b = String(stdout ?? '').trim();
      resolve(err || !b || b === 'HEAD' ? undefined : b);
    });
  });
}

type PreviewModule = typeof import('../../ascode/preview.js');
type Project = Awaited<ReturnType<typeof import('../../ascode/open.js').openProject>>;
type Api = Awaited<ReturnType<Context['api']>>;
type Subjects = ReturnType<PreviewModule['previewSubjects']>['subjects'];
type Plan = Awaited<ReturnType<typeof import('../../ascode/open.js').planFor>>;

export async function run(opts: PreviewOptions & GlobalOptions, ctx: Context): Promise<void> {
  await growYoungGenerationFast();
  if (opts.keep && opts.clean) throw new UsageError('--keep and --clean say opposite things', 'pass one of them');
  const [{ openProject, planFor }, preview] = await Promise.all([import('../../ascode/open.js'), import('../../ascode/preview.js')]);
  const profile = await currentProfile(ctx);
  const port = projectPort(ctx);
  const project = await openProject(opts, port, profile, undefined, { addProfile: true });
  const api = await ctx.api();

  // What earlier previews left (a kill, --keep) goes first.
  const left = await removeLeftovers(ctx, api, project, preview);
  if (opts.clean) {
    if (left) throw new CliError(`${left} preview entr${left === 1 ? 'y' : 'ies'} of profile "${profile}" left in place (said above)`, ExitCode.FAILURE);
    await ctx.success(`No preview is left in profile "${safeText(profile)}"`);
    return;
  }

  const plan = await planFor(project, api, {}, port);
  const { subjects, ungated } = preview.previewSubjects(project, plan, Boolean(opts.all));
  for (const slug of ungated) await ctx.warn(safe`agent ${slug} differs from the platform but has no gating suite (gate: true): not previewed`);
  if (subjects.length === 0) {
    await ctx.success(`Nothing to preview: no agent with a gating suite differs from profile "${safeText(profile)}"`);
    return;
  }
  const label = await labelFor(opts, ctx.env, project.root);
  const round = { plan, subjects, label, profile };
  const { settings, budget } = await settingsAndBudget(opts, ctx, api, project, round, preview);
  let failure: unknown;
  try {
    failure = await previewAndGate(ctx, api, project, round, { settings, budget }, preview);
  } catch (err) {
    failure = err;
  } finally {
    await keepOrRemove(opts, ctx, api, project, preview);
  }
  if (failure) throw failure;
}

async function removeLeftovers(ctx: Context, api: Api, project: Project, preview: PreviewModule): Promise<number> {
  if (Object.keys(project.state.previews).length === 0) return 0;
  const c = await preview.cleanPreviews(ctx, api, project);
  if (c.agents) ctx.info(`Removed ${c.agents} preview agent${c.agents === 1 ? '' : 's'} an earlier preview left`);
  return c.left.length;
}

interface PreviewRound {
  plan: Plan;
  subjects: Subjects;
  label: string;
  profile: string;
}

/** The follow settings and the budget of the round, said before anything is made; a budget that does not hold is refused here. */
async function settingsAndBudget(opts: PreviewOptions, ctx: Context, api: Api, project: Project, round: PreviewRound, preview: PreviewModule) {
  const { subjects, label } = round;
  const [{ budgetLines }, { withConfigGates }, { budgetFrom, checkUntilDecided }] = await Promise.all([
    import('../../ascode/eval-gate.js'),
    import('./gates.js'),
    import('../../evals/adaptive.js'),
  ]);
  const settings = followSettings({ ...withConfigGates(opts, project.config.gates), wait: true, timeout: opts.timeout ?? DEFAULT_TIMEOUT_MS });
  const calls = preview.callsToPlace(subjects);
  const suites = subjects.reduce((n, s) => n + s.suites.length, 0);
  const budget = { maxCalls: budgetFrom(opts.maxCalls, ctx.env), untilDecided: Boolean(opts.untilDecided) };
  checkUntilDecided(budget.untilDecided, budget.maxCalls, true);
  const estimate = await budgetLines(
    api,
    project.state,
    subjects.flatMap((s) => s.suites),
    budget,
    `preview "${label}"`,
    ctx.signal,
  );
  ctx.info(
    `Preview "${safeText(label)}" of ${subjects.length} agent${subjects.length === 1 ? '' : 's'} (${safeText(subjects.map((s) => s.slug).join(', '))}): ${suites} suite${suites === 1 ? '' : 's'}, ${calls} call${calls === 1 ? '' : 's'} to place (scenarios × iterations)`,
  );
  for (const line of estimate) ctx.info(safeText(line));
  return { settings, budget };
}

type RoundSettings = Awaited<ReturnType<typeof settingsAndBudget>>;

/** Makes the copies, runs their gating suites and records the passes; returns the failure to throw, if any. */
async function previewAndGate(
  ctx: Context,
  api: Api,
  project: Project,
  round: PreviewRound,
  { settings, budget }: RoundSettings,
  preview: PreviewModule,
): Promise<unknown> {
  const { plan, subjects, label, profile } = round;
  const [{ runGatingSuites, passedAgents }, { saveState }] = await Promise.all([import('../../ascode/eval-gate.js'), import('../../ascode/state.js')]);
  const { targets } = await preview.makePreviews(ctx, api, project, plan, subjects, label);
  const spec = settings.gates.baseline ?? { kind: 'live' as const };
  for (const t of targets) t.baseline = await preview.liveBaseline(api, project.state, t, spec, ctx.signal);
  // The baseline of each run is the live suite's (resolved above); the gates run as `evals run` runs them.
  const { outcomes, stop } = await runGatingSuites(ctx, api, targets, { ...settings, gates: { ...settings.gates, baseline: spec } }, budget);
  if (stop) throw stop;
  const passed = preview.recordPreviewPasses(project, subjects, passedAgents(outcomes));
  await saveState(project.fs, project.state);
  const bad = outcomes.filter((o) => o.status === 'gate' || o.status === 'failed');
  for (const o of bad) ctx.note(safe`✗ ${o.target.suiteKey}: ${o.why}`);
  if (bad.some((o) => o.status === 'failed')) return new CliError(`a run of preview "${label}" failed`, ExitCode.FAILURE);
  if (bad.length) return new GateError(`preview "${label}" failed ${bad.length === 1 ? 'a gate' : `${bad.length} gates`}; no live agent was changed`);
  await ctx.success(
    `preview "${safeText(label)}" passed: ${safeText(passed.join(', '))} recorded as passed in profile "${safeText(profile)}"; no live agent was changed`,
  );
  return undefined;
}

/** With --keep, says what was kept; else removes the copies, even after Ctrl-C (the clean-up's requests are not the interrupted ones). */
async function keepOrRemove(opts: PreviewOptions, ctx: Context, api: Api, project: Project, preview: PreviewModule): Promise<void> {
  if (opts.keep) {
    const kept = Object.values(project.state.previews).map((r) => `${r.name} (${r.agentId ?? 'not made'})`);
    if (kept.length) ctx.info(`Kept ${safeText(kept.join(', '))}: the next preview, or \`vap preview --clean\`, removes ${kept.length === 1 ? 'it' : 'them'}`);
    return;
  }
  const c = await preview.cleanPreviews(ctx, api, project).catch((err: Error) => {
    void ctx.warn(`could not remove the previews (${safeText(err.message)}); \`vap preview --clean\` tries again`);
    return undefined;
  });
  if (c?.agents)
    ctx.info(`Removed the preview${c.agents === 1 ? '' : 's'}: ${c.agents} agent${c.agents === 1 ? '' : 's'}, ${c.suites} suite${c.suites === 1 ? '' : 's'}`);
}
