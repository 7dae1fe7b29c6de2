import type { Context } from '../context.js';
import { PLAIN, flatten, renderGroups, stringifyInOrder, type Group, type Style } from '../campaigns/render.js';
import { tsvField } from '../ui/format.js';
import { safeText } from '../ui/safe-text.js';
import { terminalWidth } from '../ui/width.js';
import { wrapText } from '../ui/wrap.js';
import type { AnalyticsMeta } from '../spec/analytics.js';

/** chalk for stdout as the render module's Style (plain when colour is off). */
export async function stdoutStyle(ctx: Context): Promise<Style> {
  const chalk = await ctx.stdoutStyle();
  return chalk.level > 0 ? { bold: (s) => chalk.bold(s), dim: (s) => chalk.dim(s), yellow: (s) => chalk.yellow(s) } : PLAIN;
}

/** The terminal's width for charts (80 when unknown). */
export function columnsOf(ctx: Context): number {
  const c = (ctx.io.stdout as { columns?: number }).columns;
  return typeof c === 'number' && c > 20 ? c : 80;
}

/**
 * Prints analytics: grouped tables (and whatever `more` adds) for a person; the JSON
 * with --json/-o json/ndjson/--query; `key<TAB>value` lines with dotted keys when piped.
 */
export async function printAnalytics(
  data: { meta?: AnalyticsMeta },
  ctx: Context,
  render: { title?: string; groups: Group[]; more?: (style: Style) => string },
): Promise<void> {
  if (data.meta?.isStale) {
    await ctx.warn('some ended calls still await their analysis: these figures will change (meta.isStale)');
  }
  if (ctx.out.human) {
    const style = await stdoutStyle(ctx);
    // On a terminal the title and long values (a campaign's name) wrap within its width.
    const width = ctx.io.stdoutIsTTY ? terminalWidth(ctx.io.stdout, ctx.env) : undefined;
    const title = render.title ? (width ? wrapText(render.title, width) : [safeText(render.title)]).map((l) => style.bold(l)) : [];
    const parts = [...(title.length ? [...title, ''] : []), renderGroups(render.groups, style, width)];
    if (render.more) parts.push('', render.more(style));
    ctx.io.stdout.write(`${parts.join('\n')}\n`);
    return;
  }
  const g = ctx.globals;
  if (ctx.out.format === 'tsv' && !g.query) {
    ctx.io.stdout.write(
      flatten(data)
        .map(([k, v]) => `${tsvField(k)}\t${tsvField(v)}\n`)
        .join(''),
    );
    return;
  }
  if (!g.query && (ctx.out.format === 'json' || ctx.out.format === 'ndjson')) {
    // Written by hand so that callsByHour keeps the API's clock order ("00" first).
    ctx.io.stdout.write(`${stringifyInOrder(data, ctx.out.format === 'json' ? 2 : 0)}\n`);
    return;
  }
  await ctx.out.data(data);
}
