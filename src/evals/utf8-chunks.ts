/**
 * A large text (an HTML or JUnit report) kept as UTF-8 bytes, joined and encoded about 64 KB at a time, so no piece lives long.
 * As one string every piece would survive, copied at each young-generation collection, until the end, and the whole text
 * would be copied twice more: joined, and encoded for the file.
 */
export class Utf8Chunks {
  private readonly chunks: Buffer[] = [];
  private pending = '';
  private size = 0;

  /** Appends text. */
  add(text: string): void {
    this.pending += text;
    if (this.pending.length >= CHUNK) this.flush();
  }

  /** Appends each text followed by a newline. */
  lines(...texts: string[]): void {
    for (const t of texts) this.add(`${t}\n`);
  }

  /** The whole text, as UTF-8 (exactly `Buffer.from(all the text)`). */
  bytes(): Buffer {
    this.flush(true);
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
  }

  private flush(last = false): void {
    let text = this.pending;
    // A chunk never ends between the two halves of a surrogate pair (each half alone would be encoded as U+FFFD).
    const end = text.charCodeAt(text.length - 1);
    const carry = !last && end >= 0xd800 && end <= 0xdbff ? text.slice(-1) : '';
    if (carry) text = text.slice(0, -1);
    if (text !== '') {
      const b = Buffer.from(text, 'utf8');
      this.chunks.push(b);
      this.size += b.byteLength;
    }
    this.pending = carry;
  }
}

/** Characters (UTF-16 code units) per chunk: large enough that encoding costs little per call, small enough to stay young. */
const CHUNK = 64 * 1024;
