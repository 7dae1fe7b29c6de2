/**
 * Untrusted text (the API, a file, a stream, an argument echoed back) made safe for a terminal:
 * each control character, bidi override or separator becomes a visible escape, as `cat -v` does
 * (the table: src/ui/README.md). JSON output never passes here: it stays byte-exact.
 */

/** Every character that must not reach a terminal from data, tab and newline included. */
const UNSAFE_ONE_LINE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, but tab and newline (and a CR before a newline) are kept, for multi-line text. */
const UNSAFE_MULTI_LINE = /\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** Tests without the global flag's state. */
const ANY_UNSAFE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const NAMED: Record<string, string> = { '\x1b': '\\e', '\r': '\\r', '\t': '\\t', '\n': '\\n' };

/** The visible form of one unsafe character. */
export function visibleEscape(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `\uXXXX` for one character of the Basic Multilingual Plane: a visible escape that is also a JSON string's escape of it. */
export function unicodeEscape(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * One line of untrusted text, safe for a terminal: every control character (tab and
 * newline too), DEL, C1 control and bidirectional override is shown as a visible escape.
 * Use it for table cells, `field value` lines, names and ids inside messages.
 */
export function safeText(text: string): string {
  return text.replace(UNSAFE_ONE_LINE, visibleEscape);
}

/**
 * Multi-line untrusted text (a transcript line, a summary, a reason), safe for a
 * terminal: newlines and tabs are kept (a CRLF becomes a newline), everything else
 * unsafe is shown as a visible escape.
 */
export function safeLines(text: string): string {
  return text.replace(UNSAFE_MULTI_LINE, (m) => (m === '\r\n' ? '\n' : visibleEscape(m)));
}

/** Whether text holds anything that `safeText` would escape (tab and newline included). */
export function hasUnsafe(text: string): boolean {
  return ANY_UNSAFE.test(text);
}

/** Any value as one safe line: nothing for null/undefined, JSON for objects. */
export function safeValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return safeText(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return safeText(JSON.stringify(value) ?? '');
}

/**
 * A TSV field: one line of visible characters. Backslash is doubled first, then tab, newline and
 * carriage return become `\t`, `\n`, `\r` and other unsafe characters their visible escapes, so a
 * record stays one line and an escape is never mistaken for a backslash in the data.
 */
export function safeTsv(text: string): string {
  return safeText(text.includes('\\') ? text.replace(/\\/g, '\\\\') : text);
}

/** Text vap made itself (its own colours, say), to be put into `safe` unchanged. */
export class Trusted {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** Marks text as vap's own, so that `safe` passes it through (its escape codes kept). */
export function trusted(text: string): Trusted {
  return new Trusted(text);
}

/**
 * A message for a terminal line: a `Trusted` one as it is, anything else as one safe line. The
 * sinks that print messages pass everything through here, so a message built without `safe` is
 * still safe; escaping is idempotent.
 */
export function safeMessage(message: string | Trusted): string {
  return message instanceof Trusted ? message.text : safeText(message);
}

/**
 * A template tag for messages that mix vap's words with data, as in
 * `ctx.success(safe`Created agent ${agent.name}`)`: the literal parts are kept, every value goes
 * through `safeValue` unless marked `trusted()`.
 */
export function safe(strings: TemplateStringsArray, ...values: unknown[]): string {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += (v instanceof Trusted ? v.text : safeValue(v)) + (strings[i + 1] ?? '');
  });
  return out;
}
