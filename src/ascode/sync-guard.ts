import { CliError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { safeText } from '../ui/safe-text.js';
import type { ProjectPort } from './port.js';
import { originChange, stateFile, type State } from './state.js';

/**
 * No endpoint names a key's organization, so before a pull, diff or push trusts what it reads: a base URL or key the state was
 * not synced with is said first (asked once on a terminal), and ids answering 404 are evidence, not proof: when too many are
 * missing the key is probably another organization's, and they are not taken as deleted without --yes.
 */

/** Says (and on a terminal asks) when the credentials differ from those the state was synced with. */
export async function confirmOrigin(
  ctx: Pick<ProjectPort, 'warn' | 'yes' | 'confirm'>,
  state: State,
  creds: { baseUrl: string; apiKey?: string },
): Promise<void> {
  if (!creds.apiKey) return;
  const change = originChange(state, creds.baseUrl, creds.apiKey);
  if (!change) return;
  const what = [
    change.url !== undefined ? `the base URL ${creds.baseUrl} (it was synced with ${change.url})` : '',
    change.key ? 'an API key it was never synced with' : '',
  ]
    .filter(Boolean)
    .join(' and ');
  await ctx.warn(`${stateFile(state.profile)} was synced with another ${change.url !== undefined ? 'server' : 'key'}: this run uses ${safeText(what)}`);
  if (ctx.yes || !ctx.confirm) return;
  const ok = await ctx.confirm(`Use it for profile "${safeText(state.profile)}"? A key of another organization would see every tracked resource as deleted`);
  if (!ok) throw new CliError('cancelled; nothing was changed', ExitCode.FAILURE, 'check VAP_API_KEY, --profile and --base-url');
}

/** The share of tracked ids that may be missing before they are taken as a sign of another organization's key. */
export function tooManyMissing(missing: number, tracked: number): boolean {
  return missing > 0 && (missing > tracked / 2 || missing > 10);
}

/**
 * Refuses to treat missing ids as deleted when too many are missing, unless --yes (or a
 * yes on a terminal). `names` are the tracked resources that answered 404.
 */
export async function confirmMissing(ctx: Pick<ProjectPort, 'warn' | 'yes' | 'confirm'>, profile: string, names: string[], tracked: number): Promise<void> {
  if (!tooManyMissing(names.length, tracked)) return;
  const shown = names.slice(0, 5).join(', ') + (names.length > 5 ? `, and ${names.length - 5} more` : '');
  const message = `${names.length} of the ${tracked} resources ${stateFile(profile)} tracks answer 404 (${shown}): the key probably belongs to another organization than the one this state was synced with`;
  if (ctx.yes) {
    await ctx.warn(`${safeText(message)}; going on (--yes)`);
    return;
  }
  if (ctx.confirm) {
    await ctx.warn(safeText(message));
    if (await ctx.confirm('Treat them as deleted on the platform?')) return;
    throw new CliError('cancelled; nothing was changed', ExitCode.FAILURE, 'check VAP_API_KEY and --profile');
  }
  throw new UsageError(`${message}; nothing was changed`, 'check VAP_API_KEY and --profile; if they really were deleted, pass --yes');
}
