import type { Writable } from 'node:stream';
import type { StreamEvent } from '../api/sse.js';
import type { Context } from '../context.js';
import { applyQuery } from '../ui/query.js';
import { callLine, jsonLine, organizationLine, tsvLine, type EventRecord } from './render.js';

export type EventPrinter = (event: StreamEvent, record: EventRecord) => Promise<void>;

/**
 * Writes each event to stdout as the output settings ask: a rendered line on a terminal
 * (the chat view on a call's stream), NDJSON for --json / -o json|ndjson (a stream has no
 * end to close an array at), the --query result per event, ids with -q, TSV when piped.
 * Writes wait for the pipe to drain, so a slow reader slows the tail down instead of
 * filling memory.
 */
export async function createPrinter(ctx: Context, view: 'organization' | 'call', hide?: (r: EventRecord) => boolean): Promise<EventPrinter> {
  const write = writer(ctx.io.stdout);
  const { globals, out } = ctx;
  if (globals.query) {
    return async (event) => {
      await write(`${JSON.stringify(applyQuery(JSON.parse(jsonLine(event)), globals.query!))}\n`);
    };
  }
  if (globals.quiet) return async (event) => write(`${event.id}\n`);
  switch (out.format) {
    case 'json':
    case 'ndjson':
      return async (event) => write(`${jsonLine(event)}\n`);
    case 'tsv':
      return async (_event, rec) => write(`${tsvLine(rec)}\n`);
    case 'table': {
      const chalk = await ctx.stdoutStyle();
      const line = view === 'call' ? callLine : organizationLine;
      return async (_event, rec) => {
        if (hide?.(rec)) return;
        await write(`${line(rec, chalk)}\n`);
      };
    }
  }
}

/** A write that resolves when the data is handed on (or the pipe drained), and rejects on EPIPE. */
export function writer(stream: Writable): (text: string) => Promise<void> {
  return (text) =>
    new Promise((resolve, reject) => {
      if (stream.destroyed || stream.writableEnded) {
        reject(Object.assign(new Error('stdout is closed'), { code: 'EPIPE' }));
        return;
      }
      let settled = false;
      const ok = stream.write(text, (err) => {
        if (err && !settled) {
          settled = true;
          reject(err);
        }
      });
      if (ok) {
        settled = true;
        resolve();
      } else {
        stream.once('drain', () => {
          if (!settled) {
            settled = true;
            resolve();
          }
        });
      }
    });
}
