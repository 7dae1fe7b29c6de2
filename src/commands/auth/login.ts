import { Command } from 'commander';
import { redactUrl } from '../../api/redact.js';
import type { Context } from '../../context.js';
import { safeText } from '../../ui/safe-text.js';
import { keyPrefix } from '../../config/resolve.js';
import { AuthRequiredError, UsageError } from '../../errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

interface LoginOptions {
  withKey?: boolean;
  verify: boolean;
}

export function loginCommand(makeContext: ContextFactory): Command {
  return new Command('login')
    .description('Store an API key in the active profile (prompted on a terminal, or read from stdin with --with-key)')
    .option('--with-key', 'read the key from standard input (for CI and scripts)')
    .option('--no-verify', 'store the key without checking it against the API')
    .addHelpText(
      'after',
      `
The key is checked against the API, then stored in the profile's config file
(mode 0600) together with the base URL given by --base-url or VAP_BASE_URL.
The first login on a machine makes its profile the default (as gh does), so that
plain commands use it; \`vap config set default_profile <name>\` changes it.

Examples:
  $ vap auth login
  $ vap auth login --base-url http://127.0.0.1:4010
  $ echo "$VAP_KEY" | vap auth login --with-key --profile ci
  $ vap auth login --profile staging          (the first login: staging becomes the default)`,
    )
    .action(action<LoginOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

async function readStdin(ctx: Context): Promise<string> {
  let text = '';
  for await (const chunk of ctx.io.stdin) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  return text;
}

export async function run(opts: LoginOptions, ctx: Context): Promise<void> {
  let key: string;
  if (opts.withKey) {
    if (ctx.io.stdinIsTTY)
      throw new UsageError('--with-key reads the key from standard input, but stdin is a terminal', 'pipe the key in: echo "$KEY" | vap auth login --with-key');
    key = (await readStdin(ctx)).trim();
  } else {
    if (!ctx.prompter.canPrompt) {
      throw new UsageError('no terminal to ask for the key', 'pipe it in with --with-key: echo "$KEY" | vap auth login --with-key');
    }
    key = (await ctx.prompter.password('API key:', { flag: '--with-key' })).trim();
  }
  if (!key) throw new UsageError('the API key is empty', 'pass the key on stdin with --with-key, or type it at the prompt');
  const { apiKeyProblem, checkBaseUrl, checkNumericSettings, numericSetting } = await import('../../config/resolve.js');
  const keyProblem = apiKeyProblem(key);
  if (keyProblem) throw new UsageError(`the API key ${opts.withKey ? 'read from stdin' : 'typed'} ${keyProblem}`, 'check that only the key was pasted');

  const creds = await ctx.credentials();
  const baseUrl = checkBaseUrl(creds.baseUrl, creds.sources.baseUrl, creds.profile, creds.configPath);
  checkNumericSettings(ctx.env);
  const shownUrl = redactUrl(baseUrl);
  // The key is stored once checked: a config that cannot be written is refused before anything is sent.
  const store = await ctx.config();
  store.assertWritable();

  if (opts.verify) {
    const { ApiClient } = await import('../../api/client.js');
    const { checkKey } = await import('../../api/identity.js');
    const { AuthenticationError, PermissionDeniedError } = await import('../../api/errors.js');
    const { version } = await import('../../version.js');
    const api = new ApiClient({
      baseUrl,
      apiKey: key,
      userAgent: `vap/${version()}`,
      timeoutMs: numericSetting(ctx.env, 'VAP_TIMEOUT_MS'),
      log: ctx.globals.verbose ? (l) => ctx.io.stderr.write(`${safeText(l)}\n`) : undefined,
    });
    try {
      await checkKey(api, 'bearer', ctx.signal);
    } catch (err) {
      if (err instanceof AuthenticationError || err instanceof PermissionDeniedError) {
        throw new AuthRequiredError(`the API at ${shownUrl} refused this key (HTTP ${err.status}); nothing was stored`, 'check the key and try again');
      }
      throw err;
    } finally {
      await api.close();
    }
  }

  // The first login on this machine (no default chosen, no key stored yet) makes its profile
  // the default, as gh does: plain commands then use the profile just logged in to.
  const first = store.defaultProfile === undefined && store.profilesWithKeys().length === 0;
  store.updateProfile(creds.profile, { apiKey: key, baseUrl });
  if (first && creds.profile !== 'default') store.setDefaultProfile(creds.profile);
  await ctx.success(`Logged in to ${shownUrl} as profile "${creds.profile}" (key ${keyPrefix(key)})`);
  if (first && creds.profile !== 'default') {
    ctx.info(
      `Profile "${creds.profile}" is now the default (the first login on this machine); commands without --profile use it. Change it with \`vap config set default_profile <name>\`.`,
    );
  }
  if (ctx.env.VAP_API_KEY && ctx.env.VAP_API_KEY !== key) {
    await ctx.warn('VAP_API_KEY is set in the environment and takes precedence over the stored key');
  }
}
