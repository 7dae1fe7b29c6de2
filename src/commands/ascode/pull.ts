import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context, GlobalOptions } from '../../context.js';
import { UsageError } from '../../errors.js';
import { safeText } from '../../ui/safe-text.js';
import { action } from '../action.js';
import type { RegisterGroup } from '../types.js';
import { addDirOption, currentProfile, PROJECT_HELP, type DirOptions, growYoungGenerationFast, projectPort } from './common.js';

interface PullOptions extends DirOptions {
  all?: boolean;
  agent?: string[];
  webhooks?: boolean;
  force?: boolean;
}

const collect = (v: string, prev: string[] = []) => [
  ...prev,
  ...v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

export const register: RegisterGroup = (cmd, makeContext) => {
  addDirOption(cmd)
    .description("Write the profile's agents, eval suites and webhook endpoints as files (vap.yaml, agents/, webhooks/)")
    .option('--all', 'every agent (with its suites) and every webhook endpoint of the organization')
    .option('--agent <id|slug>', 'an agent, by id or by the slug of its folder (repeatable, or comma-separated)', collect)
    .option('--webhooks', 'every webhook endpoint')
    .option('--force', 'overwrite files changed locally since the last sync')
    .addHelpText(
      'after',
      `
Without a selection, pull refreshes what this folder already tracks for the profile.
A file changed locally since the last sync is not overwritten (pull names it) unless
--force. A file whose content already matches the platform is not rewritten: a pull
right after a push, or a second pull, changes no byte. Where there is no vap.yaml
above the current directory, one is created here naming the profile.

A webhook URL equal to one of the profile's vars is written as \${vars.NAME}. Secrets
are never written: a new endpoint's secret is shown once by \`vap push\`.

${PROJECT_HELP}

Examples:
  $ vap pull --all
  $ vap pull --agent ag_3k9x0c1m2p8q7r4t --agent front-desk
  $ vap pull --webhooks --profile staging
  $ vap pull                      (refresh what is tracked)`,
    )
    .action(action<PullOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
};

export async function run(opts: PullOptions & GlobalOptions, ctx: Context): Promise<void> {
  await growYoungGenerationFast();
  if (opts.all && opts.agent?.length) throw new UsageError('--all and --agent choose differently', 'pass one of them');
  const [
    { findRoot, readConfig },
    { ProblemList },
    { loadState, recordOrigin },
    { configWithProfile, newConfig },
    { ProjectFs, checkLayout },
    { normalise, inForm },
    { confirmMissing, confirmOrigin },
  ] = await Promise.all([
    import('../../ascode/project.js'),
    import('../../ascode/problems.js'),
    import('../../ascode/state.js'),
    import('../../ascode/write.js'),
    import('../../ascode/paths.js'),
    import('../../ascode/text-form.js'),
    import('../../ascode/sync-guard.js'),
  ]);
  const start = resolve(opts.dir ?? '.');
  const profile = await currentProfile(ctx);
  let root = findRoot(start);
  const created = !root;
  if (!root) {
    if (!opts.all && !opts.agent?.length && !opts.webhooks) {
      throw new UsageError(
        `no vap.yaml in ${start} or any folder above it, and nothing to pull`,
        'start a project here with `vap pull --all` (or --agent <id>, --webhooks)',
      );
    }
    if (!existsSync(start)) throw new UsageError(`${start} does not exist`, 'create the folder first, or pass another --dir');
    root = start;
  }
  const fs = new ProjectFs(root);
  checkLayout(fs);
  const problems = new ProblemList();
  let config = created ? undefined : await readConfig(fs, problems);
  problems.throwIfAny((l) => ctx.note(l.trimEnd()));
  const api = await ctx.api();
  const creds = await ctx.credentials();
  const settings = config?.profiles.get(profile) ?? { vars: {}, tools: {} };
  const state = await loadState(fs, profile);
  await confirmOrigin(projectPort(ctx), state, creds);
  if (created) await fs.writeText('vap.yaml', newConfig(profile));
  else if (!config!.profiles.has(profile)) {
    const raw = (await fs.readText('vap.yaml'))!;
    const { text, form } = normalise(raw);
    await fs.writeText('vap.yaml', inForm(configWithProfile(text, profile), form));
  }
  const elsewhere = await otherProfiles(fs, profile, config);
  config = undefined;
  const spinner = await ctx.spinner(`Pulling from profile ${profile}…`);
  const { pull } = await import('../../ascode/pull.js');
  let result: Awaited<ReturnType<typeof pull>>;
  try {
    if (creds.apiKey) recordOrigin(state, creds.baseUrl, creds.apiKey);
    result = await pull({
      api,
      fs,
      profile,
      settings,
      state,
      selection: { all: opts.all, agents: opts.agent, webhooks: opts.webhooks },
      force: Boolean(opts.force),
      signal: ctx.signal,
      elsewhere,
      confirmMissing: async (missing, tracked) => {
        spinner.stop();
        await confirmMissing(projectPort(ctx), profile, missing, tracked);
      },
    });
  } finally {
    spinner.stop();
  }
  await reportPull(ctx, result, profile, fs.root, created);
}

/** What the pull wrote, removed and kept, then its one-line summary. */
async function reportPull(ctx: Context, result: import('../../ascode/pull.js').PullResult, profile: string, root: string, created: boolean): Promise<void> {
  for (const f of result.written) ctx.info(`  wrote   ${safeText(f)}`);
  for (const f of result.removed) ctx.info(`  removed ${safeText(f)} (gone from the platform)`);
  for (const k of result.kept) ctx.info(`  kept    ${safeText(k.path)}: ${safeText(k.why)}`);
  const c = result.counts;
  const n = (k: number, one: string) => `${k} ${one}${k === 1 ? '' : 's'}`;
  await ctx.success(
    `Pulled ${n(c.agents, 'agent')}, ${n(c.suites, 'suite')} and ${n(c.webhooks, 'webhook endpoint')} of profile "${safeText(profile)}" into ${safeText(root)}: ` +
      `${n(result.written.length, 'file')} written, ${result.unchanged.length} unchanged${result.removed.length ? `, ${result.removed.length} removed` : ''}${result.kept.length ? `, ${result.kept.length} kept` : ''}${created ? ' (vap.yaml created)' : ''}`,
  );
}

/** The states of the other profiles of the project (one that cannot be read is left out: it is not this pull's). */
async function otherProfiles(
  fs: import('../../ascode/paths.js').ProjectFs,
  profile: string,
  config: import('../../ascode/project.js').ProjectConfig | undefined,
): Promise<import('../../ascode/pull.js').OtherProfile[]> {
  const { readdir } = await import('node:fs/promises');
  const { loadState } = await import('../../ascode/state.js');
  let names: string[];
  try {
    names = await readdir(`${fs.root}/.vap`);
  } catch {
    return [];
  }
  const out: import('../../ascode/pull.js').OtherProfile[] = [];
  for (const n of names) {
    const p = /^state\.([A-Za-z0-9][A-Za-z0-9._-]{0,63})\.json$/.exec(n)?.[1];
    if (!p || p === profile) continue;
    try {
      out.push({ state: await loadState(fs, p), vars: config?.profiles.get(p)?.vars ?? {} });
    } catch {
      // Not readable: another command says so when it is that profile's turn.
    }
  }
  return out;
}
