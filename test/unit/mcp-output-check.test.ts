// vap checks a tool's arguments against its input schema, and its structured content against
// its output schema, synchronously, in place of the SDK's asynchronous checks
// (src/mcp/server.ts): the same outcome, the same error.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkInputSynchronously, checkOutputSynchronously } from '../../src/mcp/server.js';

/** Calls tool t of a server through the SDK's client (which checks results too: only the server's answer is looked at here). */
async function callTool(server: McpServer, args: Record<string, unknown>) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(b);
  try {
    return await client.request({ method: 'tools/call', params: { name: 't', arguments: args } }, z.looseObject({}));
  } finally {
    await client.close();
  }
}

async function call(sync: boolean, structured: Record<string, unknown>) {
  const server = new McpServer({ name: 't', version: '1' });
  server.registerTool('t', { description: 't', inputSchema: {}, outputSchema: z.object({ data: z.object({ n: z.number() }) }) }, async () => ({
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
  }));
  if (sync) checkOutputSynchronously(server);
  return callTool(server, {});
}

describe('the output check, made synchronously', () => {
  it('passes what the SDK passes', async () => {
    expect(await call(true, { data: { n: 1 } })).toEqual(await call(false, { data: { n: 1 } }));
  });

  it('refuses what the SDK refuses, with its words', async () => {
    const ours = await call(true, { data: { n: 'one' } });
    const sdk = await call(false, { data: { n: 'one' } });
    expect(ours).toEqual(sdk);
    expect(ours).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('Output validation error: Invalid structured content for tool t: ') }],
    });
  });
});

async function callWith(sync: boolean, args: Record<string, unknown>) {
  const server = new McpServer({ name: 't', version: '1' });
  server.registerTool(
    't',
    {
      description: 't',
      inputSchema: { limit: z.number().int().min(1).max(100).optional(), search: z.string().optional(), name: z.string().transform((v) => v.trim()) },
    },
    async (a) => ({ content: [{ type: 'text', text: JSON.stringify(a) }] }),
  );
  if (sync) checkInputSynchronously(server);
  return callTool(server, args);
}

describe('the input check, made synchronously', () => {
  it('passes the arguments the SDK passes, as its parse gives them', async () => {
    const args = { limit: 5, name: '  Desk  ' };
    const ours = await callWith(true, args);
    expect(ours).toEqual(await callWith(false, args));
    expect(ours).toMatchObject({ content: [{ text: '{"limit":5,"name":"Desk"}' }] });
  });

  it('refuses what the SDK refuses, with its words', async () => {
    for (const args of [{ limit: 0, name: 'x' }, { limit: 'ten', name: 'x' }, {}]) {
      const ours = await callWith(true, args);
      expect(ours).toEqual(await callWith(false, args));
      expect(ours).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('Input validation error: Invalid arguments for tool t: ') }] });
    }
  });
});
