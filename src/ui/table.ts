import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import { cellText, truncate, type Column } from './format.js';
import { safeLines, safeText, Trusted } from './safe-text.js';
import { DEFAULT_PRESENTATION, Shown, type Presentation } from './values.js';

const NO_BORDERS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '',
  right: '', 'right-mid': '', middle: '  ',
};

/**
 * One table cell: data made one safe line (white space runs become one space, every
 * control character, DEL, C1 control and bidi override a visible escape), then cut to
 * `max`; a `Trusted` value (vap's own, coloured) as it is.
 */
export function tableCell(v: unknown, max: number, p: Presentation = DEFAULT_PRESENTATION): string {
  if (v instanceof Trusted) return v.text;
  if (v instanceof Shown) return truncate(safeText(v.human(p)), max);
  return truncate(safeText(cellText(v).replace(/\s+/g, ' ')), max);
}

/**
 * A borderless table in the manner of gh: bold headers, columns two spaces apart. Data
 * cells are made safe (tableCell); times, durations, counts and scores read as
 * src/ui/values.ts says for a terminal.
 */
export function renderTable<T>(rows: T[], columns: Column<T>[], chalk: ChalkInstance, p: Presentation = DEFAULT_PRESENTATION, maxCell = 60): string {
  const table = new Table({
    head: columns.map((c) => chalk.bold(c.header.toUpperCase())),
    chars: NO_BORDERS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const row of rows) table.push(columns.map((c) => tableCell(c.value(row), maxCell, p)));
  return table.toString().split('\n').map((l) => l.trimEnd()).join('\n');
}

/** A detail view: one `Label  value` line per field; values made safe (multi-line ones keep their lines). */
export function renderDetail<T>(obj: T, fields: Column<T>[], chalk: ChalkInstance, p: Presentation = DEFAULT_PRESENTATION): string {
  const width = Math.max(...fields.map((f) => f.header.length));
  return fields
    .map((f) => {
      const v = f.value(obj);
      const text = v instanceof Trusted ? v.text : v instanceof Shown ? safeText(v.human(p)) : safeLines(cellText(v));
      return `${chalk.bold(f.header.padEnd(width))}  ${text.includes('\n') ? `\n${indent(text)}` : text}`;
    })
    .join('\n');
}

function indent(s: string): string {
  return s.split('\n').map((l) => `  ${l}`).join('\n');
}
