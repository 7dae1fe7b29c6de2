import type { Context } from '../context.js';

/**
 * Asks before a destructive step; without a terminal the prompter refuses, naming `flag`. A "no"
 * is the user's choice, not a failure: the verb says on stderr what was kept and exits 0.
 * Returns whether to go on.
 */
export async function confirmOrKeep(ctx: Context, question: string, kept: string, flag = '--yes'): Promise<boolean> {
  const ok = await ctx.prompter.confirm(question, { flag, default: false });
  if (!ok) ctx.info(kept);
  return ok;
}
