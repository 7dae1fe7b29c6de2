import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import { fitColumns, type TableColumn } from './columns.js';
import { cellText, truncate, type Column } from './format.js';
import { safeLines, safeText, Trusted } from './safe-text.js';
import { DEFAULT_PRESENTATION, isUuid, shortId, Shown, type Presentation } from './values.js';
import { displayWidth, fitLine, wrapWords } from './fit.js';

const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

/** A data cell is cut to this many columns whatever the room (a table is for scanning; `get`, --json and TSV give the whole value). */
const MAX_CELL = 60;

/** How a table fits a terminal: its width (undefined: piped, or no limit), and whether ids are shown whole (`--wide`). */
export interface TableFit {
  width?: number;
  wide?: boolean;
}

/**
 * One table cell: data made one safe line (white space runs one space, control characters and bidi
 * overrides visible escapes), then cut to `max`; a `Trusted` value as it is. A UUID shows its first
 * eight digits unless `wide`, as `events tail` shows it (shortId).
 */
export function tableCell(v: unknown, max: number, p: Presentation = DEFAULT_PRESENTATION, wide = true): string {
  if (v instanceof Trusted) return v.text;
  if (v instanceof Shown) return truncate(safeText(v.human(p)), max);
  const text = cellText(v);
  if (!wide && isUuid(text)) return shortId(text);
  return truncate(safeText(text.replace(/\s+/g, ' ')), max);
}

/**
 * Whether a column is free text, which gives way first when a table is too wide: one that says so,
 * else one of data strings that is not an id column. Times, counts, scores (`Shown`) and vap's own
 * coloured words (`Trusted`) keep their width as long as they can.
 */
function isFreeText<T>(c: Column<T>, values: unknown[]): boolean {
  if (c.flex !== undefined) return c.flex;
  if (isIdColumn(c, values)) return false;
  return values.some((v) => typeof v === 'string' && v !== '' && !isUuid(v));
}

/** A column of ids: named so (`id`, `campaignId`, `scenario ids`), or holding ids only (UUIDs, or the platform's `prefix_…` ids: `cl_4k2…`). */
function isIdColumn<T>(c: Column<T>, values: unknown[]): boolean {
  if (/id$|ids$/i.test(c.header.replace(/\s/g, ''))) return true;
  const texts = values.filter((v) => typeof v === 'string' && v !== '') as string[];
  return texts.length > 0 && texts.every((t) => isUuid(t) || /^[a-z]{1,12}_(?=[0-9a-z]*\d)[0-9a-z]{6,}$/i.test(t));
}

/**
 * Whether column `i` only repeats column `key` in every row: the same words, whatever
 * their case and separators (`instruction_adherence`, `Instruction adherence`), or nothing.
 */
function repeatsOnly(values: unknown[][], i: number, key: number): boolean {
  if (key < 0) return false;
  const words = (v: unknown) =>
    cellText(v)
      .toLowerCase()
      .replace(/[\s_-]+/g, ' ')
      .trim();
  return values.every((vs) => words(vs[i]) === '' || words(vs[i]) === words(vs[key]));
}

/**
 * A borderless table in the manner of gh. Given a width, it fits it as src/ui/columns.ts says
 * (cut cells end in `…`, UUIDs show eight digits); with --wide ids are whole and nothing is
 * fitted. Data cells are made safe.
 */
export function renderTable<T>(rows: T[], columns: TableColumn<T>[], chalk: ChalkInstance, p: Presentation = DEFAULT_PRESENTATION, fit: TableFit = {}): string {
  const wide = fit.wide ?? fit.width === undefined;
  const values = rows.map((row) => columns.map((c) => c.value(row)));
  // With --wide nothing is cut, not even to MAX_CELL.
  const cells = values.map((vs) => vs.map((v) => tableCell(v, fit.wide ? Infinity : MAX_CELL, p, wide)));
  const headers = columns.map((c) => c.header.toUpperCase());
  const widths = fitColumns(
    columns.map((c, i) => ({
      natural: Math.max(displayWidth(headers[i]!), ...cells.map((r) => displayWidth(r[i]!))),
      flex: isFreeText(
        c,
        values.map((vs) => vs[i]),
      ),
      min: c.min,
      drop: c.drop,
      keep: c.keep,
      repeated:
        c.repeats !== undefined &&
        repeatsOnly(
          values,
          i,
          columns.findIndex((k) => k.header === c.repeats),
        ),
      id: isIdColumn(
        c,
        values.map((vs) => vs[i]),
      ),
    })),
    // With --wide the table is not fitted: whole ids and every column, lines as long as they are.
    fit.wide ? undefined : fit.width,
  );
  const fitted = fit.width !== undefined && !fit.wide;
  const shown = columns.map((_, i) => i).filter((i) => widths[i]! > 0);
  const table = new Table({
    head: shown.map((i) => chalk.bold(fitLine(headers[i]!, widths[i]!))),
    chars: NO_BORDERS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    ...(fitted ? { colWidths: shown.map((i) => widths[i]!) } : {}),
  });
  for (const row of cells) table.push(shown.map((i) => (fitted ? fitLine(row[i]!, widths[i]!) : row[i]!)));
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}

/**
 * A detail view: one `Label  value` line per field; values made safe (multi-line ones keep
 * their lines, indented under the label). Given a width (a terminal), a long value wraps at
 * word boundaries under itself, so that no line is wider than the terminal.
 */
export function renderDetail<T>(obj: T, fields: Column<T>[], chalk: ChalkInstance, p: Presentation = DEFAULT_PRESENTATION, fit: TableFit = {}): string {
  const width = Math.max(...fields.map((f) => f.header.length));
  return fields
    .map((f) => {
      const v = f.value(obj);
      const text = v instanceof Trusted ? v.text : v instanceof Shown ? safeText(v.human(p)) : safeLines(cellText(v));
      const label = chalk.bold(f.header.padEnd(width));
      if (text.includes('\n')) return `${label}  \n${indent(text, fit.width === undefined ? undefined : fit.width - 2)}`;
      if (fit.width === undefined || width + 2 + displayWidth(text) <= fit.width) return `${label}  ${text}`;
      const room = fit.width - width - 2;
      // Too little room beside the label, or one word (an id, a URL) wider than it: the value goes under the label.
      if (room < 20 || (!/\s/.test(text) && displayWidth(text) > room)) return `${label}  \n${indent(text, fit.width - 2)}`;
      const [first, ...rest] = wrapWords(text, room);
      return [`${label}  ${first}`, ...rest.map((l) => `${' '.repeat(width + 2)}${l}`)].join('\n');
    })
    .join('\n');
}

/** Lines indented by two spaces; given a room, each wrapped to it at word boundaries first. */
function indent(s: string, room?: number): string {
  const lines = s.split('\n').flatMap((l) => (room === undefined || displayWidth(l) <= room ? [l] : wrapWords(l, room)));
  return lines.map((l) => `  ${l}`).join('\n');
}
