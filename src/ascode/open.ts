import type { ApiClient } from '../api/client.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { buildPlan, readRemote, type Plan, type PlanOptions, type RemoteSnapshot } from './plan.js';
import { findRoot, listPresence, noProjectError, readConfig, readFiles, type LocalFiles, type ProfileSettings, type ProjectConfig } from './project.js';
import { ProblemList } from './problems.js';
import { RemoteReader } from './remote.js';
import { loadState, SECTION, type State } from './state.js';

export interface OpenProject {
  root: string;
  config: ProjectConfig;
  profile: string;
  settings: ProfileSettings;
  state: State;
  files: LocalFiles;
}

/**
 * The project, the active profile (it must be one vap.yaml lists), its state and the
 * files, read and checked: a problem in any file is exit 2 before anything is sent.
 */
export async function openProject(opts: { dir?: string }, ctx: Context, profile: string, early?: EarlyRead): Promise<OpenProject & { remote?: Promise<RemoteSnapshot> }> {
  const start = opts.dir ?? '.';
  const root = findRoot(start);
  if (!root) throw noProjectError(start);
  const problems = new ProblemList();
  const config = await readConfig(root, problems);
  problems.throwIfAny((l) => ctx.note(l.trimEnd()));
  const settings = config!.profiles.get(profile);
  if (!settings) {
    const known = [...config!.profiles.keys()];
    throw new UsageError(
      `profile "${profile}" is not one this folder pushes to (vap.yaml lists ${known.length ? known.map((p) => `"${p}"`).join(', ') : 'none'})`,
      `pass --profile ${known[0] ?? '<name>'}, or add ${profile} under profiles in vap.yaml (\`vap pull --profile ${profile} --all\` does)`,
    );
  }
  const state = await loadState(root, profile);
  // `vap diff` reads the platform while the files are parsed; `vap push` sends nothing before they are checked.
  const remote = early ? readRemote(state, listPresence(root), new RemoteReader(await early.api(), ctx.signal)) : undefined;
  remote?.catch(() => undefined);
  const files = await readFiles(root, { vars: settings.vars, profile }, problems, (kind, key) => state[SECTION[kind]][key]);
  problems.throwIfAny((l) => ctx.note(l.trimEnd()));
  return { root, config: config!, profile, settings, state, files, remote };
}

export interface EarlyRead {
  api(): Promise<ApiClient>;
}

/** Reads the platform and builds the plan; an unknown tool or voice name is exit 2, nothing sent. */
export async function planFor(p: OpenProject & { remote?: Promise<RemoteSnapshot> }, api: ApiClient, opts: PlanOptions, ctx: Context): Promise<Plan> {
  const spinner = await ctx.spinner(`Reading profile ${p.profile}…`);
  try {
    const { plan, problems } = await buildPlan({ config: p.config, profile: p.profile, files: p.files, state: p.state, reader: new RemoteReader(api, ctx.signal), opts }, p.remote);
    spinner.stop();
    problems.throwIfAny((l) => ctx.note(l.trimEnd()));
    return plan;
  } finally {
    spinner.stop();
  }
}

