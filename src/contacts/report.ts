import { formatCount, formatDuration } from '../ui/values.js';
import { safeText } from '../ui/safe-text.js';

/** Rejected rows listed on screen before "… and N more". */
export const MAX_ROWS_SHOWN = 20;

/**
 * One cause, one line: when at least DOMINANT_MIN_ROWS rows were rejected and DOMINANT_SHARE of
 * them share a field and reason (quoted value aside), the report says so first, with the likely
 * fix, and lists DOMINANT_EXAMPLES rows instead of MAX_ROWS_SHOWN.
 */
export const DOMINANT_MIN_ROWS = 10;
export const DOMINANT_SHARE = 0.9;
export const DOMINANT_EXAMPLES = 3;

/** A reason without the value it quotes: `"0415 555" is not …` → `"…" is not …`. */
export function causeOf(reason: string): string {
  return reason.replace(/"(?:[^"\\]|\\.)*"/g, '"…"');
}

/** What the reporter knows of the common cause, for the caller to suggest a fix. */
export interface DominantCause {
  field: string;
  cause: string;
  /** Rejected rows with this field and cause. */
  rows: number;
  /** Rejected rows in all. */
  of: number;
}

/**
 * `row N, field F: reason` lines on stderr, capped; the errors file has them all.
 * The lines are held until finish(), which knows whether one cause explains nearly
 * every rejected row and then says so before them.
 */
export class RowReporter {
  private readonly held: string[] = [];
  private hidden = 0;
  private rejectedRows = 0;
  private lastRow: number | string | undefined;
  private lastRowKeys = new Set<string>();
  private readonly byCause = new Map<string, { field: string; cause: string; rows: number }>();

  private readonly print: (line: string) => void;

  /** `print` gets each line made safe (src/ui/safe-text.ts): the lines quote values from the file and reasons from the server. */
  constructor(
    print: (line: string) => void,
    private readonly max = MAX_ROWS_SHOWN,
  ) {
    this.print = (line) => print(safeText(line));
  }

  row(rowNo: number | string, field: string, reason: string, source?: string): void {
    if (rowNo !== this.lastRow || this.rejectedRows === 0) {
      this.rejectedRows++;
      this.lastRow = rowNo;
      this.lastRowKeys = new Set();
    }
    const cause = causeOf(reason);
    const key = `${field}\u0000${cause}`;
    if (!this.lastRowKeys.has(key)) {
      this.lastRowKeys.add(key);
      const c = this.byCause.get(key);
      if (c) c.rows++;
      else this.byCause.set(key, { field, cause, rows: 1 });
    }
    const line = `row ${rowNo}${field ? `, field ${field}` : ''}: ${reason}${source ? ` (${source})` : ''}`;
    if (this.held.length < this.max) this.held.push(line);
    else this.hidden++;
  }

  /** The cause shared by nearly every rejected row (see DOMINANT_SHARE), if there is one. */
  dominant(): DominantCause | undefined {
    if (this.rejectedRows < DOMINANT_MIN_ROWS) return undefined;
    let best: { field: string; cause: string; rows: number } | undefined;
    for (const c of this.byCause.values()) if (!best || c.rows > best.rows) best = c;
    if (!best || best.rows < DOMINANT_SHARE * this.rejectedRows) return undefined;
    return { ...best, of: this.rejectedRows };
  }

  /**
   * Prints the held lines: first, when one cause explains nearly every rejected row, that
   * cause in one line and `fix` (the likely remedy, from the caller that knows the
   * mapping) with a few example rows; then "… and N more" if lines were left out.
   */
  finish(errorsFile: string | undefined, fix?: (d: DominantCause) => string | undefined): void {
    const d = this.dominant();
    let shown = this.held.length;
    if (d) {
      const pct = Math.floor((100 * d.rows) / d.of);
      this.print(`${formatCount(d.rows)} of ${formatCount(d.of)} rejected rows (${pct}%) fail the same way: ${d.field ? `field ${d.field}: ` : ''}${d.cause}`);
      const hint = fix?.(d);
      if (hint) this.print(`likely fix: ${hint}`);
      shown = Math.min(shown, DOMINANT_EXAMPLES);
      if (shown) this.print(`for example:`);
    }
    for (const line of this.held.slice(0, shown)) this.print(line);
    const more = this.hidden + this.held.length - shown;
    if (more > 0) this.print(`… and ${formatCount(more)} more, see ${errorsFile ?? 'the errors file'}`);
    this.held.length = 0;
    this.hidden = 0;
  }
}

/**
 * The likely fix of a cause shared by nearly every row, knowing the list, the field's
 * type and the column read into it.
 */
export function suggestFix(d: DominantCause, ctx: { listId: string; type?: string; column?: string; defaultCountry?: string }): string | undefined {
  if (!d.field) return undefined;
  const col = ctx.column !== undefined ? `column ${JSON.stringify(ctx.column)}` : 'the column read into it';
  const remap = `check that ${col} is the one meant for field ${d.field} (--map column=${d.field})`;
  const schema = `change the field with \`vap contact-lists update-schema ${ctx.listId}\``;
  if (ctx.type === 'phone' && /--default-country/.test(d.cause) && !ctx.defaultCountry) {
    return `${col} holds national numbers without a country code: pass --default-country with their country (e.g. --default-country US); or ${remap}`;
  }
  if (d.cause === 'is required') return `${col} is empty in these rows: ${remap}, or make the field optional: ${schema}`;
  return `${remap}; if the data is right and the field's type (${ctx.type ?? 'unknown'}) is not, ${schema}`;
}

export interface NormalisationExample {
  row: number;
  field: string;
  from: string;
  to: string;
}

/** The final report; `--json` prints it as is. */
export interface ImportSummary {
  listId: string;
  file: string;
  format: 'csv' | 'json';
  dryRun: boolean;
  /** Data rows read (the whole file, unless interrupted). */
  rows: number;
  /** Rows that passed the local checks. */
  valid: number;
  imported: number;
  rejectedLocally: number;
  rejectedByServer: number;
  /** Import jobs of this import (all runs, when resumed). */
  jobs: number;
  /** Jobs that ended failed or cancelled. */
  failedJobs: Array<{ id: string; status: string }>;
  normalised: { count: number; examples: NormalisationExample[] };
  errorsFile: string | null;
  /** An earlier import's errors file found where this one would go: kept as it was (this run's is `errorsFile`). */
  keptErrorsFile?: string;
  stateFile: string | null;
  resumed: boolean;
  complete: boolean;
  interrupted: boolean;
  elapsedMs: number;
  rowsPerSecond: number;
}

const seconds = formatDuration;

export function exampleLine(e: NormalisationExample): string {
  return `row ${e.row}, ${e.field}: ${e.from} → ${e.to}`;
}

/** The human summary (stdout). */
export function summaryText(s: ImportSummary, batchSize: number): string {
  const rows: Array<[string, number, string?]> = [];
  const lines: string[] = [];
  if (s.dryRun) {
    lines.push(`Dry run of ${s.file} against list ${s.listId} (nothing sent): ${formatCount(s.rows)} rows in ${seconds(s.elapsedMs)}`);
    rows.push([
      'valid',
      s.valid,
      s.valid ? `would be sent in ${formatCount(Math.ceil(s.valid / batchSize))} ${Math.ceil(s.valid / batchSize) === 1 ? 'job' : 'jobs'}` : undefined,
    ]);
    rows.push(['rejected', s.rejectedLocally]);
  } else {
    const verb = s.interrupted ? 'Interrupted import of' : s.complete ? 'Imported' : 'Import of';
    lines.push(
      `${verb} ${s.file} into list ${s.listId}: ${formatCount(s.rows)} rows${s.interrupted ? ' read' : ''} in ${seconds(s.elapsedMs)}${s.resumed ? ' (resumed)' : ''}`,
    );
    rows.push(['imported', s.imported]);
    rows.push(['rejected locally', s.rejectedLocally, s.rejectedLocally ? 'not sent' : undefined]);
    rows.push(['rejected by server', s.rejectedByServer]);
    rows.push([
      'jobs',
      s.jobs,
      s.failedJobs.length ? `${s.failedJobs.length} failed or cancelled: ${s.failedJobs.map((j) => `${j.id} ${j.status}`).join(', ')}` : undefined,
    ]);
  }
  if (s.normalised.count) rows.push(['phones normalised', s.normalised.count, 'to E.164']);
  const width = Math.max(...rows.map(([label]) => label.length));
  const numWidth = Math.max(...rows.map(([, n]) => formatCount(n).length));
  for (const [label, n, note] of rows) lines.push(`  ${label.padEnd(width)}  ${formatCount(n).padStart(numWidth)}${note ? `  (${note})` : ''}`);
  for (const e of s.normalised.examples) lines.push(`    ${exampleLine(e)}`);
  // The examples are the first few: say how many more there were, so the count and the list agree.
  const unlisted = s.normalised.count - s.normalised.examples.length;
  if (s.normalised.examples.length > 0 && unlisted > 0) lines.push(`    … and ${formatCount(unlisted)} more`);
  if (s.errorsFile) {
    const n = s.rejectedLocally + s.rejectedByServer;
    lines.push(`Errors file: ${s.errorsFile} (${formatCount(n)} ${n === 1 ? 'row' : 'rows'}; fix them and import that file)`);
    if (s.keptErrorsFile) lines.push(`  (${s.keptErrorsFile}, from an earlier ${s.dryRun ? 'dry run' : 'import'}, was kept as it was)`);
  }
  return `${lines.join('\n')}\n`;
}
