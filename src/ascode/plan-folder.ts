import type { Context } from '../context.js';
import { openProject, planFor } from './open.js';
import { hasChanges, type Plan } from './plan.js';
import { currentProfile } from '../config/profile-name.js';

/**
 * The plan of a project folder for the active profile: the files, the last sync and the
 * platform compared (`vap diff`, the MCP tool). The files' problems are said on the way.
 */
export async function planFolder(ctx: Context, opts: { dir?: string }): Promise<{ plan: Plan; changed: boolean }> {
  const project = await openProject(opts, ctx, await currentProfile(ctx), { api: () => ctx.api() });
  const plan = await planFor(project, await ctx.api(), {}, ctx);
  return { plan, changed: hasChanges(plan) };
}
