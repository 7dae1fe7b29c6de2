import { UsageError } from '../errors.js';

/** A profile name that can name a state file (.vap/state.<profile>.json). */
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A profile named by a flag (`--from`, `--to`), checked to be usable in a file name. */
export function checkProfileName(profile: string, flag: string): string {
  if (!PROFILE_NAME.test(profile)) throw new UsageError(`${flag} "${profile}" cannot name a profile`, 'use letters, digits, ".", "_" and "-" in profile names');
  return profile;
}

/** The active profile (flag, env, config), checked to be usable in a file name. */
export async function currentProfile(ctx: { credentials(): Promise<{ profile: string }> }): Promise<string> {
  const { profile } = await ctx.credentials();
  if (!PROFILE_NAME.test(profile))
    throw new UsageError(`profile "${profile}" cannot name a state file`, 'use letters, digits, ".", "_" and "-" in profile names');
  return profile;
}
