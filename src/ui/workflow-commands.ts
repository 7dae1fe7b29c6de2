import type { StringDecoder } from 'node:string_decoder';
import type { Writable } from 'node:stream';
import type { TextSink } from './block-writer.js';
import { unicodeEscape } from './safe-text.js';

/**
 * Under GitHub Actions no line of data may read as a workflow command (`::` at a line's start,
 * `##[` anywhere): each stream's writes pass a filter that escapes them and keeps vap's own
 * commands whole (how: src/ui/README.md).
 */

const COLON_ESCAPE = unicodeEscape(':');
const BRACKET_ESCAPE = unicodeEscape('[');

/** White space as the runner trims it: the union of what .NET's TrimStart removes, in any version. */
const SPACE = '\\t\\v\\f \\u0085\\u00a0\\u1680\\u180e\\u2000-\\u200b\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/** The characters to escape: the `[` of `##[`, and the second `:` of a `::` at a line's start (after white space). */
const COMMAND = new RegExp(`\\[(?<=##\\[)|:(?<=(?:^|[\\r\\n])[${SPACE}]*::)`, 'g');

function isSpace(c: number): boolean {
  if (c < 0x80) return c === 0x20 || c === 0x09 || c === 0x0b || c === 0x0c;
  return (
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    c === 0x180e ||
    (c >= 0x2000 && c <= 0x200b) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const HASH = 0x23;

/** Where the last write left its line: white space only since the line began, just after a first `:`, or anything else. */
enum Line {
  Start,
  Colon,
  Other,
}

/**
 * Lines vap built as its own workflow commands (src/evals/github.ts). By construction each is
 * a well-formed `::error|warning|notice …::…` whose data is neutralised and encoded.
 */
const OWN = new Set<string>();

/** Records `line` (one line, no line break) as a workflow command of vap's own, and returns it. */
export function ownWorkflowCommand(line: string): string {
  OWN.add(line);
  return line;
}

/** The filter of one stream (see above). */
export class WorkflowCommandFilter {
  private line = Line.Start;
  /** `#` at the end of what was written, up to two. */
  private hashes = 0;
  /** Bytes written last, decoded as the runner reads them (a character split across writes kept whole). */
  private decoder?: StringDecoder;

  /** A text write, as it should reach the stream. */
  text(s: string): string {
    if (this.decoder) {
      // Bytes left mid-character before text are a character the runner cannot read (U+FFFD).
      const rest = this.decoder.end();
      this.decoder = undefined;
      if (rest) this.advance(rest);
    }
    if (s.length === 0) return s;
    // What came before, as the pattern needs to see it: a line's start, a first `:`, or `#`s.
    const before = this.line === Line.Start ? '\n' : this.line === Line.Colon ? '\n:' : this.hashes === 2 ? 'x##' : this.hashes === 1 ? 'x#' : 'x';
    const whole = before + s;
    COMMAND.lastIndex = 0;
    const out = COMMAND.test(whole)
      ? whole
          .replace(COMMAND, (ch: string, at: number) => (ch === '[' ? BRACKET_ESCAPE : own(whole, at - 1, before.length) ? ch : COLON_ESCAPE))
          .slice(before.length)
      : s;
    this.advance(s);
    return out;
  }

  /** Bytes were written as they are: where they leave the line. */
  bytes(b: Uint8Array): void {
    this.decoder ??= new (process.getBuiltinModule('node:string_decoder').StringDecoder)('utf8');
    this.advance(this.decoder.write(Buffer.from(b.buffer, b.byteOffset, b.byteLength)));
  }

  /** Where `s` leaves the line (read from its end). */
  private advance(s: string): void {
    if (s.length === 0) return;
    let h = 0;
    while (h < 2 && h < s.length && s.charCodeAt(s.length - 1 - h) === HASH) h++;
    this.hashes = h === s.length ? Math.min(2, this.hashes + h) : h;
    let k = s.length - 1;
    while (k >= 0 && isSpace(s.charCodeAt(k))) k--;
    if (k < 0) {
      if (this.line === Line.Colon) this.line = Line.Other;
      return;
    }
    const c = s.charCodeAt(k);
    if (c === LF || c === CR) {
      this.line = Line.Start;
      return;
    }
    if (c === COLON && k === s.length - 1) {
      let j = k - 1;
      while (j >= 0 && isSpace(s.charCodeAt(j))) j--;
      const first = j < 0 ? this.line === Line.Start : s.charCodeAt(j) === LF || s.charCodeAt(j) === CR;
      this.line = first ? Line.Colon : Line.Other;
      return;
    }
    this.line = Line.Other;
  }
}

/** Whether the line that starts at `start` (its first `:`) is one of vap's own commands, whole in this write. */
function own(text: string, start: number, from: number): boolean {
  if (start < from || OWN.size === 0) return false;
  let end = text.indexOf('\n', start);
  const cr = text.indexOf('\r', start);
  if (cr >= 0 && (end < 0 || cr < end)) end = cr;
  return end >= 0 && OWN.has(text.slice(start, end));
}

/** Encodings whose strings are bytes spelled out, not text. */
const BYTE_ENCODINGS = new Set(['base64', 'base64url', 'hex']);

/** A Writable whose writes pass `filter` (everything else is the stream's own, bound to it). */
export function filteredStream(stream: Writable, filter: WorkflowCommandFilter): Writable {
  const chunk = (c: unknown, encoding: unknown): unknown => {
    if (typeof c !== 'string') {
      if (c instanceof Uint8Array) filter.bytes(c);
      return c;
    }
    if (typeof encoding === 'string' && BYTE_ENCODINGS.has(encoding)) filter.bytes(Buffer.from(c, encoding as BufferEncoding));
    else return filter.text(c);
    return c;
  };
  const write = (c: unknown, ...rest: unknown[]) => (stream.write as (...a: unknown[]) => boolean)(chunk(c, rest[0]), ...rest);
  const end = (...args: unknown[]) => {
    if (args.length > 0 && typeof args[0] !== 'function') args[0] = chunk(args[0], args[1]);
    return (stream.end as (...a: unknown[]) => Writable)(...args);
  };
  const bound = new Map<PropertyKey, { fn: unknown; bound: unknown }>();
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') return write;
      if (prop === 'end') return end;
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      let b = bound.get(prop);
      if (b?.fn !== v) bound.set(prop, (b = { fn: v, bound: (v as (...a: unknown[]) => unknown).bind(target) }));
      return b.bound;
    },
    set: (target, prop, value) => Reflect.set(target, prop, value),
  });
}

/** The streams of cli.ts's IO, as far as the filter touches them. */
export interface OutputStreams {
  stdout: Writable;
  stderr: Writable;
  stdoutText?: TextSink;
  writeOut?: (text: string) => void;
}

/**
 * `io` with every write to stdout and stderr filtered: one filter per stream, shared by the
 * ways to stdout (the stream, cli.ts's direct writes, help). The streams are still made only
 * when first used; everything else is read from `io`.
 */
export function guardStreams<T extends OutputStreams>(io: T): T {
  const out = new WorkflowCommandFilter();
  const err = new WorkflowCommandFilter();
  const cache = new Map<unknown, unknown>();
  const once = <V>(raw: V, make: (raw: V) => V): V => {
    if (raw === undefined) return raw;
    let v = cache.get(raw) as V | undefined;
    if (v === undefined) cache.set(raw, (v = make(raw)));
    return v;
  };
  const guarded = Object.create(io) as T;
  Object.defineProperties(guarded, {
    stdout: { get: () => once(io.stdout, (s) => filteredStream(s, out)), enumerable: true },
    stderr: { get: () => once(io.stderr, (s) => filteredStream(s, err)), enumerable: true },
    stdoutText: {
      get: () =>
        once(
          io.stdoutText,
          (sink): TextSink | undefined =>
            sink && { write: (text, callback) => sink.write(out.text(text), callback), once: (e, l) => sink.once(e, l), off: (e, l) => sink.off(e, l) },
        ),
      enumerable: true,
    },
    writeOut: { value: io.writeOut && ((text: string) => io.writeOut!(out.text(text))), enumerable: true },
  });
  return guarded;
}
