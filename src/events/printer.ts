import type { Writable } from 'node:stream';
import type { StreamEvent } from '../api/sse.js';
import type { Context } from '../context.js';
import { applyQuery } from '../ui/query.js';
import { safeText } from '../ui/safe-text.js';
import { terminalWidth } from '../ui/width.js';
import { callLine, jsonLine, organizationLine, toRecord, tsvLine, type EventRecord } from './render.js';

export interface EventPrinter {
  (event: StreamEvent): Promise<void> | void;
  /** Writes out what is still gathered (before the closing lines on stderr). */
  flush(): Promise<void>;
}

/**
 * Writes each event to stdout as the output settings ask (NDJSON for JSON: a stream has no end to
 * close an array at). Writes wait for the pipe to drain, so a slow reader slows the tail instead
 * of filling memory.
 */
export async function createPrinter(
  ctx: Context,
  view: 'organization' | 'call',
  hide?: (r: EventRecord) => boolean,
  opts: { wide?: boolean } = {},
): Promise<EventPrinter> {
  const write = writer(ctx.io.stdout);
  const print = await choose(ctx, view, write, hide, opts.wide);
  return Object.assign(print, { flush: write.flush });
}

async function choose(
  ctx: Context,
  view: 'organization' | 'call',
  write: LineWriter,
  hide?: (r: EventRecord) => boolean,
  wide?: boolean,
): Promise<(event: StreamEvent) => Promise<void> | void> {
  const { globals, out } = ctx;
  if (globals.query) {
    return (event) => write(`${JSON.stringify(applyQuery(JSON.parse(jsonLine(event)), globals.query!))}\n`);
  }
  if (globals.quiet) return (event) => write(`${safeText(event.id)}\n`);
  switch (out.format) {
    case 'json':
    case 'ndjson':
      return (event) => write(`${jsonLine(event)}\n`);
    case 'tsv':
      return (event) => write(`${tsvLine(toRecord(event))}\n`);
    case 'table': {
      const chalk = await ctx.stdoutStyle();
      const line = view === 'call' ? callLine : organizationLine;
      // Wrapped to the terminal's width as it is now (a pane may be resized while it runs).
      const width = () => (ctx.io.stdoutIsTTY ? terminalWidth(ctx.io.stdout, ctx.env) : undefined);
      return (event) => {
        const rec = toRecord(event);
        if (hide?.(rec)) return;
        return write(`${line(rec, chalk, { width: width(), wide, present: ctx.present })}\n`);
      };
    }
  }
}

/**
 * Writes lines to a stream, gathering those of one turn of the event loop into one write (a burst
 * is one system call); waits for 'drain' when the stream is full, and a write error rejects the
 * next write and flush().
 */
export interface LineWriter {
  /** Undefined when the text was taken with nothing to wait for; a promise otherwise. */
  (text: string): Promise<void> | undefined;
  flush(): Promise<void>;
}

const FLUSH_AT = 64 * 1024;

export function writer(stream: Writable): LineWriter {
  let buffer = '';
  let scheduled = false;
  let failure: Error | undefined;
  let draining: Promise<void> | undefined;
  const closed = () => Object.assign(new Error('stdout is closed'), { code: 'EPIPE' });
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      if (scheduled) flushNow().catch(() => undefined);
    });
  };

  const flushNow = (): Promise<void> => {
    scheduled = false;
    if (failure) return Promise.reject(failure);
    // While the stream drains, what gathers waits; the drain writes it out.
    if (draining) return draining;
    if (!buffer) return Promise.resolve();
    if (stream.destroyed || stream.writableEnded) {
      failure = closed();
      return Promise.reject(failure);
    }
    const text = buffer;
    buffer = '';
    const ok = stream.write(text, (err) => {
      if (err) failure ??= err;
    });
    if (ok) return Promise.resolve();
    draining = new Promise<void>((resolve) => {
      const done = () => {
        stream.off('drain', done);
        stream.off('close', done);
        stream.off('error', done);
        draining = undefined;
        resolve();
      };
      stream.on('drain', done);
      stream.on('close', done);
      stream.on('error', done);
    }).then(() => (buffer ? flushNow() : undefined));
    return draining;
  };

  const write = ((text: string): Promise<void> | undefined => {
    if (failure) return Promise.reject(failure);
    buffer += text;
    if (draining) return draining;
    if (buffer.length >= FLUSH_AT) return flushNow();
    schedule();
    return undefined;
  }) as LineWriter;
  write.flush = async () => {
    await flushNow();
    if (failure) throw failure;
  };
  return write;
}
