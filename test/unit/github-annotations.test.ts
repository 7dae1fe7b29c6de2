import { describe, expect, it } from 'vitest';
import { escapeData, escapeProperty, workflowCommand } from '../../src/evals/github.js';
import { safeLines, safeText } from '../../src/ui/safe-text.js';
import { forbidden, HOSTILE, HOSTILE_SHOWN } from '../helpers/hostile.js';

// GitHub Actions workflow commands (`::error title=…::…`) built from untrusted text:
// neutralised as for a terminal first, then encoded as GitHub documents.

/** A workflow command line split as the runner reads it: the name, the raw properties, the raw data. */
function split(line: string): { kind: string; props: Record<string, string>; data: string } {
  const m = /^::(\w+)(?: ([^:]*))?::(.*)$/s.exec(line);
  if (!m) throw new Error(`not a workflow command: ${JSON.stringify(line)}`);
  const props: Record<string, string> = {};
  for (const kv of (m[2] ?? '').split(',').filter(Boolean)) {
    const i = kv.indexOf('=');
    props[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return { kind: m[1]!, props, data: m[3]! };
}

/** The runner's decoding of a property or data (the inverse of the encoding). */
const decode = (s: string) => s.replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');

describe('workflow command encoding', () => {
  it('data: %, CR and LF are encoded, % first so that an encoded form in the text stays text', () => {
    expect(escapeData('100% done\r\nnext\nline')).toBe('100%25 done%0D%0Anext%0Aline');
    expect(escapeData('a %0A b')).toBe('a %250A b');
    expect(escapeData('a: b, c')).toBe('a: b, c');
  });

  it('properties: also : and ,', () => {
    expect(escapeProperty('Eval scenario failed: a, b %3A\n')).toBe('Eval scenario failed%3A a%2C b %253A%0A');
  });

  it('a hostile title and message: no control byte, DEL, C1 or bidi control survives, and no separator in a property', () => {
    const line = workflowCommand('error', { title: `Eval scenario failed: ${HOSTILE}, again::x` }, `${HOSTILE}\n${HOSTILE}\r\n50% :: done,`);
    expect(forbidden(line)).toEqual([]);
    expect(line).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    const { kind, props, data } = split(line);
    expect(kind).toBe('error');
    expect(Object.keys(props)).toEqual(['title']);
    expect(props.title).not.toMatch(/[:,]/);
    // What GitHub shows is the terminal's visible form of the text.
    expect(decode(props.title!)).toBe(`Eval scenario failed: ${HOSTILE_SHOWN}, again::x`);
    expect(decode(data)).toBe(safeLines(`${HOSTILE}\n${HOSTILE}\r\n50% :: done,`));
    expect(decode(data)).toBe(`${HOSTILE_SHOWN}\n${HOSTILE_SHOWN}\n50% :: done,`);
  });

  it('a property is one line: a line break in it is shown, not kept', () => {
    const { props } = split(workflowCommand('warning', { title: 'a\nb\rc' }, 'm'));
    expect(decode(props.title!)).toBe(safeText('a\nb\rc'));
    expect(decode(props.title!)).toBe('a\\nb\\rc');
  });

  it('several properties are separated by raw commas, their own commas encoded', () => {
    const line = workflowCommand('notice', { title: 'a,b', file: 'x:y' }, '');
    expect(line).toBe('::notice title=a%2Cb,file=x%3Ay::');
  });
});
