import type { Writable } from 'node:stream';
import { safeText } from './safe-text.js';
import type { Spinner } from './spinner.js';

/**
 * Accessibility (`vap help accessibility`): with VAP_ACCESSIBLE=1 (or ACCESSIBLE=1) nothing is
 * drawn in place (spinner, progress bar, watch screen); each becomes plain lines written once,
 * which a screen reader reads once each. Piped output is plain anyway.
 */

type Env = Record<string, string | undefined>;

function on(v: string | undefined): boolean {
  if (v === undefined) return false;
  const s = v.trim().toLowerCase();
  return s !== '' && s !== '0' && s !== 'false' && s !== 'no' && s !== 'off';
}

/** Whether the user asked for plain lines instead of animation. */
export function isAccessible(env: Env): boolean {
  return on(env.VAP_ACCESSIBLE) || on(env.ACCESSIBLE);
}

/** Whether stderr may be drawn on in place (a bar redrawn with `\r`): a terminal, and not asked otherwise. */
export function drawsInPlace(ctx: { io: { stderrIsTTY: boolean }; env: Env }): boolean {
  return ctx.io.stderrIsTTY && !isAccessible(ctx.env);
}

/**
 * A spinner's plain form: its text once when it starts, and its outcome as a line of its
 * own (`✓ …`, `✗ …`); the updates in between are not written (a spinner's text changes
 * many times a second).
 */
export function plainSpinner(text: string, stream: Writable): Spinner {
  stream.write(`${safeText(text)}\n`);
  return {
    text() {},
    succeed: (t) => void stream.write(`✓ ${safeText(t ?? text)}\n`),
    fail: (t) => void stream.write(`✗ ${safeText(t ?? text)}\n`),
    stop() {},
  };
}
