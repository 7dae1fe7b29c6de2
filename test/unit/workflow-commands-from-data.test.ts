import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { guardStreams, ownWorkflowCommand, WorkflowCommandFilter } from '../../src/ui/workflow-commands.js';
import { commandLines } from '../helpers/runner-commands.js';

// Under GitHub Actions, the runner reads each line of a step's stdout and stderr (lines end at
// LF, CR or CRLF) for workflow commands: a line that starts with `::` once .NET's TrimStart
// has taken its white space off, or that holds `##[` anywhere (the older form). The filter of
// src/ui/workflow-commands.ts keeps any such line out of what vap writes, across writes that
// end anywhere, and lets through only the command lines vap built itself.

type Write = string | Uint8Array;

/** The bytes the writes put on the stream, as Node encodes each string write. */
const bytesOf = (writes: Write[]) => Buffer.concat(writes.map((w) => (typeof w === 'string' ? Buffer.from(w, 'utf8') : Buffer.from(w))));

/** What one stream's filter makes of a sequence of writes (bytes pass as they are). */
function filtered(writes: Write[]): Write[] {
  const f = new WorkflowCommandFilter();
  return writes.map((w) => {
    if (typeof w === 'string') return f.text(w);
    f.bytes(w);
    return w;
  });
}

const text = (writes: Write[]) => bytesOf(filtered(writes)).toString('utf8');

describe('a line of data never reads as a workflow command', () => {
  it('a `::` at the start of a line, bare, indented, after Unicode spaces or a BOM, after CR', () => {
    expect(text([' Greet callers.\n ::add-mask::s3cret\n'])).toBe(' Greet callers.\n :\\u003aadd-mask::s3cret\n');
    expect(text(['::warning ::Deploy failed\n'])).toBe(':\\u003awarning ::Deploy failed\n');
    expect(text(['\t  ::error::x'])).toBe('\t  :\\u003aerror::x');
    expect(text(['\u3000\u00a0\u2003\u202f\ufeff\u200b::add-mask::x'])).toBe('\u3000\u00a0\u2003\u202f\ufeff\u200b:\\u003aadd-mask::x');
    expect(text(['progress 50%\r::stop-commands::t0k3n\r\n'])).toBe('progress 50%\r:\\u003astop-commands::t0k3n\r\n');
  });

  it('`##[` anywhere in a line, the older form', () => {
    expect(text(['name\tFront ##[set-output name=x]y\n'])).toBe('name\tFront ##\\u005bset-output name=x]y\n');
    expect(text(['###[add-mask]z'])).toBe('###\\u005badd-mask]z');
  });

  it('a write split anywhere: between the colons, before them, between # and [', () => {
    expect(text(['agent.md\n', ' ', ':', ':add-mask::x\n'])).toBe('agent.md\n :\\u003aadd-mask::x\n');
    expect(text(['a\n \u3000', '::x'])).toBe('a\n \u3000:\\u003ax');
    expect(text(['a #', '#', '[x]y'])).toBe('a ##\\u005bx]y');
    expect(text(['a ##', '[x]y'])).toBe('a ##\\u005bx]y');
    // A character split across byte writes is read whole, as the runner reads it (U+3000 is white space).
    const ideographicSpace = Buffer.from('\u3000');
    expect(text(['x\n', ideographicSpace.subarray(0, 1), ideographicSpace.subarray(1), '::add-mask::x'])).toBe('x\n\u3000:\\u003aadd-mask::x');
    expect(text([Buffer.from('x\n:'), ':add-mask::x', Buffer.from('#'), '#[y]z'])).toBe('x\n:\\u003aadd-mask::x##\\u005by]z');
  });

  it('leaves everything else alone: colons inside a line, one colon at its start, a # without [', () => {
    const plain = ['  "instructions": "Greet callers: say hello:: then wait",\n', 'time\t12:00:00\n', ':one colon\n', '# heading [link]\n', 'a::b ::c\n'];
    expect(filtered(plain)).toEqual(plain);
  });

  it('JSON stays valid and carries the same values', () => {
    const value = { name: '##[add-mask]x', instructions: 'line\n::add-mask::y', nested: ['::warning::z', '##[error]w'] };
    for (const json of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
      const out = text([json]);
      expect(out).not.toBe(json);
      expect(JSON.parse(out)).toEqual(value);
      expect(commandLines(out)).toEqual([]);
    }
  });

  it("vap's own command passes when written whole at a line's start; the same text split, or not at a line's start, does not", () => {
    const own = ownWorkflowCommand('::error title=Eval gate failed%3A --min-score 0.8::score 0.71 < 0.8');
    expect(text(['summary\n', `${own}\n`])).toBe(`summary\n${own}\n`);
    expect(text([`${own}\r\n`, `${own}\n`])).toBe(`${own}\r\n${own}\n`);
    // Written in two pieces, or without its line break, or with more on its line: escaped.
    expect(text([own.slice(0, 10), `${own.slice(10)}\n`])).toBe(`${own.slice(0, 1)}\\u003a${own.slice(2)}\n`);
    expect(text([own])).toBe(`:\\u003a${own.slice(2)}`);
    expect(text([`${own} and more\n`])).toBe(`:\\u003a${own.slice(2)} and more\n`);
    expect(text([`::add-mask::x\n`])).toBe(':\\u003aadd-mask::x\n');
  });

  it('for any writes, no line reads as a command but those vap built, and the escapes are all that changed', () => {
    const own = ownWorkflowCommand('::notice title=vap::a note');
    const piece = fc.oneof(
      fc.string({ unit: fc.constantFrom(':', ':', '#', '[', ']', ' ', '\t', '\n', '\r', '\u3000', '\u00a0', '\ufeff', '\u2028', 'a', 'é', '\u001b') }),
      fc.constant(`${own}\n`),
      fc.constant('::add-mask::x'),
      // Bytes pass as they are: none that would make a command by themselves, but those that leave a line's start or a character half-written.
      fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b.filter((x) => x !== 0x3a && x !== 0x23 && x !== 0x5b))),
      fc.constantFrom(...[...Buffer.from('\n\u3000\u00a0')].map((b) => Buffer.from([b]))),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (writes) => {
        const out = filtered(writes);
        for (const line of commandLines(bytesOf(out).toString('utf8'))) expect(line).toBe(own);
        expect(bytesOf(out).toString('latin1').replaceAll('\\u003a', ':').replaceAll('\\u005b', '[')).toBe(bytesOf(writes).toString('latin1'));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('guardStreams', () => {
  it('filters every way to stdout with one filter, stderr with its own; the streams stay streams', async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (c: Buffer) => (out += c.toString()));
    stderr.on('data', (c: Buffer) => (err += c.toString()));
    const direct: string[] = [];
    const io = guardStreams({
      stdout,
      stderr,
      stdinIsTTY: false,
      stdoutText: {
        write: (t: string, cb?: (e?: Error | null) => void) => stdout.write(t, cb),
        once: (e: 'drain', l: () => void) => stdout.once(e, l),
        off: (e: 'drain', l: () => void) => stdout.off(e, l),
      },
      writeOut: (t: string) => void direct.push(t),
    });
    expect(io.stdinIsTTY).toBe(false);
    expect(io.stdout).toBe(io.stdout);
    expect(io.stdout).toBeInstanceOf(PassThrough);
    // One line written three ways to stdout; stderr's line state is its own.
    io.stdoutText!.write(' :');
    io.stderr.write(':');
    await new Promise<void>((resolve) => io.stdout.write(':add-mask::x\n', () => resolve()));
    io.stderr.write(':warning::y\n');
    io.writeOut!('::help\n');
    io.stdout.end('##[error]z\n');
    await new Promise((resolve) => stdout.on('end', resolve));
    expect(out).toBe(' :\\u003aadd-mask::x\n##\\u005berror]z\n');
    expect(err).toBe('::warning::y\n'.replace('::', ':\\u003a'));
    expect(direct).toEqual([':\\u003ahelp\n']);
  });
});
