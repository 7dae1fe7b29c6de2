import { createWriteStream, type WriteStream } from 'node:fs';
import { constants } from 'node:fs';
import { access, mkdir, rename, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { checkWriteTarget } from '../write-target.js';
import { csvLine } from './csv-write.js';

/**
 * The errors file: every rejected row with its columns plus `row`, `field` and `error`, so it can
 * be fixed and imported again with the same command. Written beside the target and renamed
 * when complete, so an interrupted run never leaves half a file.
 */

/**
 * `leads.csv` → `leads.errors.csv` (beside the input); a dry run's → `leads.dry-run.errors.csv`,
 * a name of its own, so that the real import that follows it takes `leads.errors.csv`.
 */
export function defaultErrorsPath(input: string, dryRun = false): string {
  const ext = extname(input);
  const stem = basename(input, ext);
  return join(dirname(input), `${stem}${dryRun ? '.dry-run' : ''}.errors.csv`);
}

/** Where the errors file goes, and the earlier one it kept (the summary says so). */
export interface ErrorsPath {
  path: string;
  /** The errors file of an earlier import, left as it was: this run's goes to `path`. */
  kept?: string;
}

/**
 * Where the errors file goes, decided before anything is sent, never over an earlier one
 * without saying so (the rules: src/contacts/README.md).
 */
export async function chooseErrorsPath(
  explicit: string | undefined,
  input: string,
  fallbackDir: string,
  opts: { ensureFallback?: (dir: string) => Promise<void>; overwrite?: (path: string) => Promise<boolean>; dryRun?: boolean } = {},
): Promise<ErrorsPath> {
  if (explicit) {
    await checkWriteTarget(
      explicit,
      (why) => new UsageError(`cannot write --errors-file ${explicit}: ${why}`, 'pass --errors-file with a path in a folder you can write'),
    );
    if (await exists(explicit)) {
      const ok = opts.overwrite ? await opts.overwrite(explicit) : false;
      if (!ok)
        throw new UsageError(
          `--errors-file ${explicit} already exists: nothing was sent`,
          'pass another --errors-file path, move that file away, or pass --yes to overwrite it',
        );
    }
    return { path: explicit };
  }
  const beside = defaultErrorsPath(input, opts.dryRun);
  let dir = dirname(beside);
  if (!(await writableDir(dirname(resolve(beside))))) {
    if (opts.ensureFallback) await opts.ensureFallback(fallbackDir);
    else await mkdir(fallbackDir, { recursive: true, mode: 0o700 });
    dir = fallbackDir;
  }
  const first = join(dir, basename(beside));
  const path = await firstFree(first);
  return path === first ? { path } : { path, kept: first };
}

/** `x.errors.csv`, else `x.errors-2.csv`, `x.errors-3.csv`, …: the first name no file has. */
async function firstFree(path: string): Promise<string> {
  if (!(await exists(path))) return path;
  const ext = extname(path);
  const stem = path.slice(0, path.length - ext.length);
  for (let n = 2; ; n++) {
    const next = `${stem}-${n}${ext}`;
    if (!(await exists(next))) return next;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function writableDir(dir: string): Promise<boolean> {
  try {
    if (!(await stat(dir)).isDirectory()) return false;
    await access(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export { csvField, csvLine } from './csv-write.js';

/** Lines are written in batches of about this many characters (one stream write per batch, not per row). */
const BATCH_CHARS = 64 * 1024;

export class ErrorsFile {
  private out: WriteStream | undefined;
  private readonly tmp: string;
  private failed: Error | undefined;
  private batch: string[] = [];
  private batchChars = 0;
  count = 0;

  constructor(
    readonly path: string,
    private readonly columns: string[],
    private readonly kept: number[],
    private readonly delimiter = ',',
  ) {
    this.tmp = `${path}.${process.pid}.tmp`;
  }

  /**
   * Appends a rejected row: its original values, then row, field and error. A row
   * with several errors is one line: fields `a; b`, error `a: reason; b: reason`.
   */
  async write(raw: unknown, rowNo: number, fields: string[], reasons: string[]): Promise<void> {
    if (this.failed) throw this.failed;
    if (!this.out) {
      // A missing folder of --errors-file is created now, as --report's are (checked writable before anything was sent).
      await mkdir(dirname(resolve(this.path)), { recursive: true });
      if (this.out) return this.write(raw, rowNo, fields, reasons);
      this.out = createWriteStream(this.tmp);
      this.out.on('error', (err) => (this.failed = err));
      const header = this.kept.map((k) => this.columns[k]!);
      this.out.write(csvLine([...header, 'row', 'field', 'error'], this.delimiter));
    }
    const error = reasons.length === 1 ? reasons[0] : reasons.map((r, i) => (fields[i] ? `${fields[i]}: ${r}` : r)).join('; ');
    const tail = [rowNo, fields.filter(Boolean).join('; '), error];
    const line = csvLine([...rowValues(raw, this.columns, this.kept), ...tail], this.delimiter);
    this.count++;
    this.batch.push(line);
    this.batchChars += line.length;
    if (this.batchChars >= BATCH_CHARS) await this.flush();
  }

  private async flush(): Promise<void> {
    if (!this.out || this.batch.length === 0) return;
    const text = this.batch.join('');
    this.batch = [];
    this.batchChars = 0;
    if (!this.out.write(text)) await once(this.out, 'drain');
  }

  /** Finishes the file: renamed into place when it holds rows. Returns the path written, if any. */
  async close(): Promise<string | undefined> {
    if (!this.out) return undefined;
    await this.flush();
    this.out.end();
    await once(this.out, 'close');
    if (this.failed) throw this.failed;
    await rename(this.tmp, this.path);
    return this.path;
  }

  /** Drops a partial file (an interrupted run rewrites it when resumed). */
  async discard(): Promise<void> {
    if (!this.out) return;
    this.out.destroy();
    await rm(this.tmp, { force: true });
  }
}

/** A raw row's values in column order: a CSV row is an array; a JSON row an object. */
function rowValues(raw: unknown, columns: string[], kept: number[]): unknown[] {
  if (Array.isArray(raw)) return kept.map((k) => raw[k]);
  if (raw !== null && typeof raw === 'object') return kept.map((k) => (raw as Record<string, unknown>)[columns[k]!]);
  // A JSON element that is not an object: its JSON text in the first column.
  return kept.map((_, i) => (i === 0 ? JSON.stringify(raw) : ''));
}
