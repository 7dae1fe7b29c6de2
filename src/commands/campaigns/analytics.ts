import { Command, InvalidArgumentError } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  getAnalyticsSummary,
  getCampaignAnalytics,
  getInboundAnalytics,
  getRealtimeAnalytics,
  type DateRange,
  type RealtimeAnalytics,
} from '../../api/analytics.js';
import { getCampaign } from '../../api/campaigns.js';
import { UnprocessableEntityError } from '../../api/errors.js';
import { CallTrend, inboundGroups, metricGroups, realtimeGroups, renderHourChart, renderWatchScreen, summaryGroups } from '../../campaigns/render.js';
import type { Context } from '../../context.js';
import { resolveCampaignId } from '../../ids/resolve.js';
import { CliError, SilentExit, UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { isAccessible } from '../../ui/accessible.js';
import { safeText } from '../../ui/safe-text.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';
import { columnsOf, printAnalytics, stdoutStyle } from '../analytics-output.js';
import { isoDay } from './shared.js';

export interface AnalyticsOptions {
  summary?: boolean;
  realtime?: boolean;
  inbound?: boolean;
  watch?: boolean;
  interval?: number;
  from?: string;
  to?: string;
}

/** The spec intends realtime analytics to be polled every 5 to 10 seconds. */
export const MIN_INTERVAL = 5;
export const MAX_INTERVAL = 10;

function intervalSeconds(v: string): number {
  const m = /^(\d+)s?$/.exec(v.trim());
  const n = m ? Number(m[1]) : NaN;
  if (!Number.isInteger(n) || n < MIN_INTERVAL || n > MAX_INTERVAL) {
    throw new InvalidArgumentError(
      `--interval must be ${MIN_INTERVAL} to ${MAX_INTERVAL} seconds (realtime analytics are meant to be polled that often) (got "${v}").`,
    );
  }
  return n;
}

export function analyticsCommand(makeContext: ContextFactory): Command {
  return new Command('analytics')
    .description('A campaign’s metrics: calls, success, quality, compliance and cost')
    .argument('<campaignId>', 'the campaign id (or its start, or its name)')
    .option('--from <YYYY-MM-DD>', 'only calls created on or after this day (UTC)', isoDay('--from'))
    .option('--to <YYYY-MM-DD>', 'only calls created on or before this day (UTC)', isoDay('--to'))
    .option('--summary', 'the five headline figures only')
    .option('--realtime', 'calls active and queued now, completed today, and the call rate')
    .option('--watch', 'with --realtime: refresh in place on a terminal until Ctrl-C (NDJSON, one line per refresh, when piped)')
    .option('--interval <seconds>', `with --watch: seconds between refreshes, ${MIN_INTERVAL} to ${MAX_INTERVAL} (default ${MIN_INTERVAL})`, intervalSeconds)
    .option('--inbound', 'inbound campaigns: answered and missed calls, waits, and calls by hour as a chart')
    .addHelpText(
      'after',
      `
Rates are shown as percentages (the JSON keeps 0..1 with four decimals). When some
ended calls still await their analysis the figures are provisional: a warning says so
on stderr.

Examples:
  $ vap campaigns analytics 0b7c…
  $ vap campaigns analytics 0b7c… --from 2026-11-01 --to 2026-11-07
  $ vap campaigns analytics 0b7c… --summary --json
  $ vap campaigns analytics 0b7c… --realtime --watch --interval 10
  $ vap campaigns analytics 0b7c… --inbound`,
    )
    .action(action<AnalyticsOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

/** Checks that the flags go together; every refusal is a usage error with nothing sent. */
export function checkFlags(opts: AnalyticsOptions): DateRange {
  const modes = (['summary', 'realtime', 'inbound'] as const).filter((m) => opts[m]);
  if (modes.length > 1) throw new UsageError(`--${modes[0]} and --${modes[1]} cannot go together`, 'pick one view');
  if (opts.watch && !opts.realtime) throw new UsageError('--watch goes with --realtime', 'use `--realtime --watch`');
  if (opts.interval !== undefined && !opts.watch) throw new UsageError('--interval goes with --watch', 'use `--realtime --watch --interval 5`');
  if ((opts.from || opts.to) && modes.length > 0) {
    throw new UsageError(`--from/--to do not apply to --${modes[0]}`, 'date ranges are for the full metrics: drop --from/--to, or drop the view flag');
  }
  if (opts.from && opts.to && opts.from > opts.to) throw new UsageError(`--from ${opts.from} is after --to ${opts.to}`);
  const range: DateRange = {};
  if (opts.from) range.dateFrom = opts.from;
  if (opts.to) range.dateTo = opts.to;
  return range;
}

export async function run(ref: string, opts: AnalyticsOptions, ctx: Context): Promise<void> {
  const range = checkFlags(opts);
  const id = await resolveCampaignId(ctx, ref);
  const api = await ctx.api();
  if (opts.summary) {
    const s = await getAnalyticsSummary(api, id, ctx.signal);
    return printAnalytics(s, ctx, { title: `Campaign ${id}: summary`, groups: summaryGroups(s) });
  }
  if (opts.realtime) {
    if (opts.watch) return watch(id, opts.interval ?? MIN_INTERVAL, ctx);
    const r = await getRealtimeAnalytics(api, id, ctx.signal);
    return printAnalytics(r, ctx, { title: `Campaign ${id}: now`, groups: realtimeGroups(r, ctx.present) });
  }
  if (opts.inbound) {
    let a;
    try {
      a = await getInboundAnalytics(api, id, ctx.signal);
    } catch (err) {
      if (err instanceof UnprocessableEntityError && err.code === 'not_inbound') {
        throw new CliError(`campaign ${id} is not an inbound campaign`, undefined, 'drop --inbound to see its metrics');
      }
      throw err;
    }
    const width = Math.min(columnsOf(ctx), 120);
    return printAnalytics(a, ctx, {
      title: `Campaign ${id}: inbound`,
      groups: inboundGroups(a),
      more: (style) => `${style.bold('Calls by hour (UTC)')}\n${renderHourChart(a.callsByHour, a.peakHour, width, style)}`,
    });
  }
  const data = await getCampaignAnalytics(api, id, range, ctx.signal);
  const span = range.dateFrom || range.dateTo ? ` (${range.dateFrom ?? '…'} to ${range.dateTo ?? '…'})` : '';
  return printAnalytics(data, ctx, {
    title: `Campaign ${data.campaign?.name ?? id} (${data.campaign?.status ?? ''})${span}`,
    groups: metricGroups(data.metrics),
  });
}

/**
 * Polls realtime analytics every `seconds`: on a terminal the screen is redrawn in place, with a
 * sparkline of the calls completed per interval; otherwise each poll is one NDJSON line. Ctrl-C
 * ends it with exit 130 (no error line), the cursor shown again and the last screen kept.
 */
async function watch(id: string, seconds: number, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const campaign = await getCampaign(api, id, ctx.signal);
  const human = ctx.out.human && ctx.io.stdoutIsTTY;
  // VAP_ACCESSIBLE: no screen redrawn in place; a plain line for each poll that changed a figure.
  const plain = human && isAccessible(ctx.env);
  const live = human && !plain;
  const title = `Campaign ${campaign.name} (${campaign.id}) · realtime`;
  let draw: ((text: string) => void) & { done(): void };
  let lastFigures: string | undefined;
  if (plain) {
    ctx.io.stdout.write(`${safeText(title)}; a line when a figure changes, every ${seconds} s; Ctrl-C to stop\n`);
    draw = Object.assign((text: string) => void ctx.io.stdout.write(`${text}\n`), { done: () => undefined });
  } else if (live) {
    const [{ createLogUpdate }, { fitLine }] = await Promise.all([import('log-update'), import('../../ui/fit.js')]);
    const logUpdate = createLogUpdate(sizedView(ctx.io.stdout as NodeJS.WriteStream), { showCursor: false });
    // Each line of the screen cut to the terminal's width as it is now: log-update would wrap a longer one.
    draw = Object.assign(
      (text: string) =>
        logUpdate(
          text
            .split('\n')
            .map((l) => fitLine(l, columnsOf(ctx)))
            .join('\n'),
        ),
      { done: () => logUpdate.done() },
    );
  } else {
    draw = Object.assign((text: string) => void ctx.io.stdout.write(`${text}\n`), { done: () => undefined });
  }
  const style = live ? await stdoutStyle(ctx) : undefined;
  const trend = new CallTrend();
  try {
    for (;;) {
      const r: RealtimeAnalytics = await getRealtimeAnalytics(api, id, ctx.signal);
      const at = new Date();
      trend.add(r.callsCompletedToday);
      if (plain) {
        // A line when a figure changed; "Last call at" is compared as the API gave it (its relative form changes at every poll).
        const key = JSON.stringify([r.activeCalls, r.queuedCalls, r.callsCompletedToday, r.currentCallRate, r.lastCallAt]);
        const figures = realtimeGroups(r, ctx.present)[0]!
          .rows.map(([label, value]) => `${label} ${value}`)
          .join(' · ');
        const since = trend.perInterval.length ? ` · ${trend.perInterval.at(-1)} completed in the last ${seconds} s` : '';
        if (key !== lastFigures) draw(safeText(`${at.toISOString().slice(11, 19)} UTC  ${figures}${since}`));
        lastFigures = key;
      } else {
        draw(
          live
            ? renderWatchScreen({ title, data: r, updatedAt: at, intervalSeconds: seconds, style, present: ctx.present, trend, width: columnsOf(ctx) })
            : JSON.stringify({ ...r, campaignId: id, readAt: at.toISOString() }),
        );
      }
      await sleep(seconds * 1000, undefined, { signal: ctx.signal });
    }
  } catch (err) {
    if (ctx.signal.aborted) {
      // Ctrl-C is how a watch ends: the last screen stays, the cursor comes back, exit 130 without an error line.
      draw.done();
      throw new SilentExit(ExitCode.INTERRUPTED);
    }
    draw.done();
    throw err;
  }
}

/**
 * The stream as log-update sees it, with a size of 0 read as unknown: a pseudo-terminal
 * opened without a size (script(1), `docker exec -t`, some CI runners) reports 0 rows and
 * 0 columns, and log-update then draws nothing at all (it clips every frame to 0 lines).
 */
function sizedView(out: NodeJS.WriteStream): NodeJS.WriteStream {
  return {
    write: (chunk: string) => out.write(chunk),
    get isTTY() {
      return out.isTTY;
    },
    get rows() {
      return out.rows || undefined;
    },
    get columns() {
      return out.columns || undefined;
    },
  } as unknown as NodeJS.WriteStream;
}
