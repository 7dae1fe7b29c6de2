import { extname } from 'node:path';
import { rollbackAgent, setAgentTools, setAgentVoice } from '../api/agents.js';
import type { ApiClient } from '../api/client.js';
import { startRun, type Run } from '../api/evals.js';
import type { Context } from '../context.js';
import { CliError, GateError, InterruptedError, WaitTimeoutError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { checkBudget, recentMinutes, runsWithin, runUntilDecided, shareBudget } from '../evals/adaptive.js';
import type { BaselineSpec } from '../evals/baseline.js';
import { followRun, resumeCommand, RunStopped, type FollowSettings, type RunRef } from '../evals/follow.js';
import { cliReporter, RunGateError, showOutcome, stopError } from '../evals/render/run-end.js';
import { safe, safeText } from '../ui/safe-text.js';
import type { ChangedAgent } from './apply.js';
import { contentHash } from './model.js';
import { agentFilesHash, forgetPassed, recordPassed } from './passed.js';
import type { ProjectFs } from './paths.js';
import { findVoice, willApply, type Plan } from './plan.js';
import type { LocalFiles, LocalSuite } from './project.js';
import { RemoteReader, remoteHashes } from './remote.js';
import { saveState, type State } from './state.js';

/**
 * The gating suites of agents as code, run with the waiting, gates, baseline verdicts, reports and GitHub output of
 * `vap evals run --wait`.
 */

export interface EvalTarget {
  agentKey: string;
  agentId: string;
  suiteKey: string;
  suiteId: string;
  suiteName: string;
  /** The baseline of this suite's run when it is not the settings' (a preview's `live`). */
  baseline?: BaselineSpec;
  /** The suite id its Markdown report's marker names, when not its own (a preview's copy: the live suite's). */
  marker?: string;
}

/** With several runs, each report gets the agent and suite in its name: `evals.xml` → `evals.front-desk.booking.xml`. */
export function reportPathFor(path: string, t: EvalTarget, several: boolean): string {
  if (!several) return path;
  const ext = extname(path);
  const stem = ext ? path.slice(0, -ext.length) : path;
  return `${stem}.${t.agentKey}.${t.suiteKey.split('/')[1]}${ext}`;
}

function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function rollbackCommand(a: ChangedAgent, reason: string): string {
  return ['vap', 'agents', 'rollback', a.id, '--version', String(a.fromVersion), '--reason', reason, '--yes'].map(shellWord).join(' ');
}

/** `--max-calls` (or VAP_MAX_CALLS) and `--until-decided`: one budget over every suite a command runs. */
export interface GateBudget {
  maxCalls?: number;
  untilDecided?: boolean;
}

/** The calls one run of a suite places, from its file: scenarios × iterations. */
export function suiteCalls(s: LocalSuite): number {
  return s.model.scenarios.length * s.model.iterations;
}

/** The gating suites `--eval` will run after applying the plan: those of the agents it changes (every agent with --all). */
export function plannedGatingSuites(plan: Plan, files: LocalFiles, all: boolean): LocalSuite[] {
  const changed = new Set<string>();
  for (const i of plan.items) {
    if (!willApply(i) || i.action === 'forget' || i.action === 'delete') continue;
    if (i.kind === 'agent') changed.add(i.key);
    else if (i.kind === 'suite') changed.add(i.key.split('/')[0]!);
  }
  return [...files.suites.values()].filter((s) => s.gate && (all || changed.has(s.agentSlug))).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Before any call: the calls the suites' runs place (at most, with --until-decided), and the
 * simulated call minutes each suite's recent runs took in `state`'s profile; refuses (exit 2)
 * a first round of runs that would pass the budget. Returns the lines to print.
 */
export async function budgetLines(
  api: ApiClient,
  state: State,
  suites: LocalSuite[],
  budget: GateBudget,
  what: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const calls = suites.map(suiteCalls);
  const total = calls.reduce((a, b) => a + b, 0);
  checkBudget(total, budget.maxCalls, what);
  if (total === 0) return [];
  const most =
    budget.untilDecided && budget.maxCalls !== undefined
      ? shareBudget(calls, budget.maxCalls).reduce((n, share, i) => n + runsWithin(calls[i]!, share) * calls[i]!, 0)
      : undefined;
  const head = `Calls: ${total} to place (${suites.length} suite${suites.length === 1 ? '' : 's'}, scenarios × iterations)${most !== undefined ? `; at most ${most} with --until-decided within --max-calls ${budget.maxCalls}` : budget.maxCalls !== undefined ? ` (--max-calls ${budget.maxCalls})` : ''}`;
  const recent = await Promise.all(
    suites.map(async (s) => {
      const agentId = state.agents[s.agentSlug]?.id;
      const evalId = state.suites[s.key]?.id;
      if (!agentId || !evalId) return [];
      return recentMinutes(api, { agentId, evalId }, signal).catch(() => []);
    }),
  );
  const lines = suites.map((s, i) => {
    const m = recent[i]!;
    const took = m.length
      ? `its last ${m.length === 1 ? 'run' : `${m.length} runs`} took ${m.map((x) => x.toFixed(1)).join(', ')} simulated call minutes${m.length === 1 ? '' : ' each'}`
      : 'no completed run yet to say how many call minutes it takes';
    return `  ${s.key}: ${calls[i]} call${calls[i] === 1 ? '' : 's'} (${s.model.scenarios.length} scenario${s.model.scenarios.length === 1 ? '' : 's'} × ${s.model.iterations} iteration${s.model.iterations === 1 ? '' : 's'}); ${took}`;
  });
  return [head, ...lines];
}

export interface Outcome {
  target: EvalTarget;
  ref?: RunRef;
  /** The run as it started (what --until-decided follows). */
  started?: Run;
  status: 'passed' | 'gate' | 'failed' | 'pending';
  /** Why it did not pass (one line). */
  why?: string;
  error?: unknown;
}

export interface SuitesResult {
  outcomes: Outcome[];
  /** A timeout, Ctrl-C or an unexpected error stopped the following: the runs not followed are `pending`. */
  stop?: unknown;
}

/** Starts every run at once (they proceed side by side on the platform), then follows each in turn. */
export async function runGatingSuites(
  ctx: Context,
  api: ApiClient,
  targets: EvalTarget[],
  settings: FollowSettings,
  budget: GateBudget = {},
): Promise<SuitesResult> {
  const several = targets.length > 1;
  const outcomes: Outcome[] = await Promise.all(
    targets.map(async (target): Promise<Outcome> => {
      try {
        const run = await startRun(api, target.agentId, target.suiteId);
        return { target, ref: { agentId: target.agentId, evalId: target.suiteId, runId: run.id }, started: run, status: 'pending' };
      } catch (err) {
        return { target, status: 'failed', why: `the run could not start: ${(err as Error).message}`, error: err };
      }
    }),
  );

  const deadline = Date.now() + settings.timeout;
  const adaptive = budget.untilDecided && budget.maxCalls !== undefined;
  const shares =
    budget.maxCalls !== undefined
      ? shareBudget(
          outcomes.map((o) => o.started?.totalIterations ?? 0),
          budget.maxCalls,
        )
      : [];
  const deps = { api, signal: ctx.signal, env: ctx.env, reporter: cliReporter(ctx, { indent: true }) };
  for (const [i, o] of outcomes.entries()) {
    if (!o.ref) continue;
    const gates = o.target.baseline ? { ...settings.gates, baseline: o.target.baseline } : settings.gates;
    const s: FollowSettings = {
      ...settings,
      ...(shares[i] !== undefined ? { maxCalls: shares[i] } : {}),
      gates,
      ...(o.target.marker ? { marker: o.target.marker } : {}),
      timeout: Math.max(1, deadline - Date.now()),
      reports: settings.reports.map((r) => ({ ...r, path: reportPathFor(r.path, o.target, several) })),
    };
    ctx.info(safe`Suite ${o.target.suiteKey}: run ${o.ref.runId}`);
    try {
      const outcome = adaptive
        ? (await runUntilDecided(deps, { agentId: o.ref.agentId, evalId: o.ref.evalId }, { ...s, maxCalls: shares[i]! }, o.started!)).outcome
        : await followRun(deps, o.ref, s);
      await showOutcome(ctx, outcome);
      o.status = 'passed';
    } catch (err) {
      if (err instanceof RunStopped) {
        return { outcomes, stop: stopError(ctx, err.stop) };
      } else if (err instanceof RunGateError) {
        o.status = 'gate';
        const failed = err.outcome.gates.filter((g) => !g.passed);
        o.why = failed.map((g) => `${g.gate}: ${g.message}`).join('; ') || err.message;
      } else if (err instanceof GateError) {
        o.status = 'gate';
        o.why = err.message;
      } else if (err instanceof WaitTimeoutError || err instanceof InterruptedError || ctx.signal.aborted) {
        return { outcomes, stop: err };
      } else if (err instanceof CliError && err.exitCode === ExitCode.FAILURE) {
        o.status = 'failed';
        o.why = err.message;
      } else {
        return { outcomes, stop: err };
      }
    }
  }
  return { outcomes };
}

/** The agents whose every gating run passed, with those runs. */
export function passedAgents(outcomes: Outcome[]): Map<string, string[]> {
  const by = new Map<string, Outcome[]>();
  for (const o of outcomes) by.set(o.target.agentKey, [...(by.get(o.target.agentKey) ?? []), o]);
  const out = new Map<string, string[]>();
  for (const [agent, list] of by)
    if (list.every((o) => o.status === 'passed' && o.ref))
      out.set(
        agent,
        list.map((o) => o.ref!.runId),
      );
  return out;
}

export interface EvalGateInput {
  api: ApiClient;
  fs: ProjectFs;
  state: State;
  plan: Plan;
  files: LocalFiles;
  pushId: string;
  /** The verb that applied (`promote --eval` gates in the target as `push --eval` does); push by default. */
  verb?: 'push' | 'promote';
  targets: EvalTarget[];
  changedAgents: ChangedAgent[];
  settings: FollowSettings;
  budget?: GateBudget;
}

/**
 * `vap push --eval`, `vap promote --eval`: a failed gate rolls each changed agent back to its version before the push (with a
 * reason naming the push and the gate) and restores its voice and tools; when all pass, the agents' files are recorded as
 * passed (what promote may carry). Ctrl-C or a timeout leaves the platform as pushed and prints what finishes the job.
 */
export async function runEvalGate(ctx: Context, input: EvalGateInput): Promise<void> {
  const { api, targets, settings } = input;
  const verb = input.verb ?? 'push';
  if (targets.length === 0) {
    ctx.info(`--eval: no gating suite (gate: true) belongs to an agent this ${verb} changed; nothing to run`);
    return;
  }
  const several = targets.length > 1;
  ctx.info(`Running ${targets.length} gating suite${several ? 's' : ''}: ${safeText(targets.map((t) => t.suiteKey).join(', '))}`);
  const { outcomes, stop } = await runGatingSuites(ctx, api, targets, settings, input.budget);

  const rollbackable = input.changedAgents.filter((a) => !a.created && a.fromVersion !== undefined);
  if (stop) {
    // The platform stays as pushed: say how to finish the gate, or to roll back by hand.
    const pending = outcomes.filter((o) => o.status === 'pending' && o.ref);
    ctx.note(`The ${verb} is applied; its evals did not finish, so nothing was rolled back.`);
    for (const o of pending) ctx.noteCommand(`  finish the gate of ${o.target.suiteKey}:`, resumeCommand(o.ref!, settings));
    const reason = `vap ${verb} ${input.pushId}: rolled back by hand, its evals did not finish`;
    for (const a of rollbackable) ctx.noteCommand(`  or roll back agent ${a.slug}:`, rollbackCommand(a, reason));
    throw stop;
  }

  const bad = outcomes.filter((o) => o.status === 'gate' || o.status === 'failed');
  if (bad.length === 0) {
    for (const [slug, runs] of passedAgents(outcomes)) {
      const files = agentFilesHash(input.files, slug);
      if (files) recordPassed(input.state, slug, { files, runs, via: 'push' });
    }
    await saveState(input.fs, input.state);
    await ctx.success(
      `evals passed (${outcomes.length} suite${several ? 's' : ''}): the new versions stay, recorded as passed in profile "${safeText(input.state.profile)}"`,
    );
    return;
  }
  const first = bad[0]!;
  const reason = clip(
    `vap ${verb} ${input.pushId}: ${first.status === 'gate' ? 'eval gate failed' : 'eval run failed'} on ${first.target.suiteKey} (${first.why})${bad.length > 1 ? ` and ${bad.length - 1} more` : ''}`,
    1000,
  );
  for (const o of bad) ctx.note(safe`✗ ${o.target.suiteKey}: ${o.why}`);
  // What this push (or promotion) applied failed its gate: a pass recorded for the same files (a preview's) no longer stands.
  const forgotten = input.changedAgents.filter((a) => forgetPassed(input.state, input.files, a.slug)).map((a) => a.slug);
  if (forgotten.length) {
    await saveState(input.fs, input.state);
    ctx.info(`No longer recorded as passed in profile "${safeText(input.state.profile)}": ${safeText(forgotten.join(', '))} (their files failed this gate)`);
  }
  await rollBack(ctx, input, rollbackable, reason);
  for (const a of input.changedAgents.filter((x) => x.created)) {
    await ctx.warn(safe`agent ${a.slug} (${a.id}) was created by this ${verb}: there is no earlier version to roll back to; it stays`);
  }
  const gate = bad.some((o) => o.status === 'gate');
  const what = rollbackable.length ? `rolled back ${rollbackable.map((a) => a.slug).join(', ')}` : 'nothing to roll back';
  if (gate) throw new GateError(`the evals of ${verb} ${input.pushId} failed a gate; ${what}`);
  throw new CliError(`the eval run of ${verb} ${input.pushId} failed; ${what}`, ExitCode.FAILURE);
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Each agent back to its version before the push; voice and tools restored if the rollback left them changed. */
async function rollBack(ctx: Context, input: EvalGateInput, agents: ChangedAgent[], reason: string): Promise<void> {
  const reader = new RemoteReader(input.api, ctx.signal);
  for (const a of agents) {
    const res = await rollbackAgent(input.api, a.id, { version: a.fromVersion!, reason });
    let back = await reader.agent(a.id);
    const before = a.before;
    if (back && before) {
      const want = before.model;
      if (want.voice && JSON.stringify(back.model.voice) !== JSON.stringify(want.voice)) {
        const v = findVoice(input.plan.voices, want.voice.name, want.voice.language);
        if (v) await setAgentVoice(input.api, a.id, { voiceId: v.id, language: want.voice.language });
      }
      const ids = Object.values(before.toolIds);
      const now = Object.values(back.toolIds);
      if (ids.length !== now.length || ids.some((id) => !now.includes(id))) await setAgentTools(input.api, a.id, ids);
      back = await reader.agent(a.id);
    }
    if (back) {
      const fields = remoteHashes('agent', back);
      input.state.agents[a.slug] = { id: a.id, fields, hash: contentHash('agent', fields), version: back.version };
      await saveState(input.fs, input.state);
    }
    ctx.note(safe`↩ rolled back agent ${a.slug} (${a.id}) to version ${a.fromVersion} (now version ${back?.version ?? res.version}): ${reason}`);
  }
}
