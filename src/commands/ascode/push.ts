import { randomBytes } from 'node:crypto';
import { Option } from 'commander';
import type { Context, GlobalOptions } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { reportOption } from '../../evals/follow.js';
import type { ApplyResult, Reporter } from '../../ascode/apply.js';
import type { EvalTarget } from '../../ascode/eval-gate.js';
import type { Plan, PlanItem } from '../../ascode/plan.js';
import { safe, safeText } from '../../ui/safe-text.js';
import { action } from '../action.js';
import { wrapLines } from '../../ui/fit.js';
import { durationOption } from '../duration.js';
import { addGateOptions, DEFAULT_TIMEOUT_MS, followSettings, type WaitOptions } from '../evals/run.js';
import type { RegisterGroup } from '../types.js';
import type { SecretFile } from '../webhooks/shared.js';
import { addDirOption, currentProfile, machineOutput, PROJECT_HELP, type DirOptions } from './common.js';

interface PushOptions extends DirOptions, Omit<WaitOptions, 'wait'> {
  dryRun?: boolean;
  prune?: boolean;
  force?: boolean;
  replaceSuite?: boolean;
  reason?: string;
  secretFile?: string;
  eval?: boolean;
}

export const register: RegisterGroup = (cmd, makeContext) => {
  addDirOption(cmd)
    .description('Apply the files to the profile\'s organization: create, update, and (with --prune) delete; with --eval, run the gating suites and roll back on failure')
    .option('--dry-run', 'print the plan and stop (nothing is changed)')
    .option('--prune', 'also delete what the state tracks but the files no longer have')
    .option('--force', 'apply over drift and conflicts (the files win over changes made on the platform)')
    .option('--replace-suite', 'replace a suite whose scenarios were edited or removed (a new suite from the file; the old one is deleted with its run history)')
    .option('--reason <text>', 'why: kept on each agent version the push makes (default: "vap push <push id>")')
    .option('--secret-file <path>', 'write the secret of a new webhook endpoint to this file (mode 0600); with several, put {slug} in the path')
    .option('--eval', 'after applying, run every gating suite (gate: true) of every agent that changed; roll back when a gate fails');
  addGateOptions(cmd)
    .addOption(new Option('--timeout <duration>', 'with --eval: give up waiting after this long with exit 124; the platform stays as pushed (30s, 10m, 1h)').argParser(durationOption('--timeout', { min: 1 })).default(DEFAULT_TIMEOUT_MS, '30m'))
    .option('--report <kind=path>', 'with --eval: write a report of each run, as `evals run --report` does (repeatable); with several runs each file name gets .<agent>.<suite>', reportOption)
    .addOption(new Option('--poll', 'learn of a run\'s end by polling only (also VAP_WAIT_POLL=1)').hideHelp())
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
--report, --timeout). When one fails, each changed agent is rolled back to its version
before the push (the reason names the push and the gate) and its voice and tools are
restored; the exit is 3 (1 when a run failed). Ctrl-C or --timeout leaves the platform
as pushed and prints the command that finishes the gate or the rollback.

--json prints, instead of the plan, what the push did: { pushId, profile, plan,
applied, failed, notApplied } (with --eval, each run's document follows, as
\`vap evals run --wait --json\` prints it). A new webhook's secret is a line of its own.

${PROJECT_HELP}

Exit codes: 0 applied (and the evals passed), 1 something was not applied (or a run
failed), 2 bad files or flags (nothing sent), 3 a gate failed (rolled back), 4 auth,
124 --timeout, 130 Ctrl-C.

Examples:
  $ vap push --dry-run
  $ vap push --profile staging --eval --min-score 0.8 --reason "friendlier greeting"
  $ vap push --profile prod --yes
  $ vap push --prune --replace-suite`,
    )
    .action(action<PushOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
};

function pushId(): string {
  const t = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${t}-${randomBytes(2).toString('hex')}`;
}

function checkEvalFlags(opts: PushOptions): void {
  if (opts.eval) return;
  const needEval = [
    opts.minScore !== undefined && '--min-score',
    opts.minCriterion?.length && '--min-criterion',
    opts.allowFailedIterations !== undefined && '--allow-failed-iterations',
    opts.report?.length && '--report',
  ].filter((x): x is string => typeof x === 'string');
  if (needEval.length) throw new UsageError(`${needEval.join(', ')} ${needEval.length === 1 ? 'needs' : 'need'} --eval`, 'add --eval to run the gating suites after the push');
}

/** What the confirmation says will be lost. */
function destructiveNote(plan: Plan): string {
  const deletes = plan.items.filter((i) => i.action === 'delete' && !i.needsPrune);
  const replaces = plan.items.filter((i) => i.action === 'replace');
  const bits: string[] = [];
  if (deletes.length) bits.push(`deletes ${deletes.map((i) => `${i.kind} ${i.key}`).join(', ')}`);
  if (replaces.length) bits.push(`replaces ${replaces.map((i) => `suite ${i.key}`).join(', ')} (their run history is lost)`);
  return bits.length ? ` It ${bits.join(' and ')}.` : '';
}

async function prepareSecrets(opts: PushOptions, creates: PlanItem[]): Promise<Map<string, SecretFile>> {
  const files = new Map<string, SecretFile>();
  if (!opts.secretFile) return files;
  if (creates.length > 1 && !opts.secretFile.includes('{slug}')) {
    throw new UsageError(`this push creates ${creates.length} webhook endpoints and --secret-file names one file`, 'put {slug} in the path, e.g. --secret-file secrets/{slug}.secret');
  }
  const { SecretFile } = await import('../webhooks/shared.js');
  try {
    for (const i of creates) files.set(i.key, await SecretFile.prepare(opts.secretFile.replaceAll('{slug}', i.key)));
  } catch (err) {
    for (const f of files.values()) await f.abort();
    throw err;
  }
  return files;
}

export async function run(opts: PushOptions & GlobalOptions, ctx: Context): Promise<void> {
  checkEvalFlags(opts);
  const [{ openProject, planFor }, { hasChanges, willApply }, { countPlan, planJson, renderPlan }, { Applier }] = await Promise.all([
    import('../../ascode/open.js'),
    import('../../ascode/plan.js'),
    import('../../ascode/render.js'),
    import('../../ascode/apply.js'),
  ]);
  const project = await openProject(opts, ctx, await currentProfile(ctx));
  const api = await ctx.api();
  const plan = await planFor(project, api, { force: opts.force, prune: opts.prune, replaceSuite: opts.replaceSuite }, ctx);
  const machine = machineOutput(ctx);
  const chalk = await ctx.stdoutStyle();
  if (!machine) ctx.io.stdout.write(wrapLines(renderPlan(plan, chalk), ctx.tableFit().width));

  const toApply = plan.items.filter((i) => willApply(i) && i.action !== 'forget' && !(i.action === 'unchanged'));
  const id = pushId();
  if (opts.dryRun) {
    if (machine) await ctx.out.data({ pushId: null, dryRun: true, plan: planJson(plan, hasChanges(plan)) });
    return;
  }
  if (toApply.length > 0 && !ctx.globals.yes) {
    const c = countPlan(plan);
    const what = [c.create && `${c.create} to create`, c.update && `${c.update} to update`, c.replace && `${c.replace} to replace`, toApply.filter((i) => i.action === 'delete').length && `${toApply.filter((i) => i.action === 'delete').length} to delete`].filter(Boolean).join(', ');
    const ok = await ctx.prompter.confirm(`Apply this plan (${what}) to profile "${safeText(project.profile)}"?${safeText(destructiveNote(plan))}`, { flag: '--yes', default: false });
    if (!ok) throw new CliError('push cancelled; nothing was sent', ExitCode.FAILURE);
  }

  const secretCreates = plan.items.filter((i) => i.kind === 'webhook' && i.action === 'create');
  const secrets = await prepareSecrets(opts, secretCreates);
  const reason = opts.reason?.trim() ? `${opts.reason.trim()} (vap push ${id})` : `vap push ${id}`;
  const reporter: Reporter = {
    done: (_item, message) => void ctx.success(safeText(message)),
    warn: (message) => void ctx.warn(safeText(message)),
    failed: (_item, message) => ctx.io.stderr.write(`✗ ${safeText(_item.kind)} ${safeText(_item.key)}: ${safeText(message)}\n`),
    secret: async (item, endpointId, secret) => {
      const file = secrets.get(item.key);
      if (file) {
        await file.commit(secret);
        secrets.delete(item.key);
        await ctx.success(safe`The secret of webhook ${item.key} (${endpointId}) is in ${file.path} (mode 0600); it is not shown again`);
        return;
      }
      ctx.io.stdout.write(`${machine ? JSON.stringify({ webhook: item.key, id: endpointId, secret }) : safe`secret of webhook ${item.key} (${endpointId}): ${secret}`}\n`);
      await ctx.warn('Save the secret now: it is not shown again (`vap webhooks rotate-secret` makes a new one)');
    },
  };

  const applier = new Applier({ api, root: project.root, plan, state: project.state, pushId: id, reason, report: reporter, signal: ctx.signal });
  let result: ApplyResult;
  try {
    result = await applier.run();
  } catch (err) {
    summarise(ctx, applier.result, true);
    throw err;
  } finally {
    for (const f of secrets.values()) await f.abort();
  }
  if (machine) {
    await ctx.out.data({
      pushId: id,
      profile: project.profile,
      plan: planJson(plan, hasChanges(plan)),
      applied: result.applied.map((i) => ({ kind: i.kind, key: i.key, action: i.action })),
      failed: result.failed.map((f) => ({ kind: f.item.kind, key: f.item.key, message: f.message })),
      notApplied: result.skipped.map((s) => ({ kind: s.item.kind, key: s.item.key, action: s.item.action, reason: s.message })),
    });
  }
  const incomplete = summarise(ctx, result, false);
  if (incomplete) {
    throw new CliError(`${incomplete} change${incomplete === 1 ? ' was' : 's were'} not applied`, ExitCode.FAILURE, 'fix what is listed above and push again: it continues where this one stopped');
  }

  if (opts.eval) {
    const targets = evalTargets(plan, result, project);
    const { runEvalGate } = await import('../../ascode/eval-gate.js');
    await runEvalGate(ctx, { api, root: project.root, state: project.state, plan, pushId: id, targets, changedAgents: result.changedAgents, settings: followSettings({ ...opts, wait: true, timeout: opts.timeout ?? DEFAULT_TIMEOUT_MS }) });
  }
}

/** Says what was applied and what was not; returns how many changes were not applied (failures and refusals, not pending prunes). */
function summarise(ctx: Context, r: ApplyResult, interrupted: boolean): number {
  const refused = r.skipped.filter((s) => !(s.item.action === 'delete' && s.item.needsPrune));
  const prunes = r.skipped.length - refused.length;
  const lines: string[] = [];
  if (interrupted) lines.push(`Interrupted after applying ${r.applied.length} change${r.applied.length === 1 ? '' : 's'}; run the push again to continue.`);
  for (const s of refused) lines.push(`  not applied: ${safeText(s.item.kind)} ${safeText(s.item.key)}: ${safeText(s.message)}`);
  for (const f of r.failed) lines.push(`  failed: ${safeText(f.item.kind)} ${safeText(f.item.key)}: ${safeText(f.message)}`);
  if (prunes) lines.push(`  ${prunes} deletion${prunes === 1 ? '' : 's'} not applied: pass --prune to delete on the platform what the files no longer have`);
  const applied = r.applied.filter((i) => i.action !== 'unchanged');
  if (!interrupted && refused.length + r.failed.length === 0) {
    if (applied.length) lines.unshift(`Applied ${applied.length} change${applied.length === 1 ? '' : 's'}.`);
    else if (!prunes) lines.unshift('Nothing to push: the platform already matches the files.');
  } else if (!interrupted) {
    lines.unshift(`Applied ${applied.length} change${applied.length === 1 ? '' : 's'}; ${refused.length + r.failed.length} not applied:`);
  }
  if (lines.length) ctx.io.stderr.write(`${lines.join('\n')}\n`);
  return refused.length + r.failed.length;
}

function evalTargets(plan: Plan, r: ApplyResult, project: { state: { agents: Record<string, { id: string }>; suites: Record<string, { id: string }> }; files: { suites: Map<string, { key: string; agentSlug: string; gate: boolean; model: { name: string } }> } }): EvalTarget[] {
  const agents = new Set([...r.changedAgents.map((a) => a.slug), ...[...r.changedSuites].map((k) => k.split('/')[0]!)]);
  const out: EvalTarget[] = [];
  for (const s of [...project.files.suites.values()].sort((a, b) => a.key.localeCompare(b.key))) {
    if (!agents.has(s.agentSlug) || !s.gate) continue;
    const agentId = project.state.agents[s.agentSlug]?.id;
    const suiteId = project.state.suites[s.key]?.id;
    if (agentId && suiteId) out.push({ agentKey: s.agentSlug, agentId, suiteKey: s.key, suiteId, suiteName: s.model.name });
  }
  void plan;
  return out;
}
