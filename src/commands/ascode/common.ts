import type { Command } from 'commander';
import type { ApiClient } from '../../api/client.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { buildPlan, type Plan, type PlanOptions } from '../../ascode/plan.js';
import { findRoot, noProjectError, readConfig, readFiles, type LocalFiles, type ProfileSettings, type ProjectConfig } from '../../ascode/project.js';
import { ProblemList } from '../../ascode/problems.js';
import { RemoteReader } from '../../ascode/remote.js';
import { loadState, type State } from '../../ascode/state.js';

/** `-C, --dir`: where the walk up to vap.yaml starts (default: the current directory). */
export function addDirOption(cmd: Command): Command {
  return cmd.option('-C, --dir <path>', 'the project folder, or a folder inside it (default: the current directory)');
}

export interface DirOptions {
  dir?: string;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export async function currentProfile(ctx: Context): Promise<string> {
  const { profile } = await ctx.credentials();
  if (!PROFILE_NAME.test(profile)) throw new UsageError(`profile "${profile}" cannot name a state file`, 'use letters, digits, ".", "_" and "-" in profile names');
  return profile;
}

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
export async function openProject(opts: DirOptions, ctx: Context): Promise<OpenProject> {
  const start = opts.dir ?? '.';
  const root = findRoot(start);
  if (!root) throw noProjectError(start);
  const problems = new ProblemList();
  const config = await readConfig(root, problems);
  problems.throwIfAny((l) => ctx.io.stderr.write(l));
  const profile = await currentProfile(ctx);
  const settings = config!.profiles.get(profile);
  if (!settings) {
    const known = [...config!.profiles.keys()];
    throw new UsageError(
      `profile "${profile}" is not one this folder pushes to (vap.yaml lists ${known.length ? known.map((p) => `"${p}"`).join(', ') : 'none'})`,
      `pass --profile ${known[0] ?? '<name>'}, or add ${profile} under profiles in vap.yaml (\`vap pull --profile ${profile} --all\` does)`,
    );
  }
  const state = await loadState(root, profile);
  const files = await readFiles(root, { vars: settings.vars, profile }, problems);
  problems.throwIfAny((l) => ctx.io.stderr.write(l));
  return { root, config: config!, profile, settings, state, files };
}

/** Reads the platform and builds the plan; an unknown tool or voice name is exit 2, nothing sent. */
export async function planFor(p: OpenProject, api: ApiClient, opts: PlanOptions, ctx: Context): Promise<Plan> {
  const spinner = await ctx.spinner(`Reading profile ${p.profile}…`);
  try {
    const { plan, problems } = await buildPlan({ config: p.config, profile: p.profile, files: p.files, state: p.state, reader: new RemoteReader(api, ctx.signal), opts });
    spinner.stop();
    problems.throwIfAny((l) => ctx.io.stderr.write(l));
    return plan;
  } finally {
    spinner.stop();
  }
}

/** Whether stdout takes data for a program (JSON, or any -o other than a table). */
export function machineOutput(ctx: Context): boolean {
  const g = ctx.globals;
  return Boolean(g.json || g.query || (g.output && g.output !== 'table'));
}

export const PROJECT_HELP = `A project folder holds vap.yaml (format version, the profiles it pushes to,
per-profile vars and tool ids), agents/<slug>/agent.md (YAML front matter, then the
instructions byte for byte), agents/<slug>/evals/<suite>.yaml, webhooks/<slug>.yaml,
and .vap/state.<profile>.json (ids and hashes of the last sync; commit it). vap finds
vap.yaml by walking up from the current directory (or from --dir).`;
