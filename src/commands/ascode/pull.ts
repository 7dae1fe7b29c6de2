import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Context, GlobalOptions } from '../../context.js';
import { UsageError } from '../../errors.js';
import { safeText } from '../../ui/safe-text.js';
import { action } from '../action.js';
import type { RegisterGroup } from '../types.js';
import { addDirOption, currentProfile, PROJECT_HELP, type DirOptions } from './common.js';

interface PullOptions extends DirOptions {
  all?: boolean;
  agent?: string[];
  webhooks?: boolean;
  force?: boolean;
}

const collect = (v: string, prev: string[] = []) => [...prev, ...v.split(',').map((s) => s.trim()).filter(Boolean)];

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
  if (opts.all && opts.agent?.length) throw new UsageError('--all and --agent choose differently', 'pass one of them');
  const [{ findRoot, readConfig }, { ProblemList }, { loadState }, { configPath, configWithProfile, newConfig, writeFileAtomic }] = await Promise.all([
    import('../../ascode/project.js'),
    import('../../ascode/problems.js'),
    import('../../ascode/state.js'),
    import('../../ascode/write.js'),
  ]);
  const start = resolve(opts.dir ?? '.');
  const profile = await currentProfile(ctx);
  let root = findRoot(start);
  const created = !root;
  if (!root) {
    if (!opts.all && !opts.agent?.length && !opts.webhooks) {
      throw new UsageError(`no vap.yaml in ${start} or any folder above it, and nothing to pull`, 'start a project here with `vap pull --all` (or --agent <id>, --webhooks)');
    }
    if (!existsSync(start)) throw new UsageError(`${start} does not exist`, 'create the folder first, or pass another --dir');
    root = start;
  }
  const problems = new ProblemList();
  let config = created ? undefined : await readConfig(root, problems);
  problems.throwIfAny((l) => ctx.note(l.trimEnd()));
  const api = await ctx.api();
  const settings = config?.profiles.get(profile) ?? { vars: {}, tools: {} };
  const state = await loadState(root, profile);
  if (created) await writeFileAtomic(configPath(root), newConfig(profile));
  else if (!config!.profiles.has(profile)) await writeFileAtomic(configPath(root), configWithProfile(await readFile(configPath(root), 'utf8'), profile));
  config = undefined;
  const spinner = await ctx.spinner(`Pulling from profile ${profile}…`);
  const { pull } = await import('../../ascode/pull.js');
  let result: Awaited<ReturnType<typeof pull>>;
  try {
    result = await pull({ api, root, profile, settings, state, selection: { all: opts.all, agents: opts.agent, webhooks: opts.webhooks }, force: Boolean(opts.force), signal: ctx.signal });
  } finally {
    spinner.stop();
  }
  for (const f of result.written) ctx.info(`  wrote   ${safeText(f)}`);
  for (const f of result.removed) ctx.info(`  removed ${safeText(f)} (gone from the platform)`);
  const c = result.counts;
  const n = (k: number, one: string) => `${k} ${one}${k === 1 ? '' : 's'}`;
  await ctx.success(
    `Pulled ${n(c.agents, 'agent')}, ${n(c.suites, 'suite')} and ${n(c.webhooks, 'webhook endpoint')} of profile "${safeText(profile)}" into ${safeText(root)}: ` +
      `${n(result.written.length, 'file')} written, ${result.unchanged.length} unchanged${result.removed.length ? `, ${result.removed.length} removed` : ''}${created ? ' (vap.yaml created)' : ''}`,
  );
}
