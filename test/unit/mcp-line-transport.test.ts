// The stdio transport of `vap mcp` reads one JSON-RPC message per line, as the SDK's does,
// and answers what it cannot read with the JSON-RPC error the protocol allows, then reads
// on: a line that is not JSON (-32700, id null), JSON that is not a JSON-RPC message
// (-32600), a line over the limit (-32600, with the request's id when its first or last
// bytes show it). Exercised on in-memory streams with a small limit; the built binary over
// real stdio with the real limit is test/e2e/mcp-oversized-and-malformed-messages.test.ts.
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { idOfEnds, LineTransport, MAX_MESSAGE_BYTES, replyId } from '../../src/mcp/stdio-transport.js';

const LIMIT = 1000;

async function open() {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LineTransport(input, output, LIMIT);
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  transport.onmessage = (m) => received.push(m);
  transport.onerror = (e) => errors.push(e.message);
  await transport.start();
  let text = '';
  output.on('data', (c: Buffer) => (text += c.toString()));
  const answers = () =>
    text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: unknown; error?: { code: number; message: string; data?: unknown } });
  /** Writes the chunks, then lets the transport's handlers run. */
  const send = async (...chunks: Array<string | Buffer>) => {
    for (const c of chunks) input.write(c);
    await new Promise((r) => setImmediate(r));
  };
  return { transport, received, errors, answers, send, output };
}

const PING = (id: number | string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('the stdio transport', () => {
  it('reads the SDK’s limit, 10 MiB a message', () => {
    expect(MAX_MESSAGE_BYTES).toBe(10 * 1024 * 1024);
  });

  it('hands each line to the server, a line split over chunks or chunks holding many lines, CRLF too', async () => {
    const t = await open();
    const two = `${PING(1)}\n${PING(2)}\r\n`;
    await t.send(two.slice(0, 10), two.slice(10, 40), two.slice(40), `${PING(3)}\n`);
    expect(t.received.map((m) => (m as { id: number }).id)).toEqual([1, 2, 3]);
    expect(t.answers()).toEqual([]);
  });

  it('answers a line that is not JSON with -32700 and id null, and reads on', async () => {
    const t = await open();
    await t.send('this is not json\n', '{"jsonrpc":"2.0","id":1,"method":\n', `${PING(4)}\n`);
    expect(t.answers()).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: the line is not JSON/) } },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } },
    ]);
    expect(t.received).toEqual([{ jsonrpc: '2.0', id: 4, method: 'ping' }]);
    expect(t.errors).toHaveLength(2);
  });

  it('answers JSON that is not a JSON-RPC message with -32600: null unless it is a request whose id can be read', async () => {
    const t = await open();
    await t.send(
      '[1,2]\n',
      '[]\n',
      '42\n',
      '"ping"\n',
      'null\n',
      '{"jsonrpc":"1.0","id":7,"method":"ping"}\n',
      '{"jsonrpc":"2.0","id":8}\n',
      '{"id":{"x":1},"method":"ping"}\n',
      `${PING(9)}\n`,
    );
    const answers = t.answers();
    expect(answers.map((a) => a.error?.code)).toEqual(Array(8).fill(-32600));
    expect(answers.map((a) => a.id)).toEqual([null, null, null, null, null, 7, null, null]);
    expect(answers[0]!.error!.message).toMatch(/^Invalid Request: the line is JSON but not a JSON-RPC 2\.0 message/);
    expect(t.received).toEqual([{ jsonrpc: '2.0', id: 9, method: 'ping' }]);
  });

  it('skips a blank line without an answer', async () => {
    const t = await open();
    await t.send('\n', '   \r\n', `${PING(1)}\n`);
    expect(t.answers()).toEqual([]);
    expect(t.received).toHaveLength(1);
  });

  it('answers a line over the limit with -32600 and the id read from its start, never holding it whole, and reads on', async () => {
    const t = await open();
    const big = JSON.stringify({ jsonrpc: '2.0', id: 'req-1', method: 'tools/call', params: { name: 'x', arguments: { blob: 'a'.repeat(5000) } } });
    // In small chunks, the newline and the next message in the same chunk as the line's end.
    for (let i = 0; i < big.length; i += 300) await t.send(big.slice(i, i + 300));
    await t.send(`\n${PING(2)}\n`);
    expect(t.answers()).toEqual([
      {
        jsonrpc: '2.0',
        id: 'req-1',
        error: {
          code: -32600,
          message: `Invalid Request: the message is ${big.length} bytes, over vap mcp's limit of ${LIMIT} bytes for one message; it was skipped`,
          data: { size: big.length, limit: LIMIT },
        },
      },
    ]);
    expect(t.received).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('reads the id of an oversized request from its end, where the SDK’s client writes it; id null for garbage', async () => {
    const t = await open();
    const sdkOrder = JSON.stringify({
      method: 'tools/call',
      params: { name: 'x', arguments: { id: 'not-this', blob: 'b'.repeat(5000) } },
      jsonrpc: '2.0',
      id: 12,
    });
    await t.send(`${sdkOrder}\n`, `${'#'.repeat(3000)}\n`, Buffer.alloc(4000, 0xff), '\n', `${PING(3)}\n`);
    expect(t.answers().map((a) => [a.id, a.error?.code])).toEqual([
      [12, -32600],
      [null, -32600],
      [null, -32600],
    ]);
    expect(t.received).toEqual([{ jsonrpc: '2.0', id: 3, method: 'ping' }]);
  });

  it('stops reading when closed', async () => {
    const t = await open();
    let closed = false;
    t.transport.onclose = () => (closed = true);
    await t.transport.close();
    await t.send(`${PING(1)}\n`);
    expect(closed).toBe(true);
    expect(t.received).toEqual([]);
  });
});

describe('the id of an oversized request', () => {
  it('is read from the members with plain values that open or close the object', () => {
    expect(idOfEnds('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","argu', '')).toBe(7);
    expect(idOfEnds(' { "id" : "a\\"b" , "method" : "x" , "params" : [', '')).toBe('a"b');
    expect(idOfEnds('{"method":"tools/call","params":{"name":"x","arguments":{"id":1', 'aaaa"}},"jsonrpc":"2.0","id":99}')).toBe(99);
    expect(idOfEnds('{"method":"tools/call","params":{', 'aaaa"}},"jsonrpc":"2.0","id":"r-5"}\r')).toBe('r-5');
  });

  it('is null when no method is seen (a response), the id is nested or not a plain id, or the ends are not JSON', () => {
    expect(idOfEnds('{"jsonrpc":"2.0","id":3,"result":{"x":"', '"}}')).toBeNull();
    expect(idOfEnds('{"method":"tools/call","params":{"id":4,"x":"', 'aaa"}}')).toBeNull();
    expect(idOfEnds('{"method":"x","id":{"a":1},"params":{', '}}')).toBeNull();
    expect(idOfEnds('####', '####')).toBeNull();
    expect(idOfEnds('', '')).toBeNull();
  });

  it('replyId takes a request’s string or number id only', () => {
    expect(replyId({ id: 1, method: 'x' })).toBe(1);
    expect(replyId({ id: 'a', method: 'x' })).toBe('a');
    expect(replyId({ id: 1 })).toBeNull();
    expect(replyId({ id: null, method: 'x' })).toBeNull();
    expect(replyId({ id: true, method: 'x' })).toBeNull();
    expect(replyId([{ id: 1, method: 'x' }])).toBeNull();
    expect(replyId(3)).toBeNull();
  });
});
