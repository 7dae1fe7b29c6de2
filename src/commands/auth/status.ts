import { Command } from 'commander';
import type { Context } from '../../context.js';
import { readConfig } from '../../config/read.js';
import { keyPrefix, missingKeyError } from '../../config/resolve.js';
import { SilentExit } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { action } from '../action.js';
import { safeText } from '../../ui/safe-text.js';
import { terminalWidth } from '../../ui/width.js';
import { hanging } from '../../ui/wrap.js';
import { redactUrl } from '../../api/redact.js';
import type { ContextFactory } from '../types.js';

interface Check {
  api: string;
  header: string;
  ok: boolean;
  detail: string;
}

export function statusCommand(makeContext: ContextFactory): Command {
  return new Command('status')
    .description('Show the active profile, base URL and key prefix, and check the key against the API')
    .addHelpText(
      'after',
      `
Exit status is 0 when the key is accepted, 4 when there is no key or it is
refused, and 1 when the API cannot be reached.

Examples:
  $ vap auth status
  $ vap auth status --profile staging --json`,
    )
    .action(action(makeContext, (_args, _opts, ctx) => run(ctx)));
}

export async function run(ctx: Context): Promise<void> {
  const creds = await ctx.credentials();
  if (!creds.apiKey) {
    throw missingKeyError(creds, readConfig(ctx.env).profilesWithKeys(), `not logged in at ${redactUrl(creds.baseUrl)}`);
  }
  const api = await ctx.api();
  const { checkKey } = await import('../../api/identity.js');
  const { ApiError } = await import('../../api/errors.js');
  const checks: Check[] = [];
  let code: number = ExitCode.OK;
  for (const [which, label, header] of [
    ['bearer', 'agents, evals, webhooks, events', 'Authorization: Bearer'],
    ['x-api-key', 'contacts, calls, campaigns, analytics', 'x-api-key'],
  ] as const) {
    try {
      await checkKey(api, which, ctx.signal);
      checks.push({ api: label, header, ok: true, detail: 'accepted' });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const refused = err.status === 401 || err.status === 403;
      checks.push({ api: label, header, ok: false, detail: `${refused ? 'refused' : 'error'}: ${err.message} (HTTP ${err.status})` });
      code = refused ? ExitCode.AUTH : Math.max(code, ExitCode.FAILURE);
    }
  }
  const status = {
    profile: creds.profile,
    baseUrl: redactUrl(creds.baseUrl),
    keyPrefix: keyPrefix(creds.apiKey),
    keySource: creds.sources.apiKey === 'env' ? 'VAP_API_KEY' : 'config file',
    baseUrlSource: creds.sources.baseUrl,
    checks,
  };
  if (ctx.out.human) {
    const chalk = await ctx.stdoutStyle();
    // The base URL and key come from settings, the details from the API: shown safe (hanging does),
    // and on a terminal wrapped within its width under their labels.
    const width = terminalWidth(ctx.io.stdout, ctx.env);
    const lines = [
      ...hanging('Profile   ', status.profile, width),
      ...hanging('Base URL  ', `${status.baseUrl} (from ${status.baseUrlSource})`, width),
      ...hanging('API key   ', `${status.keyPrefix} (from ${status.keySource})`, width),
      ...checks.map((c) => hanging(`${c.ok ? chalk.green('✓') : chalk.red('✗')} `, `${c.header.padEnd(21)} ${c.api}: ${c.detail}`, width, 2).join('\n')),
    ];
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
  } else {
    await ctx.out.item(status, {
      fields: [
        { header: 'profile', value: (s) => s.profile },
        { header: 'base_url', value: (s) => s.baseUrl },
        { header: 'key_prefix', value: (s) => s.keyPrefix },
        { header: 'key_source', value: (s) => s.keySource },
        ...checks.map((c, i) => ({ header: `check_${i === 0 ? 'bearer' : 'x_api_key'}`, value: () => c.detail })),
      ],
      id: (s) => s.profile,
    });
  }
  if (code !== ExitCode.OK) {
    const failed = checks.find((c) => !c.ok)!;
    ctx.io.stderr.write(`error: ${safeText(`${failed.header} ${failed.detail}`)}\n`);
    throw new SilentExit(code as 1 | 4);
  }
}
