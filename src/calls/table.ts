import type { ChalkInstance } from 'chalk';
import type { Call } from '../api/calls.js';
import { fitColumns } from '../ui/columns.js';
import { displayWidth, fitLine } from '../ui/fit.js';
import { safeText } from '../ui/safe-text.js';
import type { TableFit } from '../ui/table.js';
import { DEFAULT_PRESENTATION, formatTime, shortId, type Presentation } from '../ui/values.js';
import { formatCallDuration, paintStatus } from './format.js';

/** The table of `calls list` on a terminal (loaded only for it: piped, the listing is TSV, src/calls/format.ts). */

interface FixedColumn {
  header: string;
  width: number;
  value: (c: Call, p: Presentation) => string;
  paint?: (text: string, c: Call, chalk: ChalkInstance) => string;
  align?: 'right';
  /** Free text: gives way first on a narrow terminal (src/ui/columns.ts). */
  flex?: boolean;
  /** Left out on a terminal too narrow for it, the lowest rank first. */
  drop?: number;
  /** What the listing is for: never left out (src/ui/columns.ts). */
  keep?: true;
}

/**
 * The table of `calls list` on a terminal, with fixed column widths so that it prints row by row
 * as pages arrive (`--all` holds one page). IDs and times as `events tail` shows them.
 */
const TABLE: FixedColumn[] = [
  { header: 'ID', width: 8, value: (c) => shortId(c.id), keep: true },
  { header: 'STATUS', width: 11, value: (c) => c.status, paint: (t, c, chalk) => paintStatus(c.status, chalk, t), keep: true },
  { header: 'DIRECTION', width: 9, value: (c) => c.direction, drop: 1 },
  { header: 'CALLEE', width: 22, value: (c) => c.calleeName ?? '', flex: true, keep: true },
  { header: 'PHONE', width: 16, value: (c) => c.phoneNumber ?? '', drop: 2 },
  { header: 'DURATION', width: 8, value: (c) => formatCallDuration(c.duration, Boolean(c.endedAt)), align: 'right', drop: 3 },
  { header: 'CREATED', width: 14, value: (c, p) => formatTime(c.createdAt, p), drop: 4 },
];

/**
 * The columns as drawn, sharing the terminal's width as every table does (src/ui/columns.ts):
 * ID, STATUS and CALLEE kept (what the listing is for), CALLEE cut first, then DIRECTION, PHONE,
 * DURATION and CREATED left out in that order. With --wide nothing is fitted.
 */
export function callTableLayout(p: Presentation = DEFAULT_PRESENTATION, fit: TableFit = {}): FixedColumn[] {
  const columns = TABLE.map((c) => {
    if (c.header === 'ID' && (fit.wide ?? fit.width === undefined)) return { ...c, width: 36, value: (x: Call) => x.id };
    if (c.header === 'CREATED' && p.absoluteTimes) return { ...c, width: 24 };
    return c;
  });
  const widths = fitColumns(
    columns.map((c) => ({ natural: c.width, flex: c.flex, drop: c.drop, keep: c.keep, id: c.header === 'ID' })),
    fit.wide ? undefined : fit.width,
  );
  return columns.map((c, i) => ({ ...c, width: widths[i]! })).filter((c) => c.width > 0);
}

/** A cell of the fixed-width table: data shown as one safe line, cut (`…`) or padded to `width` columns. */
function fit(text: string, width: number, align?: 'right'): string {
  const cut = fitLine(safeText(text.replace(/\s+/g, ' ')), width);
  const pad = ' '.repeat(Math.max(0, width - displayWidth(cut)));
  return align === 'right' ? pad + cut : cut + pad;
}

export function callTableHeader(chalk: ChalkInstance, layout: FixedColumn[] = callTableLayout()): string {
  return layout
    .map((c) => chalk.bold(fit(c.header, c.width, c.align)))
    .join('  ')
    .trimEnd();
}

export function callTableRow(call: Call, chalk: ChalkInstance, p: Presentation = DEFAULT_PRESENTATION, layout: FixedColumn[] = callTableLayout(p)): string {
  return layout
    .map((col) => {
      const text = fit(String(col.value(call, p) ?? ''), col.width, col.align);
      return col.paint ? col.paint(text, call, chalk) : text;
    })
    .join('  ')
    .trimEnd();
}
