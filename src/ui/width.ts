import type { Writable } from 'node:stream';

/**
 * How wide the terminal is. What fits text to that width (display width, cutting, wrapping)
 * is src/ui/fit.ts, whose libraries are loaded only where text is fitted to a terminal.
 */

/**
 * The width to wrap text for: the stream's columns when it is a terminal, else
 * $COLUMNS, else 80; never below 40 so that a narrow pane still reads.
 */
export function terminalWidth(stream: Writable, env: Record<string, string | undefined>): number {
  const cols = (stream as Writable & { columns?: number }).columns;
  const fromEnv = Number(env.COLUMNS);
  const width = typeof cols === 'number' && cols > 0 ? cols : Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 80;
  return Math.max(40, width);
}

/** How many columns a line redrawn in place may take on this stream: one less than the terminal's width (80 when unknown), so that it never reaches the last column and wraps. */
export function liveRoom(stream: Writable): number {
  const cols = (stream as Writable & { columns?: number }).columns;
  return (typeof cols === 'number' && cols > 0 ? cols : 80) - 1;
}
