import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { UsageError } from '../errors.js';

/**
 * csv-parse takes the line ending of the first line only, so a file that mixes CRLF, LF and CR
 * would have rows merged: such a file is read with all three. A file of one kind is left to
 * csv-parse's discovery, which is faster (src/contacts/README.md).
 */
export type LineEndings = 'one' | 'mixed';

/**
 * An import file must be UTF-8 (checked whole before anything is sent, the first bad byte named
 * with its line and row) unless --encoding names another. Hand-written search for that byte:
 * TextDecoder's fatal mode gives no offset, and csv-parse replaces bad bytes.
 */

/** The canonical name of an encoding TextDecoder supports (`latin1` → `windows-1252`), or a usage error. */
export function parseEncoding(name: string): string {
  try {
    return new TextDecoder(name.trim()).encoding;
  } catch {
    throw new UsageError(
      `--encoding ${JSON.stringify(name)} is not an encoding this Node.js can read`,
      'use a name TextDecoder knows, e.g. utf-8, latin1 (windows-1252), iso-8859-15, utf-16le, shift_jis, gb18030',
    );
  }
}

const CHUNK = 1024 * 1024;

/** Where the first byte that is not UTF-8 is: its offset in the file and the bytes from there (up to 4). */
export interface BadByte {
  offset: number;
  bytes: Buffer;
}

/**
 * The first byte of a file that is not part of a valid UTF-8 sequence (an overlong form, a
 * surrogate, a code point past U+10FFFF, a stray continuation byte, a sequence cut off by
 * the end of the file), or undefined when the whole file is UTF-8.
 */
export async function findInvalidUtf8(path: string, scan?: LineEndingScan): Promise<BadByte | undefined> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHUNK + 3);
    let carry = 0; // bytes of an unfinished sequence kept at the front of buf
    let base = 0; // file offset of buf[0]
    for (;;) {
      const { bytesRead } = await fh.read(buf, carry, CHUNK, base + carry);
      const len = carry + bytesRead;
      const end = bytesRead === 0 ? len : completeEnd(buf, len);
      const view = buf.subarray(0, end);
      scan?.add(view);
      // At the end of the file, a sequence still unfinished is cut off: isUtf8 fails on it.
      if (!isUtf8(view)) {
        const at = firstInvalid(view);
        return { offset: base + at, bytes: Buffer.from(buf.subarray(at, Math.min(len, at + 4))) };
      }
      if (bytesRead === 0) return undefined;
      carry = len - end;
      buf.copy(buf, 0, end, len);
      base += end;
    }
  } finally {
    await fh.close();
  }
}

/**
 * Which line endings a file's bytes hold, chunk by chunk: one kind or a mix (a mix only inside
 * quoted cells counts as mixed: the bytes cannot tell). A file with no CR, the common case,
 * costs one native scan per chunk.
 */
export class LineEndingScan {
  private cr = 0;
  private lf = 0;
  private crlf = 0;
  private lastCr = false;
  private mixedSeen = false;

  add(b: Uint8Array): void {
    if (this.mixedSeen || b.length === 0) return;
    if (this.cr === 0 && b.indexOf(13) === -1) {
      if (this.lf === 0 && b.indexOf(10) !== -1) this.lf = 1;
      return;
    }
    for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) {
      this.lf++;
      if (i > 0 ? b[i - 1] === 13 : this.lastCr) this.crlf++;
    }
    for (let i = b.indexOf(13); i !== -1; i = b.indexOf(13, i + 1)) this.cr++;
    this.lastCr = b[b.length - 1] === 13;
    // A CR that ends this chunk may be a CRLF's: only what is settled decides early.
    const settledCr = this.cr - (this.lastCr ? 1 : 0);
    if ((this.cr > 0 && this.lf > this.crlf) || (this.lf > 0 && settledCr > this.crlf)) this.mixedSeen = true;
  }

  /** `mixed` when more than one kind of line ending was seen, else `one`. */
  get result(): LineEndings {
    if (this.mixedSeen) return 'mixed';
    return this.cr === 0 || this.lf === 0 || (this.cr === this.crlf && this.lf === this.crlf) ? 'one' : 'mixed';
  }
}

/** The length of `buf[0..len)` without a multi-byte sequence that the next chunk may complete. */
function completeEnd(buf: Buffer, len: number): number {
  for (let back = 1; back <= 3 && back <= len; back++) {
    const b = buf[len - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? len - back : len;
  }
  return len;
}

/** The index of the first byte of `b` that starts no valid UTF-8 sequence (b.length when all are valid). */
export function firstInvalid(b: Uint8Array): number {
  const n = b.length;
  const cont = (i: number, lo = 0x80, hi = 0xbf) => i < n && b[i]! >= lo && b[i]! <= hi;
  let i = 0;
  while (i < n) {
    const c = b[i]!;
    if (c < 0x80) i += 1;
    else if (c >= 0xc2 && c <= 0xdf && cont(i + 1)) i += 2;
    else if (c === 0xe0 && cont(i + 1, 0xa0) && cont(i + 2)) i += 3;
    else if (((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) && cont(i + 1) && cont(i + 2)) i += 3;
    else if (c === 0xed && cont(i + 1, 0x80, 0x9f) && cont(i + 2)) i += 3;
    else if (c === 0xf0 && cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3)) i += 4;
    else if (c >= 0xf1 && c <= 0xf3 && cont(i + 1) && cont(i + 2) && cont(i + 3)) i += 4;
    else if (c === 0xf4 && cont(i + 1, 0x80, 0x8f) && cont(i + 2) && cont(i + 3)) i += 4;
    else return i;
  }
  return n;
}

/**
 * The line (1-based) and column (1-based, in characters) of a byte offset, the file being
 * valid UTF-8 before it. CRLF, LF and CR each end a line, as they each end a CSV record.
 * (Only run once a bad byte was found: a plain loop over the bytes is fast enough.)
 */
export async function lineAndColumn(path: string, offset: number): Promise<{ line: number; column: number }> {
  let line = 1;
  let column = 1;
  if (offset === 0) return { line, column };
  let afterCr = false;
  for await (const chunk of createReadStream(path, { start: 0, end: offset - 1, highWaterMark: CHUNK })) {
    const b = chunk as Buffer;
    for (let i = 0; i < b.length; i++) {
      const c = b[i]!;
      if (c === 10 && afterCr) {
        // The LF of a CRLF: the line was counted at the CR.
      } else if (c === 10 || c === 13) {
        line++;
        column = 1;
      } else if ((c & 0xc0) !== 0x80) {
        // Characters, not bytes: every byte that is not a continuation byte starts one.
        column++;
      }
      afterCr = c === 13;
    }
  }
  return { line, column };
}

/**
 * The CSV record a byte offset falls in (1 is the header), found by parsing the file up to
 * it with the importer's own csv-parse options: blank lines are not counted, and a quoted
 * field may span lines, so the record is not simply the line.
 */
export async function csvRecordAt(path: string, offset: number, parseOptions: object): Promise<number> {
  if (offset === 0) return 1;
  const { parse } = await import('csv-parse');
  const file = createReadStream(path, { start: 0, end: offset - 1 });
  const parser = parse(parseOptions);
  let records = 0;
  let last = -1;
  file.on('data', (c) => {
    const b = c as Buffer;
    if (b.length) last = b[b.length - 1]!;
  });
  try {
    file.pipe(parser);
    for await (const _ of parser) records++;
  } catch (err) {
    // The bytes end inside a quoted field: the bad byte is in the record after the complete ones.
    const done = (err as { records?: number }).records;
    return (typeof done === 'number' ? done : records) + 1;
  } finally {
    file.destroy();
  }
  // Parsed cleanly: ending on a line break, the bad byte starts the next record; else it is in the last (partial) one.
  return last === 10 || last === 13 || records === 0 ? records + 1 : records;
}

/**
 * Refuses (exit 2, before anything is sent) a file that is not valid UTF-8, naming the
 * first bad byte's line and column (and, for CSV read with `csvOptions`, its data row), and
 * how to read it instead. A valid file's line endings are found in the same read.
 */
export async function checkUtf8(path: string, csvOptions?: object): Promise<LineEndings> {
  const scan = new LineEndingScan();
  const bad = await findInvalidUtf8(path, scan);
  if (!bad) return scan.result;
  const { line, column } = await lineAndColumn(path, bad.offset);
  let row = '';
  if (csvOptions) {
    const record = await csvRecordAt(path, bad.offset, csvOptions).catch(() => undefined);
    if (record !== undefined) row = record <= 1 ? ' (in the header)' : ` (data row ${record - 1})`;
  }
  const hex = [...bad.bytes.subarray(0, 1)].map((x) => `0x${x.toString(16).toUpperCase().padStart(2, '0')}`).join(' ');
  const utf16 =
    bad.offset <= 1 &&
    bad.bytes.length >= 1 &&
    ((bad.bytes[0] === 0xff && (bad.bytes[1] ?? 0xfe) === 0xfe) || (bad.bytes[0] === 0xfe && (bad.bytes[1] ?? 0xff) === 0xff));
  throw new UsageError(
    `cannot read ${path}: it is not valid UTF-8: byte ${hex} at line ${line}, column ${column}${row}`,
    utf16
      ? 'it starts with a UTF-16 byte order mark: pass --encoding utf-16le (or utf-16be)'
      : "pass --encoding with the file's encoding, e.g. --encoding latin1 for a file saved by Excel on Windows (any encoding Node's TextDecoder reads: windows-1252, iso-8859-15, utf-16le, shift_jis, …)",
  );
}

/** Bytes in `encoding` → UTF-8 bytes, streaming (a character split across chunks is kept whole). */
export function decodingStream(encoding: string): Transform {
  const decoder = new TextDecoder(encoding);
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const text = decoder.decode(chunk, { stream: true });
      done(null, text ? Buffer.from(text, 'utf8') : undefined);
    },
    flush(done) {
      const text = decoder.decode();
      done(null, text ? Buffer.from(text, 'utf8') : undefined);
    },
  });
}
