import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { UsageError } from '../errors.js';
import type { ProjectFs } from './paths.js';
import { journalFile, saveState, type State } from './state.js';

/**
 * The durable writes of a push cost its change, not the state: instead of rewriting the
 * whole state file for each resource, the entries a step changes are appended to
 * `.vap/state.<profile>.journal` (one line per commit: a CRC-32 and the changed entries as
 * JSON), and the state file is written once, at the end (`checkpoint`), which removes the
 * journal. A push killed at any point leaves the state file of the last checkpoint and the
 * journal of what followed; the next read of the state replays the journal's complete
 * lines (loadState), so nothing acknowledged is lost and the kill-safety of the intents is
 * kept. As in the emulator's journal, commits made while a write is under way are written
 * together by the next one.
 *
 * `note` queues the entries as they are now, to be written with the next durable commit;
 * `durable` writes what is queued and waits for fdatasync. An intent must be durable before
 * the request it announces is sent (a create or update the next run must find); what
 * follows a request (the platform's id, the synced entry) may ride along with the next
 * durable commit: if it is lost, the intent still leads the next run to adopt the
 * resource.
 */

/** A journal line's change: the entry's new value, or null when it was removed. */
export type JournalChange = [section: JournalSection, key: string, value: unknown];
export type JournalSection = 'agents' | 'suites' | 'webhooks' | 'intents' | 'tools' | 'passed' | 'previews' | 'origin';

export class StateJournal {
  private handle: FileHandle | undefined;
  private queued: JournalChange[] = [];
  private writing: Promise<void> | undefined;
  private wrote = false;

  constructor(
    private readonly fs: ProjectFs,
    private readonly state: State,
  ) {}

  /** Queues the current values of these entries (of `state`) for the next durable commit. */
  note(...entries: Array<[JournalSection, string]>): void {
    for (const [section, key] of entries) {
      const v = section === 'origin' ? this.state.origin : (this.state[section] as Record<string, unknown>)[key];
      this.queued.push([section, key, v === undefined ? null : structuredClone(v)]);
    }
  }

  /** Writes everything queued and waits until it is on disk; concurrent calls share writes. */
  async durable(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.queued.length === 0) return;
    const batch = this.queued;
    this.queued = [];
    this.writing = this.write(batch).finally(() => (this.writing = undefined));
    await this.writing;
  }

  private async write(batch: JournalChange[]): Promise<void> {
    if (!this.handle) {
      const rel = journalFile(this.state.profile);
      // Through no link; a journal left by a killed push was replayed into `state` when it was read.
      const st = this.fs.checkNoLinks(rel);
      if (st && !st.isFile()) throw new UsageError(`${rel} is not a file`, 'move it out of the way');
      await this.fs.ensureDir('.vap');
      this.handle = await open(this.fs.resolve(rel), 'a+', 0o644);
      await trimTornTail(this.handle);
    }
    const json = Buffer.from(JSON.stringify(batch), 'utf8');
    const line = Buffer.concat([Buffer.from(`${crc32(json).toString(16).padStart(8, '0')} `, 'latin1'), json, Buffer.from('\n')]);
    await this.handle.appendFile(line);
    await this.handle.datasync();
    this.wrote = true;
  }

  /** The whole state to its file (atomic, flushed), then the journal removed. */
  async checkpoint(): Promise<void> {
    while (this.writing) await this.writing;
    this.queued = [];
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    await saveState(this.fs, this.state);
    this.wrote = false;
  }

  /**
   * Whether the state file is behind: something was written or queued since the last
   * checkpoint, or a killed push's journal (replayed into the state when it was read) is
   * still on disk. A push that ends folds such a journal into the state file, so that what
   * is committed is the one file, whole.
   */
  get dirty(): boolean {
    return this.wrote || this.queued.length > 0 || this.fs.checkNoLinks(journalFile(this.state.profile)) !== undefined;
  }
}

/**
 * A push killed in the middle of an append leaves a torn last line (never acknowledged, and
 * dropped when the journal is replayed); the next push's lines must not be glued to it, so it
 * is cut off before anything is appended.
 */
async function trimTornTail(handle: FileHandle): Promise<void> {
  const { size } = await handle.stat();
  if (size === 0) return;
  const chunk = Buffer.alloc(Math.min(size, 64 * 1024));
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await handle.read(chunk, 0, end - start, start);
    const nl = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (nl >= 0) {
      if (start + nl + 1 < size) await handle.truncate(start + nl + 1);
      return;
    }
    end = start;
  }
  await handle.truncate(0);
}

