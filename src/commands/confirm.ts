import type { Context } from '../context.js';

/**
 * Asks before a destructive step (on a terminal; without one, the prompter refuses naming
 * `flag`, before anything is sent). A "no" is the user's choice, not a failure: the verb
 * says what was kept (`nothing deleted: …`) on stderr and ends with exit 0.
 * Returns whether to go on.
 */
export async function confirmOrKeep(ctx: Context, question: string, kept: string, flag = '--yes'): Promise<boolean> {
  const ok = await ctx.prompter.confirm(question, { flag, default: false });
  if (!ok) ctx.info(kept);
  return ok;
}
