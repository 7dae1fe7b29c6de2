import type { ApiClient } from '../api/client.js';
import type { Credentials } from '../config/resolve.js';
import type { Context } from '../context.js';
import { safeMessage } from '../ui/safe-text.js';
import { openProject, planFor } from './open.js';
import { hasChanges, type Plan } from './plan.js';
import { currentProfile } from '../config/profile-name.js';

/** What planning a folder tells on its way, each line made safe. */
export interface PlanReporter {
  info(line: string): void;
  warn(line: string): void;
  /** A problem of the files, one line; a usage error (exit 2) that counts them follows. */
  problem(line: string): void;
}

/** What planning a folder needs without a terminal (an MCP tool): no prompt, no spinner, every question answered as --yes does. */
export interface PlanDeps {
  api(): Promise<ApiClient>;
  credentials(): Promise<Credentials>;
  signal: AbortSignal;
  reporter: PlanReporter;
}

/**
 * The plan of a project folder for the active profile: the files, the last sync and the
 * platform compared (`vap diff` with its context, the MCP tool with PlanDeps). The files'
 * problems are said on the way, then thrown (exit 2).
 */
export async function planFolder(from: Context | PlanDeps, opts: { dir?: string }): Promise<{ plan: Plan; changed: boolean }> {
  const ctx = 'io' in from ? from : headless(from);
  const project = await openProject(opts, ctx, await currentProfile(ctx), { api: () => ctx.api() });
  const plan = await planFor(project, await ctx.api(), {}, ctx);
  return { plan, changed: hasChanges(plan) };
}

/** The members of a Context that src/ascode/open.ts reads, from PlanDeps (open.ts speaks through a Context). */
function headless(deps: PlanDeps): Context {
  const quiet = { text() {}, succeed() {}, fail() {}, stop() {} };
  const part: Pick<Context, 'signal' | 'globals' | 'prompter' | 'api' | 'credentials' | 'credentialsFor' | 'spinner' | 'info' | 'warn' | 'note'> = {
    signal: deps.signal,
    globals: { yes: true },
    prompter: { canPrompt: false } as Context['prompter'],
    api: deps.api,
    credentials: deps.credentials,
    credentialsFor: () => deps.credentials(),
    spinner: async () => quiet,
    info: (m) => deps.reporter.info(safeMessage(m)),
    warn: async (m) => deps.reporter.warn(safeMessage(m)),
    note: (m) => deps.reporter.problem(safeMessage(m)),
  };
  return part as Context;
}
