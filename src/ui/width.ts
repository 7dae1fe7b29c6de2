import type { Writable } from 'node:stream';

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
