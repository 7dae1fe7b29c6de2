// The JUnit report is written without an XML builder (src/evals/report-junit.ts): its
// escaping must be what fast-xml-parser's builder wrote, and a strict parser must read every
// text and attribute back as it was (less what XML 1.0 cannot carry). Whole documents are
// compared with files the builder wrote in eval-reports-byte-for-byte.test.ts.
import fc from 'fast-check';
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { xmlAttr, xmlText } from '../../src/evals/report-junit.js';
import { Utf8Chunks } from '../../src/evals/utf8-chunks.js';

// eslint-disable-next-line no-control-regex
const INVALID_XML = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const carried = (s: string) => s.replace(INVALID_XML, '');

/** Any text: every UTF-16 code unit (lone surrogates, controls, U+FFFE), markup characters and line breaks made likely. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom('&', '<', '>', '"', "'", '\n', '\r', '\t', ' ', 'a', '\u0000', '\u001b', '\uD83D', '\uDE00', '\uFFFE', 'é') }),
  fc.string({ unit: 'grapheme' }),
);

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', processEntities: true, suppressEmptyNode: true });
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: false,
});

describe('JUnit escaping', () => {
  it('is what fast-xml-parser’s builder writes, for text and attributes', () => {
    fc.assert(
      fc.property(anyText, (s) => {
        const text = carried(s);
        const attr = text.replace(/\s*[\r\n]+\s*/g, ' ');
        expect(`<t a="${xmlAttr(s)}">${xmlText(s)}</t>`).toBe(
          builder.build({ t: { '@_a': attr, '#text': text } }).replace(/<t a="([^"]*)"\/>/, '<t a="$1"></t>'),
        );
      }),
      { numRuns: 2000 },
    );
  });

  // (A parser reads a carriage return, alone or before a line feed, as a line feed: XML 1.0, 2.11.)
  const lineEnds = (t: string) => t.replace(/\r\n?/g, '\n');
  it('is read back by a strict parser as the text it was, less what XML cannot carry', () => {
    fc.assert(
      fc.property(anyText, (s) => {
        const xml = `<t a="${xmlAttr(s)}">${xmlText(s)}</t>`;
        expect(XMLValidator.validate(xml)).toBe(true);
        const t = (parser.parse(xml) as { t: { '@_a': string; '#text'?: string } }).t;
        expect(t['#text'] ?? '').toBe(lineEnds(carried(s)));
        expect(t['@_a']).toBe(carried(s).replace(/\s*[\r\n]+\s*/g, ' '));
        expect(xmlAttr(s)).not.toMatch(/[\r\n]/);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('a report built in UTF-8 chunks', () => {
  it('is exactly the UTF-8 of the whole text, a surrogate pair never split at a chunk’s end', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constant('😀'.repeat(20000)), fc.constant('a'.repeat(65535))), { maxLength: 30 }),
        (pieces) => {
          const chunks = new Utf8Chunks();
          for (const p of pieces) chunks.add(p);
          expect(chunks.bytes().equals(Buffer.from(pieces.join(''), 'utf8'))).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
