import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { UsageError } from '../errors.js';
import type { ProjectFs } from './paths.js';
import { journalFile, saveState, type State } from './state.js';

/**
 * A push's durable writes cost its change, not the state: each commit appends the changed entries to the journal (a CRC-32
 * and JSON a line), and `checkpoint` writes the state file once and removes it. A killed push leaves the last checkpoint and
 * the journal, whose complete lines the next loadState replays, so nothing acknowledged is lost.
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

  /**
   * Queues the current values of these entries (of `state`) for the next durable commit. What follows a request (an id, the
   * synced entry) may wait here: if it is lost, the intent still leads the next run to adopt the resource.
   */
  note(...entries: Array<[JournalSection, string]>): void {
    for (const [section, key] of entries) {
      const v = section === 'origin' ? this.state.origin : (this.state[section] as Record<string, unknown>)[key];
      this.queued.push([section, key, v === undefined ? null : structuredClone(v)]);
    }
  }

  /**
   * Writes everything queued and waits until it is on disk; concurrent calls share writes. An intent must be durable before
   * the request it announces is sent, so that the next run finds it.
   */
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
   * Whether the state file is behind: something written or queued since the last checkpoint, or a killed push's journal
   * still on disk. A push that ends folds such a journal in, so that what is committed is the one state file, whole.
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
