import type { Writable } from 'node:stream';
import { safeText } from './safe-text.js';
import { liveRoom } from './width.js';

export interface Spinner {
  text(t: string): void;
  succeed(t?: string): void;
  fail(t?: string): void;
  stop(): void;
}

const NOOP: Spinner = { text() {}, succeed() {}, fail() {}, stop() {} };

/**
 * A spinner on stderr (ora, loaded on first use), or nothing when stderr is no terminal. Its text
 * is one safe line cut to the width the spinner leaves, so a redraw never leaves a trail; the line
 * it ends with (succeed, fail) is whole.
 */
export async function startSpinner(text: string, opts: { stream: Writable; enabled: boolean; color: boolean }): Promise<Spinner> {
  if (!opts.enabled) return NOOP;
  const [{ default: ora }, { fitLine }] = await Promise.all([import('ora'), import('./fit.js')]);
  const live = (t: string) => fitLine(safeText(t), liveRoom(opts.stream) - 2);
  const s = ora({
    text: live(text),
    stream: opts.stream as NodeJS.WritableStream,
    color: opts.color ? 'cyan' : false,
    isEnabled: true,
    discardStdin: false,
  }).start();
  return {
    text: (t) => {
      s.text = live(t);
    },
    succeed: (t) => {
      s.succeed(t === undefined ? t : safeText(t));
    },
    fail: (t) => {
      s.fail(t === undefined ? t : safeText(t));
    },
    stop: () => {
      s.stop();
    },
  };
}
