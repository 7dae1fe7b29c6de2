import type { ApiClient } from '../api/client.js';
import { listVoices } from '../api/voices.js';
import type { ProjectFs } from '../ascode/paths.js';
import { ProblemList } from '../ascode/problems.js';
import { readConfig } from '../ascode/project.js';
import { RemoteReader } from '../ascode/remote.js';
import { loadState } from '../ascode/state.js';
import type { Names } from './git-versions.js';

/**
 * The names a profile knows, as a plan resolves them: tool ids from the state and vap.yaml's
 * profile (vap.yaml wins), then those the organization's agents show; the platform's voices.
 */
export async function profileNames(fs: ProjectFs, profile: string, api: ApiClient, signal?: AbortSignal): Promise<Names> {
  const problems = new ProblemList();
  const [config, state, voices] = await Promise.all([readConfig(fs, problems), loadState(fs, profile), listVoices(api, {}, signal)]);
  problems.throwIfAny(() => undefined);
  const tools = { ...state.tools, ...(config?.profiles.get(profile)?.tools ?? {}) };
  return { tools, voices, learnTools: (names) => new RemoteReader(api, signal).learnTools(names, new Set()) };
}
