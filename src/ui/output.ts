import type { Writable } from 'node:stream';
import { OutputError } from '../errors.js';
import { cellText, tsvField, type Column, type Format } from './format.js';
import { BlockWriter, type TextSink } from './block-writer.js';
import { safeText } from './safe-text.js';
import type { Spinner } from './spinner.js';
import { loadChalk } from './style.js';
import type { TableFit } from './table.js';
import type { Presentation } from './values.js';

/** A table waits for every row; if that takes longer than this, a spinner says so. */
const SPINNER_DELAY_MS = 300;

export interface OutputSettings {
  /** Starts a spinner on stderr (a no-op when stderr is not a terminal). */
  spinner?: (text: string) => Promise<Spinner>;
  /** The format asked for with -o/--json; undefined when none was. */
  format?: Format;
  query?: string;
  quiet: boolean;
  color: boolean;
  stdoutIsTTY: boolean;
  /** How tables show times (relative, or exact with --absolute-times): src/ui/values.ts. */
  present?: Presentation;
  /** How tables fit the terminal (its width, --wide): asked when a table is drawn. */
  fit?: () => TableFit;
}

export interface ListSpec<T> {
  columns: Column<T>[];
  /** The id printed by -q; defaults to the `id` field. */
  id?: (row: T) => unknown;
  /** Said on stderr when a TTY listing is empty. */
  empty?: string;
}

export interface ItemSpec<T> {
  fields: Column<T>[];
  id?: (row: T) => unknown;
}

const defaultId = (row: unknown) => (row as { id?: unknown } | null)?.id;

/**
 * Prints results on stdout: a table on a terminal, TSV when piped, or the format asked for. Every
 * form for people shows data through safe-text.ts; JSON stays byte-exact. Listings stream, in
 * blocks, as pages arrive.
 */
export class Output {
  private readonly errStream: Writable | (() => Writable);

  /** `stderr` may be given as a function, called when something is first said there (a stream costs its making). */
  constructor(
    private readonly stdout: TextSink,
    stderr: Writable | (() => Writable),
    private readonly settings: OutputSettings,
  ) {
    this.errStream = stderr;
  }

  private get stderr(): Writable {
    return typeof this.errStream === 'function' ? this.errStream() : this.errStream;
  }

  /** The format data will be printed in. */
  get format(): Format {
    if (this.settings.format) return this.settings.format;
    if (this.settings.query) return 'json';
    return this.settings.stdoutIsTTY ? 'table' : 'tsv';
  }

  /** Whether output is for a person (a table on a terminal). */
  get human(): boolean {
    return this.format === 'table' && !this.settings.quiet;
  }

  async list<T>(items: AsyncIterable<T> | Iterable<T>, spec: ListSpec<T>): Promise<number> {
    const idOf = spec.id ?? defaultId;
    if (this.settings.query) {
      const all: T[] = [];
      for await (const item of items) all.push(item);
      await this.queried(all);
      return all.length;
    }
    if (this.settings.quiet) return this.rows(items, (item) => `${safeText(cellText(idOf(item)))}\n`);
    switch (this.format) {
      case 'ndjson':
        return this.rows(items, (item) => `${JSON.stringify(item)}\n`);
      case 'tsv': {
        const { columns } = spec;
        return this.rows(items, (item) => `${columns.map((c) => tsvField(c.value(item))).join('\t')}\n`);
      }
      case 'json':
        return this.rows(
          items,
          (item, i) => `${i === 0 ? '[\n' : ',\n'}${indent(JSON.stringify(item, null, 2))}`,
          (count) => (count === 0 ? '[]\n' : '\n]\n'),
        );
      case 'table': {
        const rows = await this.collectWithSpinner(items);
        if (rows.length === 0) {
          this.stderr.write(`${safeText(spec.empty ?? 'No results.')}\n`);
          return 0;
        }
        const [{ renderTable }, chalk] = await Promise.all([import('./table.js'), loadChalk(this.settings.color)]);
        await this.write(`${renderTable(rows, spec.columns, chalk, this.settings.present, this.settings.fit?.())}\n`);
        return rows.length;
      }
    }
  }

  /**
   * A listing streamed row by row as items arrive, written in blocks (src/ui/block-writer.ts:
   * the same bytes in far fewer writes, with back-pressure). Rows already formed are written
   * also when the items fail part-way (a page that could not be read).
   */
  private async rows<T>(items: AsyncIterable<T> | Iterable<T>, line: (item: T, index: number) => string, last?: (count: number) => string): Promise<number> {
    const out = this.blocks();
    let count = 0;
    try {
      for await (const item of items) {
        const wait = out.write(line(item, count++));
        if (wait) await wait;
      }
      if (last) out.write(last(count));
    } finally {
      await out.end();
    }
    return count;
  }

  private blocks(): BlockWriter {
    return new BlockWriter(this.stdout, { failure: outputFailure });
  }

  async item<T>(obj: T, spec: ItemSpec<T>): Promise<void> {
    if (this.settings.query) return this.queried(obj);
    if (this.settings.quiet) {
      await this.write(`${safeText(cellText((spec.id ?? defaultId)(obj)))}\n`);
      return;
    }
    switch (this.format) {
      case 'json':
        return this.write(`${JSON.stringify(obj, null, 2)}\n`);
      case 'ndjson':
        return this.write(`${JSON.stringify(obj)}\n`);
      case 'tsv':
        return this.write(spec.fields.map((f) => `${tsvField(f.header)}\t${tsvField(f.value(obj))}\n`).join(''));
      case 'table': {
        const [{ renderDetail }, chalk] = await Promise.all([import('./table.js'), loadChalk(this.settings.color)]);
        return this.write(`${renderDetail(obj, spec.fields, chalk, this.settings.present, this.settings.fit?.())}\n`);
      }
    }
  }

  /** Gathers every row for a table; a spinner shows on stderr when that is slow (many pages). */
  private async collectWithSpinner<T>(items: AsyncIterable<T> | Iterable<T>): Promise<T[]> {
    const rows: T[] = [];
    let spinner: Spinner | undefined;
    let done = false;
    const timer = this.settings.spinner
      ? setTimeout(() => {
          void this.settings.spinner!('Loading…').then((s) => {
            if (done) s.stop();
            else spinner = s;
          });
        }, SPINNER_DELAY_MS)
      : undefined;
    try {
      for await (const item of items) {
        rows.push(item);
        spinner?.text(`Loading… ${rows.length} so far`);
      }
    } finally {
      done = true;
      clearTimeout(timer);
      spinner?.stop();
    }
    return rows;
  }

  /** Prints data that has no table shape (or whose shape is the user's query). */
  async data(value: unknown): Promise<void> {
    if (this.settings.query) return this.queried(value);
    await this.writeJsonLike(value);
  }

  private async queried(value: unknown): Promise<void> {
    const { applyQuery } = await import('./query.js');
    await this.writeJsonLike(applyQuery(value, this.settings.query!));
  }

  private async writeJsonLike(value: unknown): Promise<void> {
    const format = this.settings.format ?? 'json';
    if (format === 'ndjson' && Array.isArray(value)) {
      await this.rows(value, (v) => `${JSON.stringify(v)}\n`);
    } else if (format === 'tsv' && Array.isArray(value)) {
      await this.rows(value, (v) => `${Array.isArray(v) ? v.map(tsvField).join('\t') : tsvField(v)}\n`);
    } else if (format === 'tsv' && (typeof value !== 'object' || value === null)) {
      await this.write(`${tsvField(value)}\n`);
    } else {
      await this.write(`${JSON.stringify(value, null, format === 'ndjson' ? 0 : 2)}\n`);
    }
  }

  /**
   * Writes respecting back-pressure, so a slow pipe never buffers a whole listing. A failed
   * write (a full disk) rejects with an OutputError (one line, exit 1); a closed pipe keeps
   * its own code (EPIPE), which is not an error.
   */
  private write(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const fail = (err: unknown) => reject(outputFailure(err));
      try {
        const ok = this.stdout.write(text, (err) => (err ? fail(err) : undefined));
        if (ok) resolve();
        else this.stdout.once('drain', resolve);
      } catch (err) {
        fail(err);
      }
    });
  }
}

/** A failed write to stdout: an OutputError (one line, exit 1), except a closed pipe (EPIPE), which is not an error. */
function outputFailure(err: unknown): unknown {
  return (err as NodeJS.ErrnoException).code === 'EPIPE' ? err : new OutputError(err);
}

function indent(s: string): string {
  return s.replace(/^/gm, '  ');
}
