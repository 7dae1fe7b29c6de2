import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import type { ApiClient } from '../../api/client.js';
import type { Applier, ApplyResult, Reporter } from '../../ascode/apply.js';
import type { EvalTarget, GateBudget } from '../../ascode/eval-gate.js';
import type { OpenProject } from '../../ascode/open.js';
import type { Plan, PlanItem } from '../../ascode/plan.js';
import type { recordOrigin } from '../../ascode/state.js';
import type { Context } from '../../context.js';
import { CliError, SilentExit, UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { safe, safeText } from '../../ui/safe-text.js';
import { DEFAULT_TIMEOUT_MS, followSettings, type WaitOptions } from '../../evals/settings.js';
import { addBaselineOptions, addBudgetOptions, addFollowOptions, addGateOptions, gateFlagsGiven } from '../eval-options.js';
import type { SecretFile } from '../../webhooks/secret-file.js';
import { machineOutput, writeFitted, type DirOptions } from './common.js';

/**
 * How push and promote apply a plan: printed, confirmed, applied kill-safe, summed up, and with --eval
 * gated (rolled back on failure). Only the options and the flow live here; the rest is src/ascode's.
 */

export interface ApplyOptions extends DirOptions, Omit<WaitOptions, 'wait'> {
  dryRun?: boolean;
  prune?: boolean;
  force?: boolean;
  replaceSuite?: boolean;
  reason?: string;
  secretFile?: string;
  rotateAdoptedSecrets?: boolean;
  eval?: boolean;
  /** push --eval --all: also gate the agents the push did not change. */
  all?: boolean;
  exitCode?: boolean;
}

/** The options push and promote share: what may be applied, the secrets, --eval with its gates, baseline and reports. */
export function addApplyOptions(cmd: Command, verb: 'push' | 'promote'): Command {
  cmd
    .option('--dry-run', 'print the plan and stop (nothing is changed)')
    .option('--prune', 'also delete what the state tracks but the files no longer have')
    .option('--force', 'apply over drift and conflicts (the files win over changes made on the platform)')
    .option(
      '--replace-suite',
      'replace a suite whose scenarios were edited or removed (a new suite from the file; the old one is deleted with its run history)',
    )
    .option('--reason <text>', `why: kept on each agent version the ${verb} makes (default: "vap ${verb} <id>")`)
    .option('--secret-file <path>', 'write the secret of a new webhook endpoint to this file (mode 0600); with several, put {slug} in the path')
    .option(
      '--rotate-adopted-secrets',
      'rotate the secret of a webhook endpoint an interrupted push created before its secret was shown (shown once, or written to --secret-file)',
    )
    .option('--exit-code', 'exit 3 when anything in the plan was left unapplied (deletions without --prune included), so CI notices')
    .option('--eval', 'after applying, run every gating suite (gate: true) of every agent that changed; roll back when a gate fails');
  return addFollowOptions(addBudgetOptions(addBaselineOptions(addGateOptions(cmd), 'each run (with --eval)')), {
    timeout: 'with --eval: give up waiting after this long with exit 124; the platform stays as applied',
    report: 'with --eval: write a report of each run, as `evals run --report` does (repeatable); with several runs each file name gets .<agent>.<suite>',
    poll: "learn of a run's end by polling only",
  });
}

export function checkEvalFlags(opts: ApplyOptions): void {
  if (opts.eval) return;
  if (opts.all) throw new UsageError('--all needs --eval', 'add --eval to run the gating suites of every agent');
  const needEval = [...gateFlagsGiven(opts), ...(opts.maxCalls !== undefined ? ['--max-calls'] : [])];
  if (needEval.length)
    throw new UsageError(`${needEval.join(', ')} ${needEval.length === 1 ? 'needs' : 'need'} --eval`, 'add --eval to run the gating suites after applying');
}

export function newApplyId(): string {
  const t = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${t}-${randomBytes(2).toString('hex')}`;
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

async function prepareSecrets(opts: ApplyOptions, creates: PlanItem[]): Promise<Map<string, SecretFile>> {
  const files = new Map<string, SecretFile>();
  if (!opts.secretFile) return files;
  if (creates.length > 1 && !opts.secretFile.includes('{slug}')) {
    throw new UsageError(
      `this push creates ${creates.length} webhook endpoints and --secret-file names one file`,
      'put {slug} in the path, e.g. --secret-file secrets/{slug}.secret',
    );
  }
  const { SecretFile } = await import('../../webhooks/secret-file.js');
  try {
    for (const i of creates) files.set(i.key, await SecretFile.prepare(opts.secretFile.replaceAll('{slug}', i.key)));
  } catch (err) {
    for (const f of files.values()) await f.abort();
    throw err;
  }
  return files;
}

export interface ApplyFlow {
  project: OpenProject;
  api: ApiClient;
  plan: Plan;
  opts: ApplyOptions;
  verb: 'push' | 'promote';
  /** Lines printed after the plan (promote: what passed in the source). */
  afterPlan?: string;
}

/** Prints the plan, confirms, applies, sums up; with --eval, gates. Throws the exit the outcome calls for. */
export async function applyPlan(ctx: Context, flow: ApplyFlow): Promise<void> {
  const { project, api, plan, opts, verb } = flow;
  const [{ hasChanges, willApply }, { countPlan, planJson, renderPlan }, { Applier }, { recordOrigin }] = await Promise.all([
    import('../../ascode/plan.js'),
    import('../../ascode/render.js'),
    import('../../ascode/apply.js'),
    import('../../ascode/state.js'),
  ]);
  const machine = machineOutput(ctx);
  // On a terminal the plan's lines wrap at word boundaries under their own indentation.
  if (!machine) await writeFitted(ctx, renderPlan(plan, await ctx.stdoutStyle()) + (flow.afterPlan ?? ''));

  const toApply = plan.items.filter((i) => willApply(i) && i.action !== 'forget' && !(i.action === 'unchanged'));
  const id = newApplyId();
  const budget = opts.eval && !opts.dryRun ? await evalBudget(ctx, flow) : undefined;
  if (opts.dryRun) {
    if (machine) await ctx.out.data({ [`${verb}Id`]: null, dryRun: true, plan: planJson(plan, hasChanges(plan)) });
    if (opts.exitCode && hasChanges(plan)) throw new SilentExit(ExitCode.GATE);
    return;
  }
  if (toApply.length > 0 && !ctx.globals.yes) await confirmPlan(ctx, flow, toApply, countPlan(plan));

  const secretCreates = plan.items.filter((i) => i.kind === 'webhook' && (i.action === 'create' || (opts.rotateAdoptedSecrets && i.adopted)));
  const secrets = await prepareSecrets(opts, secretCreates);
  const reason = opts.reason?.trim() ? `${opts.reason.trim()} (vap ${verb} ${id})` : `vap ${verb} ${id}`;
  const reporter = applyReporter(ctx, opts, api, secrets, machine);

  const result = await applyJournalled(ctx, flow, { id, reason, reporter, secrets, Applier, recordOrigin });
  if (machine) {
    await ctx.out.data({
      [`${verb}Id`]: id,
      profile: project.profile,
      plan: planJson(plan, hasChanges(plan)),
      applied: result.applied.map((i) => ({ kind: i.kind, key: i.key, action: i.action })),
      failed: result.failed.map((f) => ({ kind: f.item.kind, key: f.item.key, message: f.message })),
      notApplied: result.skipped.map((s) => ({ kind: s.item.kind, key: s.item.key, action: s.item.action, reason: s.message })),
    });
  }
  const { refused, prunes } = summarise(ctx, result, false, project.profile);
  if (refused) {
    throw new CliError(
      `${refused} change${refused === 1 ? ' was' : 's were'} not applied`,
      ExitCode.FAILURE,
      `each line above names the command that resolves it; then ${verb} again: it continues where this one stopped`,
    );
  }

  if (opts.eval) {
    const targets = evalTargets(result, project, Boolean(opts.all));
    const { runEvalGate } = await import('../../ascode/eval-gate.js');
    await runEvalGate(ctx, {
      api,
      fs: project.fs,
      state: project.state,
      plan,
      files: project.files,
      pushId: id,
      verb,
      targets,
      changedAgents: result.changedAgents,
      settings: followSettings({ ...opts, wait: true, timeout: opts.timeout ?? DEFAULT_TIMEOUT_MS }),
      budget,
    });
  }
  if (opts.exitCode && prunes) throw new SilentExit(ExitCode.GATE);
}

/** Asks before a plan is applied, saying what it creates, updates, replaces and deletes. */
async function confirmPlan(ctx: Context, flow: ApplyFlow, toApply: PlanItem[], c: { create: number; update: number; replace: number }): Promise<void> {
  const deletes = toApply.filter((i) => i.action === 'delete').length;
  const what = [
    c.create && `${c.create} to create`,
    c.update && `${c.update} to update`,
    c.replace && `${c.replace} to replace`,
    deletes && `${deletes} to delete`,
  ]
    .filter(Boolean)
    .join(', ');
  const ok = await ctx.prompter.confirm(`Apply this plan (${what}) to profile "${safeText(flow.project.profile)}"?${safeText(destructiveNote(flow.plan))}`, {
    flag: '--yes',
    default: false,
  });
  if (!ok) throw new CliError(`${flow.verb} cancelled; nothing was sent`, ExitCode.FAILURE);
}

/** How the apply's progress reaches the terminal: each change, and each new webhook secret (to its file or shown once). */
function applyReporter(ctx: Context, opts: ApplyOptions, api: ApiClient, secrets: Map<string, SecretFile>, machine: boolean): Reporter {
  const reporter: Reporter = {
    done: (_item, message) => void ctx.success(safeText(message)),
    warn: (message) => void ctx.warn(safeText(message)),
    failed: (_item, message) => ctx.note(`✗ ${safeText(_item.kind)} ${safeText(_item.key)}: ${safeText(message)}`),
    secret: async (item, endpointId, secret) => {
      const file = secrets.get(item.key);
      if (file) {
        await file.commit(secret);
        secrets.delete(item.key);
        await ctx.success(safe`The secret of webhook ${item.key} (${endpointId}) is in ${file.path} (mode 0600); it is not shown again`);
        return;
      }
      ctx.io.stdout.write(
        `${machine ? JSON.stringify({ webhook: item.key, id: endpointId, secret }) : safe`secret of webhook ${item.key} (${endpointId}): ${secret}`}\n`,
      );
      await ctx.warn('Save the secret now: it is not shown again (`vap webhooks rotate-secret` makes a new one)');
    },
    adoptedSecret: async (item, endpointId) => {
      if (opts.rotateAdoptedSecrets) {
        const { rotateWebhookSecret } = await import('../../api/webhooks.js');
        const r = await rotateWebhookSecret(api, endpointId);
        await ctx.warn(
          safe`webhook ${item.key} (${endpointId}) was created by an interrupted push before its secret was shown: rotated (--rotate-adopted-secrets)`,
        );
        await reporter.secret(item, endpointId, r.secret);
        return;
      }
      await ctx.warn(
        safe`webhook ${item.key} (${endpointId}) was created by a push that was interrupted before its secret was shown, and nobody has it: make a new one with \`vap webhooks rotate-secret ${endpointId}\` (or push again with --rotate-adopted-secrets)`,
      );
    },
  };
  return reporter;
}

/** One apply's id, reason, reporter and secret files, with the modules it runs (loaded beside the plan's). */
interface JournalledRun {
  id: string;
  reason: string;
  reporter: Reporter;
  secrets: Map<string, SecretFile>;
  Applier: typeof Applier;
  recordOrigin: typeof recordOrigin;
}

/** Applies the plan with the state journalled, and writes the state once at the end, also after a failure or Ctrl-C. */
async function applyJournalled(ctx: Context, flow: ApplyFlow, run: JournalledRun): Promise<ApplyResult> {
  const { project, api, plan } = flow;
  const { id, reason, reporter, secrets, Applier, recordOrigin } = run;
  const creds = await ctx.credentialsFor(project.profile);
  const originBefore = JSON.stringify(project.state.origin ?? null);
  if (creds.apiKey) recordOrigin(project.state, creds.baseUrl, creds.apiKey);
  Object.assign(project.state.tools, plan.learnedTools);
  const { StateJournal } = await import('../../ascode/state-journal.js');
  const journal = new StateJournal(project.fs, project.state);
  const applier = new Applier({
    api,
    fs: project.fs,
    journal,
    plan,
    state: project.state,
    files: project.files,
    pushId: id,
    reason,
    report: reporter,
    signal: ctx.signal,
  });
  let result: ApplyResult;
  try {
    result = await applier.run();
  } catch (err) {
    summarise(ctx, applier.result, true, project.profile);
    throw err;
  } finally {
    for (const f of secrets.values()) await f.abort();
    // The state file, written once for the whole apply (and the key, URL and tool ids learned),
    // also after a failure or Ctrl-C; after a kill, the journal holds what it would have.
    if (journal.dirty || JSON.stringify(project.state.origin ?? null) !== originBefore || Object.keys(plan.learnedTools).length) await journal.checkpoint();
  }
  return result;
}

/**
 * --eval's budget, before anything is applied: --until-decided needs one and a baseline, the
 * first runs of the gating suites the plan will run must fit it, and what they spend is said.
 */
async function evalBudget(ctx: Context, flow: ApplyFlow): Promise<GateBudget> {
  const { opts, project, plan, api, verb } = flow;
  const [{ budgetFrom, checkUntilDecided }, { budgetLines, plannedGatingSuites }] = await Promise.all([
    import('../../evals/adaptive.js'),
    import('../../ascode/eval-gate.js'),
  ]);
  const budget = { maxCalls: budgetFrom(opts.maxCalls, ctx.env), untilDecided: Boolean(opts.untilDecided) };
  checkUntilDecided(budget.untilDecided, budget.maxCalls, Boolean(followSettings({ ...opts, wait: true, timeout: 1 }).gates.baseline));
  const suites = plannedGatingSuites(plan, project.files, Boolean(opts.all));
  const lines = await budgetLines(api, project.state, suites, budget, `the gating suites of this ${verb} (--eval)`, ctx.signal);
  for (const line of lines) ctx.info(safeText(line));
  return budget;
}

/**
 * Says what was applied and what was not, the deletions left for --prune in the last line;
 * returns how many changes were refused or failed, and how many deletions were left.
 */
function summarise(ctx: Context, r: ApplyResult, interrupted: boolean, profile: string): { refused: number; prunes: number } {
  const refused = r.skipped.filter((s) => !(s.item.action === 'delete' && s.item.needsPrune));
  const prunes = r.skipped.length - refused.length;
  const lines: string[] = [];
  if (interrupted) lines.push(`Interrupted after applying ${r.applied.length} change${r.applied.length === 1 ? '' : 's'}; run it again to continue.`);
  const applied = r.applied.filter((i) => i.action !== 'unchanged');
  const bad = refused.length + r.failed.length;
  if (!interrupted) {
    if (bad) lines.push(`Applied ${applied.length} change${applied.length === 1 ? '' : 's'}; ${bad} not applied:`);
    else if (applied.length) lines.push(`Applied ${applied.length} change${applied.length === 1 ? '' : 's'}.`);
    else if (!prunes) lines.push('Nothing to push: the platform already matches the files.');
  }
  for (const s of refused) lines.push(`  not applied: ${safeText(s.item.kind)} ${safeText(s.item.key)}: ${safeText(s.message)}`);
  for (const f of r.failed) lines.push(`  failed: ${safeText(f.item.kind)} ${safeText(f.item.key)}: ${safeText(f.message)}`);
  if (prunes) {
    const names = r.skipped.filter((s) => s.item.action === 'delete' && s.item.needsPrune).map((s) => `${s.item.kind} ${s.item.key}`);
    lines.push(
      `${prunes} deletion${prunes === 1 ? '' : 's'} not applied (${safeText(names.slice(0, 5).join(', '))}${names.length > 5 ? ', …' : ''}): their files were removed; \`vap push --prune${profile === 'default' ? '' : ` --profile ${profile}`}\` deletes ${prunes === 1 ? 'it' : 'them'} on the platform`,
    );
  }
  // Each line wraps at word boundaries on a terminal, under its own indentation.
  for (const line of lines) ctx.note(line);
  return { refused: bad, prunes };
}

function evalTargets(r: ApplyResult, project: OpenProject, all: boolean): EvalTarget[] {
  const agents = new Set([...r.changedAgents.map((a) => a.slug), ...[...r.changedSuites].map((k) => k.split('/')[0]!)]);
  const out: EvalTarget[] = [];
  for (const s of [...project.files.suites.values()].sort((a, b) => a.key.localeCompare(b.key))) {
    if (!(all || agents.has(s.agentSlug)) || !s.gate) continue;
    const agentId = project.state.agents[s.agentSlug]?.id;
    const suiteId = project.state.suites[s.key]?.id;
    if (agentId && suiteId) out.push({ agentKey: s.agentSlug, agentId, suiteKey: s.key, suiteId, suiteName: s.model.name });
  }
  return out;
}
