import { formatCount } from './progress.js';

/** Rejected rows listed on screen before "… and N more". */
export const MAX_ROWS_SHOWN = 20;

/** `row N, field F: reason` lines on stderr, capped; the errors file has them all. */
export class RowReporter {
  private shown = 0;
  private hidden = 0;

  constructor(
    private readonly print: (line: string) => void,
    private readonly max = MAX_ROWS_SHOWN,
  ) {}

  row(rowNo: number | string, field: string, reason: string, source?: string): void {
    if (this.shown >= this.max) {
      this.hidden++;
      return;
    }
    this.shown++;
    this.print(`row ${rowNo}${field ? `, field ${field}` : ''}: ${reason}${source ? ` (${source})` : ''}`);
  }

  /** The "… and N more" line, if lines were left out. */
  finish(errorsFile: string | undefined): void {
    if (this.hidden === 0) return;
    this.print(`… and ${formatCount(this.hidden)} more, see ${errorsFile ?? 'the errors file'}`);
    this.hidden = 0;
  }
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
  stateFile: string | null;
  resumed: boolean;
  complete: boolean;
  interrupted: boolean;
  elapsedMs: number;
  rowsPerSecond: number;
}

function seconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m ${Math.round((ms % 60_000) / 1000)}s`;
}

export function exampleLine(e: NormalisationExample): string {
  return `row ${e.row}, ${e.field}: ${e.from} → ${e.to}`;
}

/** The human summary (stdout). */
export function summaryText(s: ImportSummary, batchSize: number): string {
  const rows: Array<[string, number, string?]> = [];
  const lines: string[] = [];
  if (s.dryRun) {
    lines.push(`Dry run of ${s.file} against list ${s.listId} (nothing sent): ${formatCount(s.rows)} rows in ${seconds(s.elapsedMs)}`);
    rows.push(['valid', s.valid, s.valid ? `would be sent in ${formatCount(Math.ceil(s.valid / batchSize))} ${Math.ceil(s.valid / batchSize) === 1 ? 'job' : 'jobs'}` : undefined]);
    rows.push(['rejected', s.rejectedLocally]);
  } else {
    const verb = s.interrupted ? 'Interrupted import of' : s.complete ? 'Imported' : 'Import of';
    lines.push(`${verb} ${s.file} into list ${s.listId}: ${formatCount(s.rows)} rows${s.interrupted ? ' read' : ''} in ${seconds(s.elapsedMs)}${s.resumed ? ' (resumed)' : ''}`);
    rows.push(['imported', s.imported]);
    rows.push(['rejected locally', s.rejectedLocally, s.rejectedLocally ? 'not sent' : undefined]);
    rows.push(['rejected by server', s.rejectedByServer]);
    rows.push(['jobs', s.jobs, s.failedJobs.length ? `${s.failedJobs.length} failed or cancelled: ${s.failedJobs.map((j) => `${j.id} ${j.status}`).join(', ')}` : undefined]);
  }
  if (s.normalised.count) rows.push(['phones normalised', s.normalised.count, 'to E.164']);
  const width = Math.max(...rows.map(([label]) => label.length));
  const numWidth = Math.max(...rows.map(([, n]) => formatCount(n).length));
  for (const [label, n, note] of rows) lines.push(`  ${label.padEnd(width)}  ${formatCount(n).padStart(numWidth)}${note ? `  (${note})` : ''}`);
  for (const e of s.normalised.examples) lines.push(`    ${exampleLine(e)}`);
  if (s.errorsFile) {
    const n = s.rejectedLocally + s.rejectedByServer;
    lines.push(`Errors file: ${s.errorsFile} (${formatCount(n)} ${n === 1 ? 'row' : 'rows'}; fix them and import that file)`);
  }
  return `${lines.join('\n')}\n`;
}
