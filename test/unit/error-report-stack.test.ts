// Issue 10, point 1: an expected error is one line, never a stack trace; an unexpected
// one gets its stack only with debug (VAP_DEBUG=1; --verbose no longer turns it on).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, ConnectionError, NotFoundError } from '../../src/api/errors.js';
import { CliError, UsageError } from '../../src/errors.js';
import { reportError } from '../../src/report.js';

function report(err: unknown, debug: boolean): { code: number; text: string } {
  const s = new PassThrough();
  let text = '';
  s.on('data', (b: Buffer) => (text += b.toString()));
  const code = reportError(err, s, { debug });
  return { code, text };
}

const STACK_LINE = /^\s+at /m;

describe('reportError', () => {
  const expected: Array<[string, unknown]> = [
    ['an API 401', new AuthenticationError(401, 'invalid API key', { requestId: 'req_1' })],
    ['an API 404', new NotFoundError(404, 'agent not found')],
    ['a network failure', new ConnectionError('http://127.0.0.1:9/api/v1/agents', Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))],
    ['a usage error', new UsageError('bad flag', 'use another')],
    ['a CLI error', new CliError('it failed')],
    ['an abort', new DOMException('interrupted', 'AbortError')],
  ];
  it.each(expected)('%s: one line, no stack even with debug', (_name, err) => {
    const { text } = report(err, true);
    expect(text).toMatch(/^error: .+\n$/);
    expect(text).not.toMatch(STACK_LINE);
  });

  it('an unexpected error: one line without debug, naming VAP_DEBUG=1', () => {
    const { code, text } = report(new TypeError("Cannot read properties of undefined (reading 'x')"), false);
    expect(code).toBe(1);
    expect(text).toBe("error: Cannot read properties of undefined (reading 'x') (an unexpected error; VAP_DEBUG=1 prints its stack trace)\n");
  });

  it('an unexpected error with debug: the line, then its stack', () => {
    const { text } = report(new TypeError('boom'), true);
    const [first, ...rest] = text.split('\n');
    expect(first).toMatch(/^error: boom /);
    expect(rest.join('\n')).toMatch(/^TypeError: boom\n\s+at /);
  });
});
