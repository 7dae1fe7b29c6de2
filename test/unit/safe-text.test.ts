import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasUnsafe, safe, safeLines, safeMessage, safeText, safeTsv, safeValue, trusted } from '../../src/ui/safe-text.js';

/** The hostile name of the trust review: an OSC title, a screen clear and a colour. */
const HOSTILE = 'EVIL\x1b]0;pwned\x07\x1b[2J\x1b[31mRED';

/** What a terminal must never receive from data. */
const FORBIDDEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('safeText', () => {
  it('shows ESC, BEL and the rest of an OSC/CSI sequence visibly', () => {
    expect(safeText(HOSTILE)).toBe('EVIL\\e]0;pwned\\x07\\e[2J\\e[31mRED');
  });

  it('escapes CR, BS, DEL, a C1 control, tab and newline, and bidi overrides and isolates', () => {
    expect(safeText('a\rb\bc\x7fd\x9be\tf\ng')).toBe('a\\rb\\x08c\\x7fd\\x9be\\tf\\ng');
    expect(safeText('abc\u202Edef\u2066x\u2069\u2028')).toBe('abc\\u202edef\\u2066x\\u2069\\u2028');
  });

  it('leaves printable text of any script alone', () => {
    const text = 'José Núñez — 東京 — مرحبا — 👩‍💻 \\e stays';
    expect(safeText(text)).toBe(text);
  });

  it('never lets a forbidden character through, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(FORBIDDEN.test(safeText(s))).toBe(false);
        expect(/[\t\n]/.test(safeText(s))).toBe(false);
        expect(FORBIDDEN.test(safeLines(s))).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('safeLines', () => {
  it('keeps newlines and tabs, turns CRLF into a newline and escapes a lone CR', () => {
    expect(safeLines('one\r\ntwo\tthree\rfour\x1b[2K')).toBe('one\ntwo\tthree\\rfour\\e[2K');
  });
});

describe('safeValue, safe and hasUnsafe', () => {
  it('renders any value as one safe line', () => {
    expect(safeValue(undefined)).toBe('');
    expect(safeValue(3)).toBe('3');
    expect(safeValue({ name: 'a\x1bb' })).toBe('{"name":"a\\u001bb"}');
  });

  it('escapes interpolated data and keeps the literal parts and trusted values', () => {
    const red = '\x1b[31mred\x1b[39m';
    expect(safe`${trusted(red)} agent ${HOSTILE} (${'ag_1'})`).toBe(`${red} agent EVIL\\e]0;pwned\\x07\\e[2J\\e[31mRED (ag_1)`);
  });

  it('tells whether text needs escaping', () => {
    expect(hasUnsafe('plain name')).toBe(false);
    expect(hasUnsafe('tab\there')).toBe(true);
    expect(hasUnsafe('rtl\u202e')).toBe(true);
  });
});

describe('safeTsv and safeMessage', () => {
  /** Reads a TSV field back: the escapes undone (the inverse a script would apply). */
  const unTsv = (f: string) =>
    f.replace(/\\(\\|t|n|r|e|x([0-9a-f]{2})|u([0-9a-f]{4}))/g, (_, c: string, x?: string, u?: string) =>
      c === '\\' ? '\\' : c === 't' ? '\t' : c === 'n' ? '\n' : c === 'r' ? '\r' : c === 'e' ? '\x1b' : String.fromCharCode(parseInt((x ?? u)!, 16)),
    );

  it('makes a TSV field one line of visible characters that reads back exactly (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const f = safeTsv(s);
        expect(FORBIDDEN.test(f)).toBe(false);
        expect(/[\t\n]/.test(f)).toBe(false);
        expect(unTsv(f)).toBe(s);
      }),
      { numRuns: 2000 },
    );
    expect(safeTsv('a\\e\x1bb')).toBe('a\\\\e\\eb');
  });

  it('shows a message as one safe line, unless vap marked it as its own', () => {
    expect(safeMessage(`Created agent ${HOSTILE}`)).toBe('Created agent EVIL\\e]0;pwned\\x07\\e[2J\\e[31mRED');
    const own = `\x1b[32m✓\x1b[39m ${safe`agent ${HOSTILE}`}`;
    expect(safeMessage(trusted(own))).toBe(own);
    // Idempotent: text made safe once is not escaped again.
    expect(safeMessage(safeText(HOSTILE))).toBe(safeText(HOSTILE));
  });
});
