import type { ProjectFs } from '../ascode/paths.js';
import { loadState, saveState, stateFile } from '../ascode/state.js';
import type { CopyRecord, CopyStore } from './copies.js';

/**
 * Bisect copies are recorded in the project's state (`.vap/state.<profile>.json`, previews) as `vap preview` records its own, so that
 * `vap preview --clean` removes them too. The state is read again before each write, so what a preview recorded meanwhile is kept.
 */
export class ProjectCopyStore implements CopyStore {
  readonly where: string;
  constructor(
    private readonly fs: ProjectFs,
    private readonly profile: string,
  ) {
    this.where = stateFile(profile);
  }

  async all(): Promise<CopyRecord[]> {
    const s = await loadState(this.fs, this.profile);
    return Object.entries(s.previews)
      .filter(([key, r]) => isBisectKey(key, r.label))
      .map(([key, r]) => ({ key, ...r }));
  }

  async put(rec: CopyRecord): Promise<void> {
    const s = await loadState(this.fs, this.profile);
    const { key, ...r } = rec;
    s.previews[key] = { ...r, suites: r.suites.map((x) => ({ ...x })) };
    await saveState(this.fs, s);
  }

  async forget(key: string): Promise<void> {
    const s = await loadState(this.fs, this.profile);
    if (!(key in s.previews)) return;
    delete s.previews[key];
    await saveState(this.fs, s);
  }
}

/** A previews entry a bisect made: `<slug>.bisect-<commit>`, its label `bisect-<commit>`. */
export const isBisectKey = (key: string, label: string) => label.startsWith('bisect-') && key.endsWith(`.${label}`);
