import { Command } from 'commander';
import type { Context } from '../../context.js';
import { readConfig } from '../../config/read.js';
import { keyPrefix } from '../../config/resolve.js';
import { redactUrl } from '../../api/redact.js';
import { withPolicy } from '../../ui/columns.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

export interface Setting {
  key: string;
  value: string;
  source: string;
}

export function listCommand(makeContext: ContextFactory): Command {
  return new Command('list')
    .alias('ls')
    .description('Show the settings in effect, and where each comes from')
    .addHelpText('after', `
Examples:
  $ vap config list
  $ vap config list --profile staging --json`)
    .action(action(makeContext, (_args, _opts, ctx) => run(ctx)));
}

export async function settings(ctx: Context): Promise<Setting[]> {
  const creds = await ctx.credentials();
  const store = readConfig(ctx.env);
  return [
    { key: 'profile', value: creds.profile, source: creds.sources.profile },
    { key: 'base_url', value: redactUrl(creds.baseUrl), source: creds.sources.baseUrl },
    { key: 'api_key', value: creds.apiKey ? keyPrefix(creds.apiKey) : '', source: creds.sources.apiKey },
    { key: 'default_profile', value: store.defaultProfile ?? 'default', source: store.defaultProfile ? 'config' : 'default' },
    { key: 'config_file', value: store.path, source: ctx.env.VAP_CONFIG_DIR ? 'env' : 'default' },
  ];
}

export async function run(ctx: Context): Promise<void> {
  await ctx.out.list(await settings(ctx), {
    columns: withPolicy<Setting>(
      [
        { header: 'key', value: (s) => s.key },
        { header: 'value', value: (s) => s.value },
        { header: 'source', value: (s) => s.source },
      ],
      { keep: ['key', 'value'] },
    ),
    id: (s) => s.key,
  });
}
