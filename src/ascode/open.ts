import type { ApiClient } from '../api/client.js';
import { buildPlan, missingTracked, trackedCount, type Plan, type PlanOptions } from './plan.js';
import { Arrivals, readRemote, type RemoteSnapshot } from './remote-read.js';
import { checkLayout, ProjectFs } from './paths.js';
import { CONFIG_FILE, findRoot, noProjectError, readConfig, readFiles, type LocalFiles, type ProfileSettings, type ProjectConfig } from './project.js';
import { listPresence } from './scan.js';
import { inForm, normalise } from './text-form.js';
import type { ProjectPort } from './port.js';
import { ProblemList } from './problems.js';
import { RemoteReader } from './remote.js';
import { loadState, SECTION, type State } from './state.js';
import { confirmMissing, confirmOrigin } from './sync-guard.js';

export interface OpenProject {
  root: string;
  /** Every path vap writes, reads or removes in the project goes through it. */
  fs: ProjectFs;
  config: ProjectConfig;
  profile: string;
  settings: ProfileSettings;
  state: State;
  files: LocalFiles;
}

/** The project folder at or above `start`, its layout checked (no link where vap writes). */
export function openRoot(start: string): ProjectFs {
  const root = findRoot(start);
  if (!root) throw noProjectError(start);
  const fs = new ProjectFs(root);
  checkLayout(fs);
  return fs;
}

/**
 * The project, the active profile (it must be one vap.yaml lists), its state and the
 * files, read and checked: a problem in any file is exit 2 before anything is sent, and
 * a platform read started early is stopped at once (no request is left retrying).
 */
export async function openProject(
  opts: { dir?: string },
  ctx: ProjectPort,
  profile: string,
  early?: EarlyRead,
  how: { addProfile?: boolean } = {},
): Promise<OpenProject & { remote?: EarlyRemote }> {
  const fs = openRoot(opts.dir ?? '.');
  const root = fs.root;
  const problems = new ProblemList();
  const config = await readConfig(fs, problems);
  problems.throwIfAny((l) => ctx.note(l.trimEnd()));
  let settings = config!.profiles.get(profile);
  if (!settings) {
    // A profile vap.yaml does not list yet: push (and preview, promote) add it, as pull does;
    // diff compares with no vars and no tool ids of its own.
    settings = { vars: {}, tools: {} };
    if (how.addProfile) {
      // write.ts (and slugify's transliteration tables, tens of milliseconds to load) only when vap.yaml is written.
      const { configWithProfile } = await import('./write.js');
      const raw = (await fs.readText(CONFIG_FILE))!;
      const { text, form } = normalise(raw);
      await fs.writeText(CONFIG_FILE, inForm(configWithProfile(text, profile), form));
      config!.profiles.set(profile, settings);
      ctx.info(`Added profile "${profile}" to vap.yaml`);
    } else {
      ctx.info(`Profile "${profile}" is not in vap.yaml yet: compared with no vars and no tool ids of its own (a push or pull adds it)`);
    }
  }
  const state = await loadState(fs, profile);
  await confirmOrigin(ctx, state, await ctx.credentialsFor(profile));
  // `vap diff` and `vap promote` read the platform while the files are parsed (and stop on a
  // problem in them); `vap push` sends nothing at all before they are checked.
  const stop = new AbortController();
  const onAbort = () => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  const arrivals = new Arrivals();
  const presence = early ? listPresence(root) : undefined;
  const snapshot = presence ? readRemote(state, presence, new RemoteReader(await early!.api(), stop.signal), arrivals) : undefined;
  snapshot?.catch(() => undefined);
  const remote = snapshot && { snapshot, arrivals };
  try {
    const files = await readFiles(root, { vars: settings.vars, profile }, problems, (kind, key) => state[SECTION[kind]][key], presence?.listing);
    problems.throwIfAny((l) => ctx.note(l.trimEnd()));
    return { root, fs, config: config!, profile, settings: settings!, state, files, remote };
  } catch (err) {
    stop.abort(err);
    throw err;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

export interface EarlyRead {
  api(): Promise<ApiClient>;
}

/** The platform read started while the files were read, and its resources as they arrive. */
export interface EarlyRemote {
  snapshot: Promise<RemoteSnapshot>;
  arrivals: Arrivals;
}

/**
 * Reads the platform and builds the plan; an unknown tool or voice name is exit 2,
 * nothing sent. Too many tracked ids missing (another organization's key?) needs --yes.
 */
export async function planFor(p: OpenProject & { remote?: EarlyRemote }, api: ApiClient, opts: PlanOptions, ctx: ProjectPort): Promise<Plan> {
  const spinner = await ctx.spinner(`Reading profile ${p.profile}…`);
  let plan: Plan;
  try {
    const built = await buildPlan(
      {
        config: p.config,
        profile: p.profile,
        files: p.files,
        state: p.state,
        reader: new RemoteReader(api, ctx.signal),
        opts: { ...opts, profile: p.profile },
      },
      p.remote,
    );
    spinner.stop();
    built.problems.throwIfAny((l) => ctx.note(l.trimEnd()));
    plan = built.plan;
  } finally {
    spinner.stop();
  }
  await confirmMissing(ctx, p.profile, missingTracked(plan), trackedCount(p.state));
  return plan;
}
