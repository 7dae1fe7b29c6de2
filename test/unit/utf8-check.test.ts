import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvRecordAt, findInvalidUtf8, firstInvalid, lineAndColumn } from '../../src/contacts/encoding.js';
import { csvParseOptions } from '../../src/contacts/source.js';

const dir = mkdtempSync(join(tmpdir(), 'vap-utf8-'));
let n = 0;
const file = (bytes: Uint8Array) => {
  const p = join(dir, `f${n++}.bin`);
  writeFileSync(p, bytes);
  return p;
};
const fatal = new TextDecoder('utf-8', { fatal: true });
const valid = (b: Uint8Array) => {
  try {
    fatal.decode(b);
    return true;
  } catch {
    return false;
  }
};

describe('the first byte that is not UTF-8', () => {
  it('agrees with a strict decoder: all valid, or valid up to it and not past it (property)', () => {
    const bytes = fc.array(
      fc.oneof(
        fc.integer({ min: 0, max: 0x7f }),
        fc.integer({ min: 0x80, max: 0xff }),
        fc.constantFrom(0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xed, 0xa0, 0xc0, 0xf4, 0x90),
      ),
      { maxLength: 24 },
    );
    fc.assert(
      fc.property(bytes, (arr) => {
        const b = Uint8Array.from(arr);
        const i = firstInvalid(b);
        expect(i === b.length).toBe(valid(b));
        expect(valid(b.subarray(0, i))).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('is found across the 1 MiB reads, and a valid character split between two reads is not one', async () => {
    const mib = 1024 * 1024;
    // "é" (C3 A9) straddles the first read's end; the file is valid.
    const ok = Buffer.concat([Buffer.alloc(mib - 1, 0x61), Buffer.from('é€😀'), Buffer.alloc(10, 0x62)]);
    expect(await findInvalidUtf8(file(ok))).toBeUndefined();
    const bad = Buffer.concat([Buffer.alloc(mib - 2, 0x61), Buffer.from('\n€'), Buffer.from([0xe9]), Buffer.from('x')]);
    const at = await findInvalidUtf8(file(bad));
    expect(at?.offset).toBe(mib - 2 + 1 + 3);
    expect(at?.bytes[0]).toBe(0xe9);
    // Cut off by the end of the file.
    expect((await findInvalidUtf8(file(Buffer.from([0x61, 0xf0, 0x9f]))))?.offset).toBe(1);
  });

  it('is placed by line, column (in characters) and CSV record', async () => {
    const p = file(Buffer.concat([Buffer.from('h1,h2\n"a\nb",ü€\n\nx,'), Buffer.from([0xff])]));
    const offset = Buffer.byteLength('h1,h2\n"a\nb",ü€\n\nx,');
    expect(await lineAndColumn(p, offset)).toEqual({ line: 5, column: 3 });
    expect(await csvRecordAt(p, offset, csvParseOptions(','))).toBe(3);
    expect(await csvRecordAt(p, 0, csvParseOptions(','))).toBe(1);
    // Inside an open quoted field: the record after the complete ones.
    const q = file(Buffer.concat([Buffer.from('h\n"open\nfield '), Buffer.from([0xff])]));
    expect(await csvRecordAt(q, Buffer.byteLength('h\n"open\nfield '), csvParseOptions(','))).toBe(2);
  });
});
