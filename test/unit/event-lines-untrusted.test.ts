import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/api/sse.js';
import { callLine, jsonLine, organizationLine, toRecord, tsvLine } from '../../src/events/render.js';

const H = 'EVIL\x1b]0;pwned\x07\x1b[2J\x1b[38;5;196mRED\r\b\x7f\u009b\u202eT';
const FORBIDDEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const chalk = new Chalk({ level: 1 });

function event(id: string, type: string, raw: string): StreamEvent {
  let data: unknown = raw;
  try {
    data = JSON.parse(raw);
  } catch {
    // not JSON: the text itself
  }
  return { id, type, raw, data };
}

describe('event lines of hostile events', () => {
  const e = event('7', 'call.transcript.updated', JSON.stringify({ type: 'call.transcript.updated', callId: H, data: { role: H, text: H } }));

  it('show every field from the stream escaped, with vap’s colours', () => {
    for (const line of [organizationLine(toRecord(e), chalk), callLine(toRecord(e), chalk)]) {
      expect(line.replace(/\x1b\[[0-9;]*m/g, '')).not.toMatch(FORBIDDEN);
      expect(line).toContain('EVIL\\e]0;pwned\\x07');
      expect(line).toMatch(/\x1b\[\d+m/);
    }
    expect(tsvLine(toRecord(e))).not.toMatch(FORBIDDEN);
  });

  it('--json passes valid JSON on byte for byte, and never text with a raw control character', () => {
    expect(jsonLine(e)).toBe(`{"id":"7",${e.raw.slice(1)}`);
    // Not JSON (a raw ESC in a string): written as JSON, escaped.
    const broken = event('8', 'call.ended', `{"type":"call.ended","data":{"status":"x${'\x1b'}[2J"}}`);
    const line = jsonLine(broken);
    expect(line).not.toMatch(/[\x00-\x1f]/);
    expect(JSON.parse(line)).toMatchObject({ id: '8', type: 'call.ended' });
  });
});
