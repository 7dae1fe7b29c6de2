import { openProject, planFor } from './open.js';
import { hasChanges, type Plan } from './plan.js';
import type { ProjectPort } from './port.js';
import { currentProfile } from '../config/profile-name.js';

/**
 * The plan of a project folder for the active profile: the files, the last sync and the platform compared (`vap diff`,
 * the MCP tool). The files' problems are said on the way, then thrown (exit 2).
 */
export async function planFolder(port: ProjectPort, opts: { dir?: string }): Promise<{ plan: Plan; changed: boolean }> {
  const project = await openProject(opts, port, await currentProfile(port), { api: () => port.api() });
  const plan = await planFor(project, await port.api(), {}, port);
  return { plan, changed: hasChanges(plan) };
}
