import type { Writable } from 'node:stream';
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import { liveRoom } from './width.js';

/**
 * Everything that fits text to a terminal's width (display width, cutting with `…`, wrapping), so
 * that nothing measures text its own way. Loaded only when stdout or stderr is a terminal, so a
 * piped command never reads these libraries.
 */

/** The columns a text takes on a terminal (escape codes of colours take none). */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/**
 * A line cut to at most `width` columns, its end replaced by `…` when it is cut (colours
 * kept and closed). A text of several lines is made one line first is the caller's job:
 * this cuts one line.
 */
export function fitLine(text: string, width: number): string {
  const w = Math.max(0, Math.floor(width));
  if (w === 0) return '';
  // The common case, cheaply: plain ASCII no wider than the room.
  if (text.length <= w && /^[\x20-\x7e]*$/.test(text)) return text;
  return cliTruncate(text, w, { position: 'end', truncationCharacter: '…' });
}

/**
 * Text wrapped to `width` columns at word boundaries (an overlong word split), colours kept across
 * breaks, its own line breaks kept, a backticked command on one line when it fits one. Lines after
 * the first are indented by `indent` spaces (a hanging indent under a mark such as `✓ `).
 */
export function wrapWords(text: string, width: number, indent = 0): string[] {
  const w = Math.max(1, Math.floor(width));
  const hang = w - indent >= 20 ? indent : 0;
  // A command quoted in backticks (`vap auth login`) is kept on one line when it fits one:
  // its spaces are made unbreakable while the text wraps.
  const kept = text.replace(/`[^`\n]+`/g, (span) => (displayWidth(span) <= w - hang ? span.replace(/ /g, NBSP) : span));
  // Every line wrapped to the room of the indented ones, so that each fits whichever it is.
  const lines = wrapAnsi(kept, w - hang, { hard: true, trim: true }).split('\n');
  return lines.map((l, i) => (i > 0 && hang && l ? `${' '.repeat(hang)}${l}` : l).replaceAll(NBSP, ' '));
}

const NBSP = '\u00a0';

/** A line redrawn in place (a progress bar, a spinner's text) cut to the terminal's width: a redraw then always overwrites the whole of the line before it, and never leaves a trail of cut lines. */
export function fitLive(text: string, stream: Writable): string {
  return fitLine(text, liveRoom(stream));
}

/**
 * A message for a person after its `mark` (`✓ `, `! `, `error: `), each line wider than the
 * terminal wrapped at word boundaries under its text, never inside a word as the terminal would.
 * Piped (no width), as it is.
 */
export function messageText(text: string, width: number | undefined, mark = ''): string {
  if (width === undefined) return `${mark}${text}`;
  // Each line of its own (a message may hold a diff or a list): the first after the mark.
  const [first = '', ...rest] = text.split('\n');
  return [messageLine(first, width, mark), ...rest.map((l) => messageLine(l, width, ''))].join('\n');
}

/** One line of a message: as it is when it fits; else wrapped, its further lines under its text (after the mark, or its own indentation). */
function messageLine(line: string, width: number, mark: string): string {
  const whole = `${mark}${line}`;
  if (displayWidth(whole) <= width) return whole;
  const lead = mark || /^\s*/.exec(line)![0];
  const body = mark ? line : line.slice(lead.length);
  const hang = displayWidth(lead);
  if (width - hang < 20) return wrapWords(whole, width).join('\n');
  return wrapWords(body, width - hang)
    .map((l, i) => `${i === 0 ? lead : ' '.repeat(hang)}${l}`)
    .join('\n');
}

/**
 * A message ending in a command to run: one line when it fits; else the words wrap and the command
 * (a shell-quoted line, commandLine) goes on lines of its own, broken between arguments with ` \`,
 * so that a person can still copy and paste it whole.
 */
export function messageWithCommand(text: string, command: string, width: number | undefined): string {
  const line = `${text} ${command}`;
  if (width === undefined || displayWidth(line) <= width) return line;
  const args = command.match(/(?:[^\s'"]+|'[^']*'|"(?:[^"\\]|\\.)*")+/g) ?? [command];
  const lines: string[] = [];
  let current = '  ';
  for (const arg of args) {
    const next = current.trim() ? `${current} ${arg}` : `${current}${arg}`;
    if (current.trim() && displayWidth(next) + 2 > width) {
      lines.push(`${current} \\`);
      current = `  ${arg}`;
    } else current = next;
  }
  lines.push(current);
  return [...wrapWords(text, width), ...lines].join('\n');
}

/**
 * Lines of text for a terminal `width` columns wide (undefined: as they are): a line wider
 * than it wraps at word boundaries, its further lines under its own indentation.
 */
export function wrapLines(text: string, width: number | undefined): string {
  return width === undefined ? text : messageText(text, width);
}
